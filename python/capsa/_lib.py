"""ctypes declarations of include/capsa.h and capsa_net.h, and the loading of
libcapsa.so and libcapsa-net.so.

Everything that touches ctypes lives here: the structs, the function prototypes, and
the C callback trampolines (tool calls, output, audit, the directory listing and
the MCP client's log). The trampolines are created once per process and find their Python
target through an integer key passed as the C ``ud`` pointer (see ``Registry``), so
no per-sandbox ctypes closure has to be kept alive or can leak.
"""

from __future__ import annotations

import ctypes
import itertools
import os
import threading
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    c_char_p,
    c_double,
    c_int,
    c_size_t,
    c_uint32,
    c_uint64,
    c_void_p,
)
from pathlib import Path
from typing import Any, Callable

__all__ = ["lib", "net_lib", "load_library", "LibraryNotFoundError"]

# ---- status codes (CAPSA_ERRNO_MAP) ---------------------------------------------------

OK = 0
EINVAL = 1
ENOMEM = 2
ESCRIPT = 3
ETRAP = 4
ETOOBIG = 5
EGUEST = 6
EIO = 7
ETIMEOUT = 8
EFUEL = 9
ETOOMANY = 10
ENOENT = 11
EEXIST = 12
ENOTDIR = 13
EISDIR = 14
ENOTEMPTY = 15
ENOSPC = 16
PENDING = 17
EINTERRUPTED = 18

STDOUT = 1
STDERR = 2

AUDIT_HASH_ARGS = 1
AUDIT_NO_FILE = 2
AUDIT_KEEP = 4

TOOL_INLINE = 1

MOUNT_RO = 0
MOUNT_RW = 1

FILE = 1
DIRECTORY = 2
SYMLINK = 3

UINT64_MAX = 2**64 - 1

# ---- structs ---------------------------------------------------------------------------


class EngineOptions(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("allocator", c_void_p),
        ("max_sandboxes", c_uint32),
        ("pool_size", c_uint32),
    ]


OUTPUT_FN = CFUNCTYPE(None, c_void_p, c_int, c_void_p, c_size_t)
AUDIT_FN = CFUNCTYPE(None, c_void_p, c_void_p, c_size_t)


class Options(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("memory_limit", c_uint64),
        ("max_output", c_uint64),
        ("on_output", OUTPUT_FN),
        ("on_output_ud", c_void_p),
        ("timeout_ms", c_uint64),
        ("fuel", c_uint64),
        ("max_stack", c_uint32),
        ("fs_max_bytes", c_uint64),
        ("fs_max_entries", c_uint64),
        ("fs_max_file", c_uint64),
        ("tool_concurrency", c_uint32),
        ("tool_timeout_ms", c_uint64),
        ("tool_max_args", c_uint64),
        ("tool_max_result", c_uint64),
        ("audit_flags", c_uint32),
        ("on_audit", AUDIT_FN),
        ("on_audit_ud", c_void_p),
        ("tool_max_pending", c_uint64),
        ("tool_max_denials", c_uint32),
        ("audit_max_bytes", c_uint64),
    ]


class Stats(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("wall_ms", c_double),
        ("memory_bytes", c_uint64),
        ("stdout_bytes", c_uint64),
        ("stderr_bytes", c_uint64),
        ("output_dropped", c_uint64),
        ("fuel_used", c_uint64),
        ("tool_calls", c_uint64),
    ]


class ToolCall(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("id", c_uint64),
        ("name", c_char_p),
        ("args", c_void_p),
        ("args_len", c_size_t),
    ]


TOOL_FN = CFUNCTYPE(None, c_void_p, POINTER(ToolCall), c_void_p)


class ToolDef(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("name", c_char_p),
        ("description", c_char_p),
        ("parameters", c_char_p),
        ("fn", TOOL_FN),
        ("ud", c_void_p),
        ("flags", c_uint32),
        ("timeout_ms", c_uint64),
        ("returns", c_char_p),
    ]


class RestoreOptions(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("tools", c_void_p),  # const capsa_tool_def *const *
        ("n_tools", c_size_t),
        ("on_output", OUTPUT_FN),
        ("on_output_ud", c_void_p),
        ("on_audit", AUDIT_FN),
        ("on_audit_ud", c_void_p),
        ("max_bytes", c_uint64),
        ("audit_flags", c_uint32),
    ]


class FileInfo(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("type", c_int),
        ("size", c_uint64),
        ("mtime_ns", c_uint64),
        ("guest_writable", c_int),
    ]


