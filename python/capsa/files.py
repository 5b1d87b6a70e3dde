"""A sandbox's filesystem, seen from the host (``sandbox.files``).

Paths are guest paths: absolute ("/workspace/a.txt"), or relative to /workspace. The
host is not bound by the guest's permissions (it may write /log or /tools), only by the
quotas. Failures raise ``FilesError`` subclasses that are also the matching builtin
OSErrors (``FileNotFoundError``, ``FileExistsError``, ``IsADirectoryError``...), with the
library's message ("which path and why").
"""

from __future__ import annotations

import ctypes
import json
import posixpath
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, ContextManager, Literal, Optional, Protocol

from . import _json, _lib
from .errors import files_error

__all__ = ["Files", "FileInfo"]


class _Owner(Protocol):
    """What ``Files`` needs of the sandbox it belongs to (``Sandbox`` is one): the
    library's handle, the guard around each call, and the last error's message. So
    this module does not need sandbox.py, which builds on it."""

    _handle: Optional[int]

    def _use(self) -> ContextManager[Any]: ...

    def _errmsg(self) -> str: ...

_TYPES = {_lib.FILE: "file", _lib.DIRECTORY: "directory", _lib.SYMLINK: "symlink"}


@dataclass(frozen=True)
class FileInfo:
    """A node of the sandbox's filesystem. ``size``: bytes of a file, a symlink's target
    length, a directory's entries; ``mtime``: seconds since the epoch; ``guest_writable``:
    whether the guest may change it."""

    path: str
    type: Literal["file", "directory", "symlink"]
    size: int
    mtime: float
    guest_writable: bool

    @property
    def name(self) -> str:
        return posixpath.basename(self.path) or "/"

    @property
    def is_file(self) -> bool:
        return self.type == "file"

    @property
    def is_dir(self) -> bool:
        return self.type == "directory"


def _guest_path(path: str | PurePosixPath) -> str:
    if isinstance(path, PurePosixPath):
        path = str(path)
    if not isinstance(path, str):
        raise TypeError(f"a guest path must be a str, not {type(path).__name__}")
    if not path:
        raise ValueError("an empty path")
    return path if path.startswith("/") else "/workspace/" + path


def _host_path(path: str | Path) -> bytes:
    if not isinstance(path, (str, Path)):
        raise TypeError(f"a host path must be a str or Path, not {type(path).__name__}")
    return str(Path(path).resolve()).encode()


class Files:
    """The files API of one sandbox."""

    def __init__(self, sandbox: _Owner) -> None:
        self._sb = sandbox

    def _check(self, rc: int, path: str) -> None:
        if rc != _lib.OK:
            raise files_error(rc, self._sb._errmsg() or _lib.lib().capsa_errstr(rc).decode(), path)

    def write(self, path: str, data: bytes | str, encoding: str = "utf-8") -> None:
        """Writes a file (creating its parent directories, replacing its contents)."""
        p = _guest_path(path)
        if isinstance(data, str):
            data = data.encode(encoding)
        elif isinstance(data, (bytearray, memoryview)):
            data = bytes(data)
        elif not isinstance(data, bytes):
            raise TypeError(f"data must be bytes or str, not {type(data).__name__}")
        with self._sb._use():
            self._check(_lib.lib().capsa_fs_write(self._sb._handle, p.encode(), data, len(data)), p)

    def read(self, path: str) -> bytes:
        """The contents of a file (symlinks followed)."""
        p = _guest_path(path)
        buf = ctypes.c_void_p()
        n = ctypes.c_size_t()
        with self._sb._use():
            self._check(_lib.lib().capsa_fs_read(self._sb._handle, p.encode(), ctypes.byref(buf),
                                                 ctypes.byref(n)), p)
        return _lib.take_string(buf.value, n.value) or b""

    def read_text(self, path: str, encoding: str = "utf-8") -> str:
        return self.read(path).decode(encoding)

    def write_text(self, path: str, text: str, encoding: str = "utf-8") -> None:
        self.write(path, text.encode(encoding))

    def read_json(self, path: str) -> Any:
        """The file's JSON value; nested too deeply for Python's parser, decoded as
        run values are (``capsa.JSONTooDeep`` below ``capsa.JSON_MAX_DEPTH`` levels)."""
        return _json.loads(self.read(path))

    def write_json(self, path: str, value: Any) -> None:
        self.write(path, json.dumps(value, allow_nan=False))

    def mkdir(self, path: str) -> None:
        """Creates a directory and its parents; an existing directory is fine."""
        p = _guest_path(path)
        with self._sb._use():
            self._check(_lib.lib().capsa_fs_mkdir(self._sb._handle, p.encode()), p)

    def list(self, path: str = "/workspace") -> list[FileInfo]:
        """The entries of a directory, in name order."""
        p = _guest_path(path)
        out: list[FileInfo] = []

        def sink(name: bytes, typ: int, size: int, mtime_ns: int, writable: int) -> None:
            n = name.decode("utf-8", "replace")
            out.append(FileInfo(posixpath.join(p, n), _TYPES.get(typ, "file"),  # type: ignore[arg-type]
                                size, mtime_ns / 1e9, bool(writable)))

        key = _lib.dir_registry.add(sink)
        try:
            with self._sb._use():
                rc = _lib.lib().capsa_fs_list(self._sb._handle, p.encode(), _lib.DIR_CALLBACK, key)
            self._check(rc, p)
        finally:
            _lib.dir_registry.remove(key)
        return out

    def listdir(self, path: str = "/workspace") -> list[str]:
        """The names in a directory."""
        return [f.name for f in self.list(path)]

    def stat(self, path: str) -> FileInfo:
        """Describes a node (a final symlink is not followed)."""
        p = _guest_path(path)
        info = _lib.FileInfo()
        info.struct_size = ctypes.sizeof(info)
        with self._sb._use():
            self._check(_lib.lib().capsa_fs_stat(self._sb._handle, p.encode(), ctypes.byref(info)), p)
        return FileInfo(p, _TYPES.get(info.type, "file"), info.size,  # type: ignore[arg-type]
                        info.mtime_ns / 1e9, bool(info.guest_writable))

    def exists(self, path: str) -> bool:
        try:
            self.stat(path)
            return True
        except FileNotFoundError:
            return False

    def remove(self, path: str, recursive: bool = False) -> None:
        """Removes a file, a symlink or an empty directory (any directory if recursive)."""
        p = _guest_path(path)
        with self._sb._use():
            self._check(_lib.lib().capsa_fs_remove(self._sb._handle, p.encode(), int(bool(recursive))), p)

    def mount(self, host_dir: str | Path, guest_path: str, *, writable: bool = False) -> None:
        """Copies the host directory in at guest_path now. ``writable``: the guest may
        change it and its changes are written back to the host directory after every run."""
        p = _guest_path(guest_path)
        mode = _lib.MOUNT_RW if writable else _lib.MOUNT_RO
        with self._sb._use():
            self._check(_lib.lib().capsa_fs_mount(self._sb._handle, _host_path(host_dir), p.encode(),
                                                  mode), p)

    def copy_out(self, guest_path: str, host_dir: str | Path) -> None:
        """Copies the tree at guest_path into a host directory (never following symlinks)."""
        p = _guest_path(guest_path)
        with self._sb._use():
            self._check(_lib.lib().capsa_fs_copy_out(self._sb._handle, p.encode(),
                                                     _host_path(host_dir)), p)

    def export_tar(self, path: str = "/workspace") -> bytes:
        """The tree at path as a POSIX tar stream (names relative to it)."""
        p = _guest_path(path)
        buf = ctypes.c_void_p()
        n = ctypes.c_size_t()
        with self._sb._use():
            self._check(_lib.lib().capsa_fs_export_tar(self._sb._handle, p.encode(),
                                                       ctypes.byref(buf), ctypes.byref(n)), p)
        return _lib.take_string(buf.value, n.value) or b""

    def import_tar(self, path: str, data: bytes) -> None:
        """Extracts a tar stream under path; a bad or escaping archive is refused whole."""
        p = _guest_path(path)
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError(f"data must be bytes, not {type(data).__name__}")
        data = bytes(data)
        with self._sb._use():
            self._check(_lib.lib().capsa_fs_import_tar(self._sb._handle, p.encode(), data, len(data)), p)