DIR_FN = CFUNCTYPE(c_int, c_void_p, c_char_p, POINTER(FileInfo))

# ---- loading ---------------------------------------------------------------------------

LIBRARY_ENV = "CAPSA_LIBRARY"
_HERE = Path(__file__).resolve().parent
_PACKAGE_LIBRARY = _HERE / "libcapsa.so"
# When the package is python/capsa of a checkout: the library its build made.
_CHECKOUT_LIBRARY = _HERE.parent.parent / "build" / "libcapsa.so"
_CHECKOUT_HEADER = _HERE.parent.parent / "include" / "capsa.h"


class LibraryNotFoundError(ImportError):
    """libcapsa.so could not be loaded; the message lists every place tried."""


def _installed_soname() -> str:
    """The SONAME of the installed library this package's version can use."""
    from ._version import __version__

    major = __version__.split(".")[0].split("+")[0]
    return f"libcapsa.so.{major}"


def _candidates() -> list[tuple[str, str | Path]]:
    """Where to look, in order: (origin, path), or (origin, SONAME) for the dynamic
    linker's own search (LD_LIBRARY_PATH, then its cache: what make install and the
    Debian package put in place)."""
    env = os.environ.get(LIBRARY_ENV)
    if env:
        # An explicit choice is the only one: never fall back silently to another build.
        return [(f"${LIBRARY_ENV}", Path(env))]
    out: list[tuple[str, str | Path]] = [("the package", _PACKAGE_LIBRARY)]
    if _CHECKOUT_HEADER.is_file():
        out.append(("the checkout's build", _CHECKOUT_LIBRARY))
    out.append(("installed", _installed_soname()))
    return out


def load_library() -> ctypes.CDLL:
    """Loads libcapsa.so: $CAPSA_LIBRARY when set; else the copy inside the package,
    the one built in the checkout the package sits in, or the installed one."""
    tried: list[str] = []
    for origin, where in _candidates():
        if isinstance(where, Path) and not where.is_file():
            tried.append(f"{where} ({origin}): no such file")
            continue
        try:
            handle = ctypes.CDLL(str(where))
        except OSError as exc:
            tried.append(f"{where} ({origin}): {exc}")
            continue
        try:
            _declare(handle)
        except AttributeError as exc:
            # An older library (same major version) that lacks a function this
            # package calls.
            version = handle.capsa_version().decode() if hasattr(handle, "capsa_version") else "?"
            tried.append(f"{where} ({origin}): version {version} lacks {exc}")
            continue
        return handle
    hint = (
        "build it (make) and copy it into the package with `make python` (or `make BUILD=dir "
        "python`), install it with `make install` (a prefix outside the linker's search path "
        "also needs LD_LIBRARY_PATH=PREFIX/lib), "
        f"or set {LIBRARY_ENV} to the path of a built libcapsa.so"
    )
    raise LibraryNotFoundError("capsa: cannot load libcapsa.so; tried " + "; ".join(tried) + ". " + hint[0].upper() + hint[1:])


def _proto(handle: ctypes.CDLL, name: str, restype: Any, *argtypes: Any) -> None:
    fn = getattr(handle, name)
    fn.restype = restype
    fn.argtypes = list(argtypes)


def _declare(h: ctypes.CDLL) -> None:
    """Gives every function of capsa.h its prototype (ctypes must not guess)."""
    sb = c_void_p
    _proto(h, "capsa_version_number", c_int)
    _proto(h, "capsa_version", c_char_p)
    _proto(h, "capsa_errstr", c_char_p, c_int)
    _proto(h, "capsa_errname", c_char_p, c_int)
    _proto(h, "capsa_engine_options_init", None, POINTER(EngineOptions))
    _proto(h, "capsa_engine_new", c_int, POINTER(EngineOptions), POINTER(c_void_p))
    _proto(h, "capsa_engine_free", None, c_void_p)
    _proto(h, "capsa_options_init", None, POINTER(Options))
    _proto(h, "capsa_sandbox_new", c_int, c_void_p, POINTER(Options), POINTER(c_void_p))
    _proto(h, "capsa_sandbox_free", None, sb)
    _proto(h, "capsa_errmsg", c_char_p, sb)
    _proto(h, "capsa_audit_take", c_int, sb, POINTER(c_void_p), POINTER(c_size_t))
    _proto(h, "capsa_run", c_int, sb, c_char_p, c_size_t, c_char_p, POINTER(c_void_p))
    _proto(h, "capsa_reset", c_int, sb)
    _proto(h, "capsa_interrupt", c_int, sb)
    _proto(h, "capsa_result_status", c_int, c_void_p)
    _proto(h, "capsa_result_stdout", c_void_p, c_void_p, POINTER(c_size_t))
    _proto(h, "capsa_result_stderr", c_void_p, c_void_p, POINTER(c_size_t))
    _proto(h, "capsa_result_value", c_char_p, c_void_p)
    _proto(h, "capsa_result_error_name", c_char_p, c_void_p)
    _proto(h, "capsa_result_error_message", c_char_p, c_void_p)
    _proto(h, "capsa_result_error_stack", c_char_p, c_void_p)
    _proto(h, "capsa_result_error_code", c_char_p, c_void_p)
    _proto(h, "capsa_result_stats", None, c_void_p, POINTER(Stats))
    _proto(h, "capsa_result_json", c_void_p, c_void_p)
    _proto(h, "capsa_tool_reply_json", c_int, c_void_p, c_char_p, c_size_t)
    _proto(h, "capsa_tool_reply_error", c_int, c_void_p, c_char_p, c_char_p)
    _proto(h, "capsa_tool_reply_cancelled", c_int, c_void_p)
    _proto(h, "capsa_tool_def_init", None, POINTER(ToolDef))
    _proto(h, "capsa_tool_add", c_int, sb, POINTER(ToolDef))
    _proto(h, "capsa_policy_set", c_int, sb, c_char_p, c_size_t)
    _proto(h, "capsa_policy_add", c_int, sb, c_char_p, c_char_p, c_uint64)
    _proto(h, "capsa_policy_calls", c_int, sb, c_char_p, POINTER(c_uint64), POINTER(c_uint64))
    _proto(h, "capsa_policy_counts_json", c_void_p, sb)
    _proto(h, "capsa_policy_reset_counts", c_int, sb)
    _proto(h, "capsa_policy_check", c_int, sb, c_char_p, c_char_p, c_size_t, POINTER(c_int),
           c_char_p, c_size_t)
    _proto(h, "capsa_pending_count", c_size_t, sb)
    _proto(h, "capsa_pending_call", c_int, sb, c_size_t, POINTER(ToolCall))
    _proto(h, "capsa_pending_timer_ms", c_double, sb)
    _proto(h, "capsa_call_resolve", c_int, sb, c_uint64, c_char_p, c_size_t)
    _proto(h, "capsa_call_reject", c_int, sb, c_uint64, c_char_p, c_char_p)
    _proto(h, "capsa_resume", c_int, sb, POINTER(c_void_p))
    _proto(h, "capsa_fs_write", c_int, sb, c_char_p, c_char_p, c_size_t)
    _proto(h, "capsa_fs_read", c_int, sb, c_char_p, POINTER(c_void_p), POINTER(c_size_t))
    _proto(h, "capsa_fs_mkdir", c_int, sb, c_char_p)
    _proto(h, "capsa_fs_list", c_int, sb, c_char_p, DIR_FN, c_void_p)
    _proto(h, "capsa_fs_stat", c_int, sb, c_char_p, POINTER(FileInfo))
    _proto(h, "capsa_fs_remove", c_int, sb, c_char_p, c_int)
    _proto(h, "capsa_fs_mount", c_int, sb, c_char_p, c_char_p, c_int)
    _proto(h, "capsa_fs_copy_out", c_int, sb, c_char_p, c_char_p)
    _proto(h, "capsa_fs_export_tar", c_int, sb, c_char_p, POINTER(c_void_p), POINTER(c_size_t))
    _proto(h, "capsa_fs_import_tar", c_int, sb, c_char_p, c_char_p, c_size_t)
    _proto(h, "capsa_free", None, c_void_p)
    _proto(h, "capsa_set_stdin", c_int, sb, c_char_p, c_size_t)
    _proto(h, "capsa_sandbox_options", c_int, sb, POINTER(Options))
    _proto(h, "capsa_policy_json", c_void_p, sb)
    _proto(h, "capsa_checkpoint", c_int, sb, POINTER(c_void_p), POINTER(c_size_t))
    _proto(h, "capsa_restore_options_init", None, POINTER(RestoreOptions))
    _proto(h, "capsa_sandbox_restore", c_int, c_void_p, c_char_p, c_size_t,
           POINTER(RestoreOptions), POINTER(c_void_p), c_char_p, c_size_t)
    # The shell: declared when the library has it, so that a libcapsa.so from before
    # the shell still loads (Sandbox.shell then raises ShellNotAvailable).
    try:
        _proto(h, "capsa_shell", c_int, sb, c_char_p, c_char_p, c_size_t, POINTER(c_void_p))
        _proto(h, "capsa_result_exit_code", c_int, c_void_p)
        _proto(h, "capsa_result_shell_exited", c_int, c_void_p)
    except AttributeError:
        pass


# ---- libcapsa-net (include/capsa_net.h): upstream MCP servers --------------------------

NET_LIBRARY_ENV = "CAPSA_NET_LIBRARY"

MCP_LOG_FN = CFUNCTYPE(None, c_void_p, c_char_p, c_int, c_void_p, c_size_t)


class MCPOptions(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("start_timeout_ms", c_uint64),
        ("call_timeout_ms", c_uint64),
        ("max_message", c_uint64),
        ("on_log", MCP_LOG_FN),
        ("on_log_ud", c_void_p),
    ]


def _declare_net(h: ctypes.CDLL) -> None:
    c = c_void_p
    _proto(h, "capsa_mcp_options_init", None, POINTER(MCPOptions))
    _proto(h, "capsa_mcp_client_new", c_int, POINTER(MCPOptions), POINTER(c_void_p))
    _proto(h, "capsa_mcp_client_configure", c_int, c, c_char_p, c_size_t)
    _proto(h, "capsa_mcp_client_start", c_int, c)
    _proto(h, "capsa_mcp_client_attach", c_int, c, c_void_p, POINTER(c_uint64))
    _proto(h, "capsa_mcp_client_defs", c_size_t, c, c_void_p, c_size_t, POINTER(c_uint64))
    _proto(h, "capsa_mcp_client_status_json", c_void_p, c)
    _proto(h, "capsa_mcp_client_errmsg", c_char_p, c)
    _proto(h, "capsa_mcp_client_free", None, c)


_net: ctypes.CDLL | None = None


def net_lib() -> ctypes.CDLL:
    """libcapsa-net.so, for mcp_servers: $CAPSA_NET_LIBRARY when set, else the one
    beside the libcapsa.so loaded (which it is linked against, by its soname)."""
    global _net
    if _net is not None:
        return _net
    with _lib_lock:
        if _net is None:
            env = os.environ.get(NET_LIBRARY_ENV)
            core = os.environ.get(LIBRARY_ENV)
            path = Path(env) if env else (Path(core).parent if core else _PACKAGE_LIBRARY.parent) / "libcapsa-net.so"
            lib()  # libcapsa.so first: libcapsa-net.so's link to it finds this one
            if not path.is_file():
                raise LibraryNotFoundError(
                    f"capsa: mcp_servers needs libcapsa-net.so; there is none at {path}. Build it and "
                    f"copy it into the package with `make python`, or set {NET_LIBRARY_ENV}")
            try:
                handle = ctypes.CDLL(str(path))
            except OSError as exc:
                raise LibraryNotFoundError(f"capsa: cannot load {path}: {exc}") from exc
            _declare_net(handle)
            _net = handle
    return _net


def has_shell(handle: ctypes.CDLL | None = None) -> bool:
    """Whether the library has the shell (capsa_shell and its result accessors)."""
    h = handle if handle is not None else lib()
    return all(hasattr(h, n) for n in ("capsa_shell", "capsa_result_exit_code",
                                       "capsa_result_shell_exited"))


_lib: ctypes.CDLL | None = None
_lib_lock = threading.Lock()
_lib_shell: bool | None = None


def lib_has_shell() -> bool:
    """has_shell() of the loaded library, asked once."""
    global _lib_shell
    if _lib_shell is None:
        _lib_shell = has_shell(lib())
    return _lib_shell


def lib() -> ctypes.CDLL:
    """The loaded library (loaded on first use, so `import capsa` never fails on it)."""
    global _lib
    if _lib is None:
        with _lib_lock:
            if _lib is None:
                _lib = load_library()
    return _lib


_options_init: Options | None = None


def new_options() -> Options:
    """Options as capsa_options_init makes them (a copy of one made once)."""
    global _options_init
    if _options_init is None:
        o = Options()
        lib().capsa_options_init(ctypes.byref(o))
        _options_init = o
    return Options.from_buffer_copy(_options_init)


def take_string(ptr: int | None, length: int | None = None) -> bytes | None:
    """Copies a library-allocated buffer into bytes and frees it with capsa_free."""
    if not ptr:
        return None
    try:
        return ctypes.string_at(ptr, length) if length is not None else ctypes.string_at(ptr)
    finally:
        lib().capsa_free(ptr)


# ---- callback registry -----------------------------------------------------------------


class Registry:
    """Maps integer keys (passed to C as ``ud``) to Python objects.

    Keys are never reused, so a late callback for a freed sandbox finds nothing
    instead of another sandbox's object. Lookups are plain dict reads, safe under the GIL.
    """

    def __init__(self) -> None:
        self._items: dict[int, Any] = {}
        self._next = itertools.count(1)

    def add(self, item: Any) -> int:
        key = next(self._next)
        self._items[key] = item
        return key

    def get(self, key: int | None) -> Any:
        return self._items.get(key or 0)

    def remove(self, key: int) -> None:
        self._items.pop(key, None)

    def __len__(self) -> int:
        return len(self._items)


tools_registry = Registry()
sandbox_registry = Registry()
dir_registry = Registry()


def _reply_error(reply: int, code: str, message: str) -> None:
    lib().capsa_tool_reply_error(reply, code.encode(), message.encode("utf-8", "replace"))


def _tool_trampoline(ud: int | None, call_p: Any, reply: int) -> None:
    # Runs on a worker thread of the library; ctypes holds the GIL for us. Nothing
    # may escape into C: every failure becomes a reply.
    try:
        entry = tools_registry.get(ud)
        if entry is None:
            _reply_error(reply, "tool_error", "the tool's sandbox was closed")
            return
        call = call_p.contents
        name = call.name.decode("utf-8", "replace") if call.name else ""
        args = ctypes.string_at(call.args, call.args_len) if call.args else b"{}"
        cancelled: Callable[[], bool] = lambda: bool(lib().capsa_tool_reply_cancelled(reply))
        ok, payload = entry.invoke_sync(name, args, cancelled)
        if ok:
            rc = lib().capsa_tool_reply_json(reply, payload, len(payload))
            if rc != OK:
                _reply_error(reply, "invalid_result", "the tool's result was refused by the host")
        else:
            code, message = payload
            _reply_error(reply, code, message)
    except BaseException as exc:  # noqa: BLE001 - nothing may cross into C
        try:
            _reply_error(reply, "tool_error", f"internal error in the Python binding: {exc!r}")
        except BaseException:  # noqa: BLE001
            pass


def _sandbox(ud: int | None) -> Any:
    ref = sandbox_registry.get(ud)  # a weakref: the registry never keeps a sandbox alive
    return ref() if ref is not None else None


def _output_trampoline(ud: int | None, stream: int, data: int | None, length: int) -> None:
    try:
        sb = _sandbox(ud)
        if sb is not None and data:
            sb._on_output_bytes(stream, ctypes.string_at(data, length))
    except BaseException:  # noqa: BLE001 - nothing may cross into C
        pass


def _audit_trampoline(ud: int | None, line: int | None, length: int) -> None:
    try:
        sb = _sandbox(ud)
        if sb is not None and line:
            sb._on_audit_line(ctypes.string_at(line, length))
    except BaseException:  # noqa: BLE001 - nothing may cross into C
        pass


def _dir_trampoline(ud: int | None, name: bytes | None, info_p: Any) -> int:
    try:
        sink = dir_registry.get(ud)
        if sink is None:
            return 1
        info = info_p.contents
        sink(name or b"", info.type, info.size, info.mtime_ns, info.guest_writable)
        return 0
    except BaseException:  # noqa: BLE001 - nothing may cross into C; stop the listing
        return 1


mcp_registry = Registry()


def _mcp_log_trampoline(ud: int | None, server: bytes | None, kind: int, text: int | None,
                        length: int) -> None:
    try:
        sink = mcp_registry.get(ud)
        if sink is not None and text:
            sink((server or b"").decode("utf-8", "replace"), kind,
                 ctypes.string_at(text, length).decode("utf-8", "replace"))
    except BaseException:  # noqa: BLE001 - nothing may cross into C
        pass


# Created once and kept for the life of the process: C holds these pointers.
TOOL_CALLBACK = TOOL_FN(_tool_trampoline)
OUTPUT_CALLBACK = OUTPUT_FN(_output_trampoline)
AUDIT_CALLBACK = AUDIT_FN(_audit_trampoline)
DIR_CALLBACK = DIR_FN(_dir_trampoline)
MCP_LOG_CALLBACK = MCP_LOG_FN(_mcp_log_trampoline)
