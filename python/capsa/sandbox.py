"""The Sandbox: one guest instance with its JS state, shell state, files, tools and
capabilities.

It speaks two dialects:

- the native one: ``run(code) -> RunResult`` / ``await run_async(code)`` for
  JavaScript, ``run_shell(command, stdin) -> RunResult`` / ``await
  run_shell_async(...)`` for the shell (``RunResult.exit_code`` is its exit status),
  ``files``, ``reset()``, ``close()``; limits raise ``LimitExceeded`` subclasses, a
  script that throws gives a result whose ``error`` is set;
- amla-sandbox's: ``execute(code, on_output=None, stdin=None) -> str`` (stdout, then
  the returned value; a script error goes to ``last_stderr``, as amla's; the
  ``capsa.amla_sandbox`` package's Sandbox also gives each execute a scope of its own),
  ``execute_async``, ``shell(command,
  stdin=None) -> str`` (stdout; stderr in ``last_stderr``, the status in
  ``last_exit_code``), ``can_call``, ``get_capabilities``, ``get_remaining_calls``,
  ``get_call_counts``, ``get_audit_entries``.

The shell is the library's (``capsa_shell``): a POSIX sh that runs inside the guest,
confined as scripts are, with applets (cat, grep, sed, awk, jq, ...; ``help`` lists
them), ``js -e CODE`` for JavaScript in the scripts' context and ``tool NAME --param
value`` for the registered tools, under the same capabilities as calls from JS. Its
variables, functions and working directory (/workspace at first) persist between
command lines, until a limit or ``reset()`` starts the guest afresh.

Tool calls: tools whose handler is synchronous are registered with a C callback and
run on the library's worker threads (``Limits.tool_concurrency`` at once), in both
``run`` and ``run_async``. Tools whose handler is ``async def`` are registered without
one: the library leaves their calls to us (step mode), and ``run_async`` runs them as
tasks on the running event loop, concurrently, settles them and resumes the script
(``run`` does the same on a private event loop). The blocking library calls of
``run_async`` run in the loop's default executor, so the loop is never blocked.

The shell's ``tool`` command (and ``js -e`` code run by the shell) reaches the tools
the library runs itself, the synchronous ones; it cannot wait for ``async def`` tools
(nor an ``async`` ``tool_handler``), which step mode leaves to Python: such a call
fails in the shell with a message on stderr and a non-zero status, and the binding
rejects it without running the handler. JavaScript (``run``) calls them as usual.

Strict where amla is not: a sandbox grants nothing unless ``capabilities`` say so.
"""

from __future__ import annotations

# asyncio (and concurrent.futures) are imported by the async functions that use
# them: they cost a process about 20 ms to import, and most callers are synchronous.
import codecs
import ctypes
import json
import threading
import time
import warnings
import weakref
from dataclasses import dataclass, field, fields
from datetime import datetime
from pathlib import Path
from typing import Any, Awaitable, Callable, Iterator, Sequence

from . import _lib
from . import _json
from .audit import AuditCollector, AuditConfig, AuditEntry
from .capabilities import (
    ToolCallCap,
    _policy_check,
    as_capability,
    pattern_of_key,
    policy_json,
    strip_mcp,
)
from .engine import Engine, default_engine
from .errors import (
    CapsaError,
    CheckpointError,
    PolicyError,
    ScriptError,
    ShellNotAvailable,
    ToolCallbackError,
    ToolDefinitionError,
    error_for,
)
from .files import Files
from .mcp import MCPClient
from .tools import BoundTool, ToolDefinition, bind_tools, canonical_name, in_tool_of

__all__ = ["Sandbox", "RunResult", "Stats", "JSError", "Limits", "Mount"]

_NO_SHELL = ("the loaded libcapsa.so has no shell (capsa_shell): it is older than this "
             "package; load a current build (make python, or set CAPSA_LIBRARY)")
_SHELL_ASYNC_TOOL = ("the shell cannot wait for async tools (step mode): call this tool "
                     "from JavaScript (run/execute) instead")

OutputCallback = Callable[[str, str], None]
"""Native output callback: ``on_output(stream, text)`` with stream "stdout" or "stderr"."""


@dataclass
class Limits:
    """Limits and sizes of a sandbox; None keeps the library's default.

    timeout_ms: wall-clock limit of one run (30000; 0: none). fuel: instruction budget
    of one run (none). memory_bytes: guest memory (256 MiB). max_output: bytes of stdout
    and of stderr kept per run (16 MiB). max_stack: JS stack bytes. fs_max_bytes /
    fs_max_entries / fs_max_file: filesystem quotas. tool_concurrency: tool callbacks
    at once (8). tool_timeout_ms: a call's limit (30000). tool_max_args /
    tool_max_result: bytes of a call's JSON arguments / result. tool_max_pending: bytes
    the host may hold for a run's calls and the results the script has not taken (the
    memory limit, at least 64 MiB). tool_max_denials: refused calls a run may have before
    every further one fails at once (1000). audit_max_bytes: bytes of audit lines the
    sandbox may hand to Python over its life, past which calls are refused
    (audit_unavailable; none).
    """

    timeout_ms: int | None = None
    fuel: int | None = None
    memory_bytes: int | None = None
    max_output: int | None = None
    max_stack: int | None = None
    fs_max_bytes: int | None = None
    fs_max_entries: int | None = None
    fs_max_file: int | None = None
    tool_concurrency: int | None = None
    tool_timeout_ms: int | None = None
    tool_max_args: int | None = None
    tool_max_result: int | None = None
    tool_max_pending: int | None = None
    tool_max_denials: int | None = None
    audit_max_bytes: int | None = None

    @classmethod
    def coerce(cls, value: "Limits | dict[str, Any] | None") -> "Limits":
        if value is None:
            return cls()
        if isinstance(value, Limits):
            return value
        if isinstance(value, dict):
            known = {f.name for f in fields(cls)}
            unknown = set(value) - known
            if unknown:
                raise TypeError(f"unknown limits {sorted(unknown)}; known: {sorted(known)}")
            return cls(**value)
        raise TypeError(f"limits must be a capsa.Limits or a dict, not {type(value).__name__}")

    @classmethod
    def from_options(cls, opts: _lib.Options) -> "Limits":
        """The limits a sandbox has (its options, defaults filled in)."""
        names = {"memory_bytes": "memory_limit"}
        return cls(**{f.name: getattr(opts, names.get(f.name, f.name)) for f in fields(cls)})

    def apply(self, opts: _lib.Options) -> None:
        # The limits given (most sandboxes give none): the fields are the instance's
        # attributes, in declaration order.
        given = [(name, v) for name, v in vars(self).items() if v is not None]
        for name, v in given:
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise TypeError(f"limit {name} must be an int >= 0, not {v!r}")
            setattr(opts, "memory_limit" if name == "memory_bytes" else name, v)


@dataclass
class Mount:
    """A host directory copied into the sandbox at ``guest_path`` when it is made.
    ``writable``: the guest may change it, and what it changed (files written,
    made or removed) is written back to the host directory after every run; a
    guest symlink is never followed on the host (explicit, never a default)."""

    host_dir: str | Path
    guest_path: str
    writable: bool = False


@dataclass
class Stats:
    """Statistics of a run."""

    wall_ms: float = 0.0
    memory_bytes: int = 0
    stdout_bytes: int = 0
    stderr_bytes: int = 0
    output_dropped: int = 0
    fuel_used: int = 0
    tool_calls: int = 0


@dataclass
class JSError:
    """The error a script threw: its name ("TypeError"), message, stack, and its
    string ``code`` when it has one ("ENOENT" from fs, "permission_denied" from a
    tool call)."""

    name: str
    message: str
    stack: str | None = None
    code: str | None = None

    def __str__(self) -> str:
        text = f"{self.name}: {self.message}" if self.message else self.name
        return f"{text}\n{self.stack.rstrip()}" if self.stack else text


@dataclass
class RunResult:
    """The outcome of a run: output, the returned value (as Python objects, via JSON),
    the error the script threw (None if it did not), statistics, and the tool
    callbacks that failed in Python (``tool_errors``).

    For a shell command line (``run_shell``): ``exit_code`` is its exit status (0-255;
    ``value`` is the same number) and ``shell_exited`` tells whether it ran ``exit``.
    ``exit_code`` is None for a JavaScript run. ``ok`` says the command line ran, not
    that it succeeded: look at ``exit_code`` for that."""

    status: int
    stdout: str = ""
    stderr: str = ""
    value: Any = None
    value_json: str | None = None
    error: JSError | None = None
    stats: Stats = field(default_factory=Stats)
    tool_errors: list[ToolCallbackError] = field(default_factory=list)
    exit_code: int | None = None
    shell_exited: bool = False

    @property
    def ok(self) -> bool:
        """True when the script completed without throwing (for a shell command line:
        when it ran, whatever its exit status)."""
        return self.status == _lib.OK

    def raise_for_error(self) -> "RunResult":
        """Raises ScriptError if the script threw; returns self otherwise."""
        if self.error is not None:
            raise ScriptError(self.error.name, self.error.message, self.error.stack, result=self)
        return self


class _RunState:
    """What the callbacks of one sandbox write to (no reference to the Sandbox, so
    callbacks never keep it alive)."""

    def __init__(self) -> None:
        self.tool_errors: list[ToolCallbackError] = []
        self.on_output: OutputCallback | None = None
        # A run's UTF-8 decoder of each stream, made at its first output (a run that
        # prints nothing needs none): emptied when a run begins.
        self.decoders: dict[int, Any] = {}

    def decoder(self, stream: int) -> Any:
        d = self.decoders.get(stream)
        if d is None:
            d = self.decoders[stream] = codecs.getincrementaldecoder("utf-8")("replace")
        return d

    def record(self, err: ToolCallbackError) -> None:
        self.tool_errors.append(err)


def _unpickle(data: bytes, tools: Any, tool_handler: Any, audit_config: Any,
              mounts: Any, mcp_servers: Any = None) -> "Sandbox":
    return Sandbox.restore(data, tools, tool_handler, audit_config, mounts=mounts,
                           mcp_servers=mcp_servers)


def _release(handle: int, keys: list[int], sandbox_key: int, engine: Engine,
             mcp: list[MCPClient]) -> None:
    """Frees a sandbox (waiting for its running tool callbacks), then its upstream MCP
    servers (their tools' callbacks are gone with it) and its registry keys."""
    try:
        _lib.lib().capsa_sandbox_free(handle)
    finally:
        for client in mcp:
            client.close()
        for k in keys:
            _lib.tools_registry.remove(k)
        _lib.sandbox_registry.remove(sandbox_key)
        engine._release()


class Sandbox:
    """A capability-secured JavaScript sandbox.

    Args:
        tools: callables, ``Tool``/``ToolDefinition`` objects, OpenAI/Anthropic/MCP tool
            dicts or LangChain tools (see ``capsa.tools``).
        capabilities: what scripts may call: ``ToolCallCap``/``MethodCapability``
            objects, pattern strings ("github/*"), policy dicts, or a whole policy
            (``{"capabilities": [...]}`` or its JSON text). None: nothing.
        tool_handler: amla's ``handler(method, params)`` for tools without a handler
            (ToolDefinitions, tool dicts); may be ``async def``.
        audit_config: how to collect the audit entries (``get_audit_entries``): enriched
            with agent_id/trace_id, appended to ``output_path``, capped at its
            max_entries/max_bytes (without it: the defaults, 10,000 entries, 16 MiB).
        limits: a ``Limits`` or a dict of its fields.
        mounts: ``Mount`` objects, ``(host_dir, guest_path[, writable])`` tuples, or a
            ``{guest_path: host_dir}`` dict (read-only).
        on_output: ``on_output(stream, text)`` for output as the script writes it.
        on_audit: ``on_audit(entry_dict)`` for every audit line.
        engine: the Engine to use (the process-wide one by default).
        mcp_servers: upstream MCP servers whose tools scripts may call (as far as the
            capabilities allow): an mcpServers configuration, as a dict (``{"mcpServers":
            {...}}`` or the servers by name), its JSON text or a file's path. Stdio
            servers (``command``, ``args``, ``env``, ``cwd``) and Streamable HTTP ones
            (``url``, ``headers``) start when the sandbox is made and stop when it
            closes; tool T of server S is ``tools.S.T``. Needs libcapsa-net.so.
        mcp_log: ``mcp_log(server, kind, text)`` for the servers' stderr, log messages
            and capsa's reports on them (``capsa.MCPLogKind``); by default reports
            that need a look are RuntimeWarnings.
    """

    def __init__(self, tools: Sequence[Any] | None = None, capabilities: Any = None,
                 tool_handler: Callable[..., Any] | None = None,
                 audit_config: AuditConfig | None = None, *,
                 limits: Limits | dict[str, Any] | None = None,
                 mounts: Any = None, on_output: OutputCallback | None = None,
                 on_audit: Callable[[dict[str, Any]], None] | None = None,
                 engine: Engine | None = None, mcp_servers: Any = None,
                 mcp_log: Callable[[str, int, str], None] | None = None) -> None:
        self._setup(tools, capabilities, tool_handler, audit_config, limits, mounts, on_output,
                    on_audit, engine, None, mcp_servers, mcp_log)

    @classmethod
    def restore(cls, data: bytes | bytearray | memoryview, tools: Sequence[Any] | None = None,
                tool_handler: Callable[..., Any] | None = None,
                audit_config: AuditConfig | None = None, *, mounts: Any = None,
                on_output: OutputCallback | None = None,
                on_audit: Callable[[dict[str, Any]], None] | None = None,
                engine: Engine | None = None, mcp_servers: Any = None,
                mcp_log: Callable[[str, int, str], None] | None = None) -> "Sandbox":
        """A new sandbox from ``checkpoint()``'s bytes, in this process or another one
        running the same build of capsa: its JS state, files, limits, and capabilities
        with the calls each has allowed come from ``data``. ``tools`` give the handlers
        again: each tool of the checkpoint is bound to the one of its name (a tool of
        the checkpoint with no handler here raises ``CheckpointError``); tools that are
        not in the checkpoint are added. ``mounts`` give the checkpoint's mounts their
        host directories again (the kept copy is replaced by the directory's contents).
        ``mcp_servers`` (as for ``Sandbox``) are started again and give the
        checkpoint's ``S.T`` tools their handlers; a tool a server lists now that the
        checkpoint did not have joins before the first run. The audit entries of ``audit_log()`` start empty (the trail is in the sandbox's
        ``/log/actions.jsonl``). A blob that is not a checkpoint, is corrupt, or comes
        from another build raises ``CheckpointError`` (a ValueError) with the library's
        message."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"data must be bytes, not {type(data).__name__}")
        obj = cls.__new__(cls)
        obj._setup(tools, None, tool_handler, audit_config, None, mounts, on_output, on_audit,
                   engine, bytes(data), mcp_servers, mcp_log)
        return obj

    def checkpoint(self) -> bytes:
        """The sandbox as bytes (``Sandbox.restore`` makes a sandbox of them again): its
        JS state, files, limits, capabilities with their used calls and its tools by
        name; not the handlers, callbacks or mounts' host directories. Only between
        runs (``CheckpointError`` during one, or from a tool handler)."""
        buf = ctypes.c_void_p()
        n = ctypes.c_size_t()
        with self._use():
            if self._running:
                raise CheckpointError("a checkpoint is taken between runs, not during one")
            rc = _lib.lib().capsa_checkpoint(self._handle, ctypes.byref(buf), ctypes.byref(n))
            self._take_audit()
            if rc != _lib.OK:
                msg = self._errmsg()
                if rc == _lib.ENOMEM:
                    raise error_for(rc, msg)
                raise CheckpointError(msg, code=rc)
        return _lib.take_string(buf.value, n.value) or b""

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickling: the checkpoint, with the tools, tool_handler, audit_config,
        mounts and mcp_servers given at creation (so they must pickle too; on_output,
        on_audit and mcp_log are not kept). Unpickling restores it, in this process or
        another, mounting the mounts and starting the servers again."""
        return (_unpickle, (self.checkpoint(), self._tools_arg, self.tool_handler,
                            self.audit_config, self._mounts, self._mcp_servers_arg))

    def _setup(self, tools: Sequence[Any] | None, capabilities: Any,
               tool_handler: Callable[..., Any] | None, audit_config: AuditConfig | None,
               limits: Limits | dict[str, Any] | None, mounts: Any,
               on_output: OutputCallback | None,
               on_audit: Callable[[dict[str, Any]], None] | None, engine: Engine | None,
               checkpoint: bytes | None, mcp_servers: Any = None,
               mcp_log: Callable[[str, int, str], None] | None = None) -> None:
        """Makes the sandbox: new (checkpoint None) or restored from checkpoint, whose
        tools are bound by name to the host tools and to the upstream MCP servers'
        (started first)."""
        self._handle: int | None = None
        self._finalizer: Any = None
        self._mcp: MCPClient | None = None
        self._mcp_clients: list[MCPClient] = []
        self._mcp_generation = 0
        if mcp_log is not None and not callable(mcp_log):
            raise TypeError("mcp_log must be callable")
        if audit_config is not None and not isinstance(audit_config, AuditConfig):
            raise TypeError(f"audit_config must be a capsa.AuditConfig, not {type(audit_config).__name__}")
        if on_output is not None and not callable(on_output):
            raise TypeError("on_output must be callable")
        if on_audit is not None and not callable(on_audit):
            raise TypeError("on_audit must be callable")
        if engine is not None and not isinstance(engine, Engine):
            raise TypeError(f"engine must be a capsa.Engine, not {type(engine).__name__}")
        self._limits = Limits.coerce(limits)
        self._tools_arg = list(tools) if tools is not None else None
        self._mcp_servers_arg = mcp_servers
        self._bound: list[BoundTool] = bind_tools(tools, tool_handler)
        self._by_name = {t.name: t for t in self._bound}
        self._caps: list[ToolCallCap] = _capabilities(capabilities)
        self._mounts = _mounts(mounts)
        self.tool_handler = tool_handler
        self.audit_config = audit_config
        self._on_output = on_output
        self._on_audit = on_audit
        self._state = _RunState()
        self._lock = threading.RLock()
        self._running = False
        self._time_limits: tuple[int, int] | None = None  # see _time_limits_ms
        self._stdin_set = False  # the library holds a non-empty stdin of a run
        self._last_stderr = ""
        self._last_exit_code: int | None = None
        self._run_started = 0.0
        self._timer_ms = -1.0
        self._files: Files | None = None
        # The host's own record of the trail: the lines the library hands over, never
        # the guest-readable /log/actions.jsonl.
        self._audit_collector = AuditCollector(audit_config)

        opts = _lib.new_options()
        lib = _lib.lib()
        if limits is not None:
            self._limits.apply(opts)
        self._sandbox_key = _lib.sandbox_registry.add(weakref.ref(self))
        opts.on_output = _lib.OUTPUT_CALLBACK
        opts.on_output_ud = self._sandbox_key
        # The library keeps the lines and they are taken once per step, unless
        # something needs each line as it comes (a callback of the ctypes kind costs
        # a line more than the rest of its collecting); for a restored sandbox the
        # restore's options say which.
        self._audit_keep = on_audit is None and (
            audit_config is None
            or (audit_config.custom_enricher is None and not audit_config.output_path))
        self._audit_take_lock = threading.Lock()
        if self._audit_keep:
            opts.audit_flags |= _lib.AUDIT_KEEP
        else:
            opts.on_audit = _lib.AUDIT_CALLBACK
            opts.on_audit_ud = self._sandbox_key
        if audit_config is not None and audit_config.hash_args:
            opts.audit_flags |= _lib.AUDIT_HASH_ARGS

        self._engine = engine or default_engine()
        self._tool_keys: list[int] = []
        handle = ctypes.c_void_p()
        if checkpoint is None:
            rc = lib.capsa_sandbox_new(self._engine.handle, ctypes.byref(opts), ctypes.byref(handle))
            msg = "" if rc == _lib.OK else f"cannot make a sandbox: {lib.capsa_errstr(rc).decode()}"
        else:
            if mcp_servers is not None:
                try:
                    self._mcp = MCPClient(mcp_servers, on_log=mcp_log)
                except BaseException:
                    _lib.sandbox_registry.remove(self._sandbox_key)
                    raise
                self._mcp_clients.append(self._mcp)
            rc, msg = self._restore_handle(checkpoint, handle)
        if rc != _lib.OK:
            _lib.sandbox_registry.remove(self._sandbox_key)
            for k in self._tool_keys:
                _lib.tools_registry.remove(k)
            for client in self._mcp_clients:
                client.close()
            if checkpoint is not None and rc not in (_lib.ENOMEM, _lib.ETOOMANY):
                raise CheckpointError(msg, code=rc)
            raise error_for(rc, msg)
        self._engine._retain()
        self._handle = handle.value
        self._finalizer = weakref.finalize(self, _release, self._handle, self._tool_keys,
                                           self._sandbox_key, self._engine, self._mcp_clients)
        self._audit_collector.session_id = f"capsa-{self._sandbox_key}"
        try:
            if checkpoint is None:
                for t in self._bound:
                    self._add_tool(t)
                if mcp_servers is not None:
                    self._mcp = MCPClient(mcp_servers, on_log=mcp_log)
                    self._mcp_clients.append(self._mcp)
                    self._mcp_generation = self._mcp.attach(self._handle, 0)
                self._install_policy()
            else:
                self._adopt_checkpoint()
                if self._mcp is not None:
                    self._mcp_generation = self._mcp.attach(self._handle, self._mcp_generation)
                self._take_audit()  # the restore's line, in the turn it came in
            for m in self._mounts:
                self.files.mount(m.host_dir, m.guest_path, writable=m.writable)
        except BaseException:
            self.close()
            raise

    def _restore_handle(self, data: bytes, handle: ctypes.c_void_p) -> tuple[int, str]:
        """capsa_sandbox_restore, the tools bound by name to their registry keys."""
        defs = []
        for t in self._bound:
            d = _lib.ToolDef()
            _lib.lib().capsa_tool_def_init(ctypes.byref(d))
            d.name = t.name.encode()
            d.ud = self._register(t)
            if not t.is_async:
                d.fn = _lib.TOOL_CALLBACK  # else NULL: step mode, settled by _drive
            defs.append(d)
        if self._mcp is not None:
            mcp_defs, self._mcp_generation = self._mcp.defs()
            defs.extend(mcp_defs)
        ptrs = (ctypes.POINTER(_lib.ToolDef) * max(len(defs), 1))(
            *[ctypes.pointer(d) for d in defs])
        ro = _lib.RestoreOptions()
        _lib.lib().capsa_restore_options_init(ctypes.byref(ro))
        ro.tools = ctypes.cast(ptrs, ctypes.c_void_p)
        ro.n_tools = len(defs)
        ro.on_output = _lib.OUTPUT_CALLBACK
        ro.on_output_ud = self._sandbox_key
        if self._audit_keep:
            ro.audit_flags = _lib.AUDIT_KEEP
        else:
            ro.on_audit = _lib.AUDIT_CALLBACK
            ro.on_audit_ud = self._sandbox_key
        msg = ctypes.create_string_buffer(1024)
        rc = _lib.lib().capsa_sandbox_restore(self._engine.handle, data, len(data),
                                              ctypes.byref(ro), ctypes.byref(handle), msg,
                                              len(msg))
        return rc, msg.value.decode("utf-8", "replace")

    def _adopt_checkpoint(self) -> None:
        """After a restore: the capabilities and limits are the checkpoint's; tools
        given that it does not have are added."""
        text = _lib.take_string(_lib.lib().capsa_policy_json(self._handle))
        if text is None:
            raise error_for(_lib.ENOMEM, "capsa_policy_json: out of memory")
        self._caps = _capabilities(text.decode())
        opts = _lib.new_options()
        _lib.lib().capsa_sandbox_options(self._handle, ctypes.byref(opts))
        self._limits = Limits.from_options(opts)
        for t, key in zip(self._bound, list(self._tool_keys)):
            rc = _lib.lib().capsa_tool_add(self._handle, ctypes.byref(self._tool_def(t, key)))
            if rc not in (_lib.OK, _lib.EEXIST):
                msg = self._errmsg()
                raise ToolDefinitionError(msg if f"'{t.name}'" in msg else f"tool '{t.name}': {msg}",
                                          code=rc)

    # ---- set-up -----------------------------------------------------------------------

    def _register(self, t: BoundTool) -> int:
        """Puts t in the callback registry: its key, the C ``ud`` of its calls."""
        t.sink = self._state.record
        t.owner = self._sandbox_key
        key = _lib.tools_registry.add(t)
        self._tool_keys.append(key)
        return key

    def _tool_def(self, t: BoundTool, key: int) -> _lib.ToolDef:
        d = _lib.ToolDef()
        _lib.lib().capsa_tool_def_init(ctypes.byref(d))
        try:
            params = json.dumps(t.parameters, allow_nan=False).encode()
        except (TypeError, ValueError) as exc:
            raise ToolDefinitionError(f"tool '{t.name}': its schema is not JSON: {exc}") from None
        d.name, d.description, d.parameters = t.name.encode(), t.description.encode("utf-8"), params
        if not t.is_async:
            d.fn = _lib.TOOL_CALLBACK  # else NULL: step mode, settled by _drive
        d.ud = key
        d.flags = _lib.TOOL_INLINE if t.inline else 0
        d.timeout_ms = t.timeout_ms
        return d

    def _add_tool(self, t: BoundTool) -> None:
        d = self._tool_def(t, self._register(t))
        rc = _lib.lib().capsa_tool_add(self._handle, ctypes.byref(d))
        if rc != _lib.OK:
            msg = self._errmsg()
            raise ToolDefinitionError(msg if f"'{t.name}'" in msg else f"tool '{t.name}': {msg}", code=rc)

    def _install_policy(self) -> None:
        if not self._caps:
            return  # a new sandbox's policy is already the empty one: nothing allowed
        text = policy_json(self._caps).encode()
        with self._use():
            rc = _lib.lib().capsa_policy_set(self._handle, text, len(text))
            if rc != _lib.OK:
                raise PolicyError(f"the capabilities were refused: {self._errmsg()}", code=rc)

    # ---- plumbing -----------------------------------------------------------------------

    def _take_audit(self) -> None:
        """Collects the audit lines the library kept since the last take
        (CAPSA_AUDIT_KEEP); nothing to do for a sandbox whose lines come by callback."""
        if not self._audit_keep or self._handle is None:
            return
        p = ctypes.c_void_p()
        n = ctypes.c_size_t()
        with self._audit_take_lock:  # in the library's order, one taker at a time
            _lib.lib().capsa_audit_take(self._handle, ctypes.byref(p), ctypes.byref(n))
            if n.value:
                self._audit_collector.add_lines_deferred(ctypes.string_at(p.value, n.value))

    def _errmsg(self) -> str:
        msg = _lib.lib().capsa_errmsg(self._handle)
        return msg.decode("utf-8", "replace") if msg else ""

    def _use(self) -> threading.RLock:
        """Guards one library call: the sandbox is open, not called from inside one of
        its own tool callbacks, and used by one thread at a time (``with`` the lock
        returned)."""
        if self._handle is None:
            raise CapsaError("the sandbox is closed")
        if in_tool_of(self._sandbox_key):
            raise CapsaError("a tool callback must not call into its own sandbox while the "
                             "script waits for it (use an async tool to touch the sandbox's files)")
        return self._lock

    @property
    def handle(self) -> int:
        """The library's capsa_sandbox pointer (for ctypes users)."""
        if self._handle is None:
            raise CapsaError("the sandbox is closed")
        return self._handle

    def mcp_status(self) -> list[dict[str, Any]]:
        """The upstream MCP servers of ``mcp_servers``: for each its name, namespace,
        transport, state ("ready", "failed", "exited", ...), error, tools (their names
        here), restarts, server (its serverInfo) and protocol_version."""
        return self._mcp.status() if self._mcp is not None else []

    @property
    def closed(self) -> bool:
        return self._handle is None

    def close(self) -> None:
        """Frees the sandbox (waiting for tool callbacks still running). Idempotent."""
        if self._handle is not None and in_tool_of(self._sandbox_key):
            raise CapsaError("a tool callback must not close its own sandbox")
        if self._finalizer is not None and self._finalizer.alive:
            with self._lock:
                self._take_audit()
                self._finalizer()
        self._handle = None
        self._audit_collector.close()

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._handle is None else "open"
        return f"<capsa.Sandbox {state} tools={[t.name for t in self._bound]}>"

    # callbacks (from _lib's trampolines)
    def _on_output_bytes(self, stream: int, data: bytes) -> None:
        cb = self._state.on_output
        if cb is None:
            return
        text = self._state.decoder(stream).decode(data)
        if text:
            try:
                cb("stdout" if stream == _lib.STDOUT else "stderr", text)
            except Exception as exc:  # noqa: BLE001 - never into C
                warnings.warn(f"capsa: on_output raised {exc!r}", RuntimeWarning, stacklevel=1)

    def _on_audit_line(self, line: bytes) -> None:
        try:
            self._audit_collector.add_line_deferred(line)
        except Exception as exc:  # noqa: BLE001 - never into C (output_path unwritable)
            warnings.warn(f"capsa: the audit collector failed: {exc!r}", RuntimeWarning, stacklevel=1)
        if self._on_audit is not None:
            try:
                self._on_audit(_json.loads(line))
            except Exception as exc:  # noqa: BLE001 - never into C
                warnings.warn(f"capsa: on_audit raised {exc!r}", RuntimeWarning, stacklevel=1)

    # ---- running ------------------------------------------------------------------------

    def _begin(self, on_output: OutputCallback | None) -> None:
        with self._lock:
            if self._running:
                raise CapsaError("a run is already in progress in this sandbox")
            self._use()
            if self._mcp is not None:
                # Tools an upstream server added since (its list changed) join first.
                self._mcp_generation = self._mcp.attach(self._handle, self._mcp_generation)
            self._running = True
        self._state.tool_errors = []
        self._state.on_output = on_output or self._on_output
        self._state.decoders.clear()
        self._run_started = time.monotonic()

    def _end(self) -> None:
        self._state.on_output = None
        self._running = False

    def _c_step(self, first: tuple[bytes, ...] | None, shell: bool = False
                ) -> tuple[int, RunResult | None, str]:
        """capsa_set_stdin and capsa_run (first = (code, filename, stdin)), capsa_shell (first = (command line,
        input), shell=True) or capsa_resume (first = None); reads the result at once (it
        is valid until the next call). Blocking; releases the GIL."""
        lib = _lib.lib()
        res = ctypes.c_void_p()
        with self._use():
            if first is not None and shell:
                cmdline, stdin = first
                rc = lib.capsa_shell(self._handle, cmdline, stdin, len(stdin) if stdin else 0,
                                     ctypes.byref(res))
            elif first is not None:
                code, filename, stdin = first
                # The library keeps a sandbox's stdin until it is set again: an empty
                # one after an empty one needs no call.
                rc = _lib.OK
                if stdin or self._stdin_set:
                    rc = lib.capsa_set_stdin(self._handle, stdin, len(stdin))
                    if rc == _lib.OK:
                        self._stdin_set = bool(stdin)
                if rc == _lib.OK:
                    rc = lib.capsa_run(self._handle, code, len(code), filename,
                                       ctypes.byref(res))
            else:
                rc = lib.capsa_resume(self._handle, ctypes.byref(res))
            self._take_audit()
            # The message tells of a run that did not end well (_finish).
            msg = "" if rc == _lib.OK or rc == _lib.PENDING else self._errmsg()
            result = _read_result(res.value) if res.value and rc != _lib.PENDING else None
        return rc, result, msg

    def _finish(self, rc: int, result: RunResult | None, msg: str) -> RunResult:
        # Flush what the decoders hold back (a split UTF-8 sequence at the very end).
        for stream, dec in self._state.decoders.items():
            tail = dec.decode(b"", final=True)
            if tail and self._state.on_output is not None:
                self._state.on_output("stdout" if stream == 1 else "stderr", tail)
        if result is not None:
            result.tool_errors = list(self._state.tool_errors)
        if rc in (_lib.OK, _lib.ESCRIPT) and result is not None:
            return result
        detail = msg
        if result is not None and result.error is not None and result.error.message not in detail:
            detail = f"{detail}: {result.error.message}" if detail else result.error.message
        raise error_for(rc, detail or _lib.lib().capsa_errstr(rc).decode(), result=result)

    def run(self, code: str | bytes, *, filename: str | None = None,
            stdin: str | bytes | None = None,
            on_output: OutputCallback | None = None) -> RunResult:
        """Runs JavaScript as the body of an async function (top-level ``await`` and
        ``return x`` work; top-level declarations persist to later runs).

        ``stdin`` (text as UTF-8, or bytes; None: empty) is the script's standard input:
        ``fs.readFileSync(0)``, ``process.stdin``.

        Returns a RunResult (``error`` set when the script threw). Raises
        TimeLimitExceeded, FuelExhausted, GuestTrap or OutOfMemory when a limit stops the
        run (the sandbox is reset and stays usable), InvalidArgument on misuse.
        """
        first = (_code_bytes(code), _filename(filename), _stdin_bytes(stdin))
        self._begin(on_output)
        try:
            rc, result, msg = self._c_step(first)
            if rc == _lib.PENDING:
                rc, result, msg = _run_coroutine_sync(lambda: self._drive(_direct))
            return self._finish(rc, result, msg)
        finally:
            self._end()

    async def run_async(self, code: str | bytes, *, filename: str | None = None,
                        stdin: str | bytes | None = None,
                        on_output: OutputCallback | None = None) -> RunResult:
        """``run`` for asyncio: the library works in the loop's default executor, and
        ``async def`` tools run as tasks on this loop, concurrently (step mode)."""
        import asyncio
        first = (_code_bytes(code), _filename(filename), _stdin_bytes(stdin))
        loop = asyncio.get_running_loop()
        self._begin(on_output)
        try:
            rc, result, msg = await loop.run_in_executor(None, self._c_step, first)
            if rc == _lib.PENDING:
                rc, result, msg = await self._drive(_offloaded)
            return self._finish(rc, result, msg)
        finally:
            self._end()

    def run_shell(self, command: str, stdin: str | bytes | None = None, *,
                  on_output: OutputCallback | None = None) -> RunResult:
        """Runs a POSIX-sh command line in the sandbox's shell, with ``stdin`` (text, or
        UTF-8 bytes) as its standard input.

        Returns a RunResult whose ``exit_code`` is the exit status (a failing command is
        not an exception) and whose ``stdout``/``stderr`` are the output, streamed to
        ``on_output`` as for ``run``. Variables, functions and the working directory
        persist to later command lines. ``tool NAME --param value`` calls a registered
        synchronous tool under the capabilities; ``async def`` tools cannot be waited for
        by the shell (the command fails with a message). Raises TimeLimitExceeded,
        FuelExhausted, GuestTrap or OutOfMemory when a limit stops the command line (the
        sandbox is reset: the shell's and the scripts' state are lost, files are kept),
        TypeError / ValueError for a command that is not a str or holds a NUL, and
        ShellNotAvailable when the loaded libcapsa.so predates the shell.
        """
        first = _shell_args(command, stdin)
        self._begin(on_output)
        try:
            rc, result, msg = self._c_step(first, shell=True)
            while rc == _lib.PENDING:
                rc, result, msg = self._shell_unblock()
            return self._finish(rc, _shell_result(rc, result), msg)
        finally:
            self._end()

    async def run_shell_async(self, command: str, stdin: str | bytes | None = None, *,
                              on_output: OutputCallback | None = None) -> RunResult:
        """``run_shell`` for asyncio: the library works in the loop's default executor
        (synchronous tools called by the shell's ``tool`` run on its worker threads)."""
        import asyncio
        first = _shell_args(command, stdin)
        loop = asyncio.get_running_loop()
        self._begin(on_output)
        try:
            rc, result, msg = await loop.run_in_executor(None, self._c_step, first, True)
            while rc == _lib.PENDING:
                rc, result, msg = await loop.run_in_executor(None, self._shell_unblock)
            return self._finish(rc, _shell_result(rc, result), msg)
        finally:
            self._end()

    def _shell_unblock(self) -> tuple[int, RunResult | None, str]:
        """A command line waits for tool calls left to Python (async tools, step mode):
        the shell has already given up on them (its command failed), so they are
        rejected without running their handlers, and the command line resumed."""
        for call_id, _name, _args in self._pending():
            self._settle(call_id, False, ("tool_error", _SHELL_ASYNC_TOOL))
        return self._c_step(None)

    def _pending(self) -> list[tuple[int, str, bytes]]:
        lib = _lib.lib()
        out = []
        with self._use():
            n = lib.capsa_pending_count(self._handle)
            for i in range(n):
                c = _lib.ToolCall()
                c.struct_size = ctypes.sizeof(c)
                if lib.capsa_pending_call(self._handle, i, ctypes.byref(c)) != _lib.OK:
                    continue
                args = ctypes.string_at(c.args, c.args_len) if c.args else b"{}"
                out.append((c.id, (c.name or b"").decode("utf-8", "replace"), args))
            timer = lib.capsa_pending_timer_ms(self._handle)
        self._timer_ms = timer
        return out

    def _settle(self, call_id: int, ok: bool, payload: Any) -> None:
        lib = _lib.lib()
        with self._use():
            if ok:
                lib.capsa_call_resolve(self._handle, call_id, payload, len(payload))
            else:
                code, message = payload
                lib.capsa_call_reject(self._handle, call_id, code.encode(),
                                      message.encode("utf-8", "replace"))

    async def _drive(self, offload: Callable[[Callable[[], Any]], Awaitable[Any]]
                     ) -> tuple[int, RunResult | None, str]:
        """The step-mode loop: start every new pending call as a task, wait for one to
        finish (or for the next timer or deadline), settle what finished, resume."""
        import asyncio
        running: dict[int, tuple[asyncio.Task[Any], float]] = {}
        rc = _lib.PENDING
        result: RunResult | None = None
        msg = ""
        try:
            while rc == _lib.PENDING:
                calls = self._pending()
                seen = set()
                for call_id, name, args in calls:
                    seen.add(call_id)
                    if call_id in running:
                        continue
                    tool = self._by_name.get(name)
                    coro = tool.invoke_async(args) if tool else _unknown(name)
                    limit = (tool.timeout_ms if tool and tool.timeout_ms
                             else self._time_limits_ms()[1])
                    running[call_id] = (asyncio.ensure_future(coro), time.monotonic() + limit / 1000)
                for call_id in [i for i in running if i not in seen]:
                    running.pop(call_id)[0].cancel()  # timed out in the library
                wait = self._wake_after([d for _, d in running.values()])
                tasks = [t for t, _ in running.values()]
                if tasks:
                    await asyncio.wait(tasks, timeout=wait, return_when=asyncio.FIRST_COMPLETED)
                else:
                    await asyncio.sleep(0.001 if wait is None else wait)
                for call_id, (task, _) in list(running.items()):
                    if task.done():
                        del running[call_id]
                        ok, payload = task.result()
                        self._settle(call_id, ok, payload)
                rc, result, msg = await offload(lambda: self._c_step(None))
        finally:
            for task, _ in running.values():
                task.cancel()
        return rc, result, msg

    def _time_limits_ms(self) -> tuple[int, int]:
        """The sandbox's timeout_ms and tool_timeout_ms, as the library filled them in
        (asked at the first step-mode run: a sandbox's options do not change)."""
        if self._time_limits is None:
            opts = _lib.new_options()
            _lib.lib().capsa_sandbox_options(self._handle, ctypes.byref(opts))
            self._time_limits = (opts.timeout_ms, opts.tool_timeout_ms)
        return self._time_limits

    def _wake_after(self, call_deadlines: list[float]) -> float | None:
        """Seconds until something the library must see happens: the script's next
        timer, a call's time limit, the run's time limit."""
        now = time.monotonic()
        moments = list(call_deadlines)
        if self._timer_ms >= 0:
            moments.append(now + self._timer_ms / 1000)
        timeout_ms = self._time_limits_ms()[0]
        if timeout_ms:
            moments.append(self._run_started + timeout_ms / 1000)
        if not moments:
            return None
        return max(0.0, min(moments) - now) + 0.001

    def interrupt(self) -> bool:
        """Stops the run in progress, from another thread (a Ctrl-C handler, a
        watchdog): it ends as at its time limit and raises ``Interrupted``; the
        sandbox stays usable. True when a run was interrupted, False when none was in
        progress. The one method that does not wait for the run."""
        handle = self._handle
        if handle is None:
            return False
        return _lib.lib().capsa_interrupt(handle) == _lib.OK

    def reset(self) -> None:
        """Discards the JS state (and a pending run); files and capabilities stay."""
        with self._use():
            rc = _lib.lib().capsa_reset(self._handle)
            if rc != _lib.OK:
                raise error_for(rc, self._errmsg())

    # ---- amla-sandbox's API -----------------------------------------------------------

    def execute(self, code: str, on_output: Callable[[str], None] | None = None,
                stdin: str | bytes | None = None) -> str:
        """Runs JavaScript and returns its stdout, then the value it returned (amla's
        ``execute``): a returned string as it is, anything else as JSON, nothing for
        undefined (``return 42`` gives ``"42"``).

        ``on_output(chunk)`` streams stdout (and the value at the end); ``stdin``, when
        given, is the code. A script that throws does not raise (as amla): its error is
        appended to ``last_stderr``. Limits raise ``LimitExceeded`` subclasses (which are
        RuntimeErrors).
        """
        source = self._js_source(_stdin_code(code, stdin))
        result = self._safe(lambda: self.run(source, on_output=_stdout_only(on_output)))
        return self._execute_result(result, value=True, on_output=on_output)

    async def execute_async(self, code: str, on_output: Callable[[str], None] | None = None,
                            stdin: str | bytes | None = None) -> str:
        """``execute`` for asyncio: async tools and an async ``tool_handler`` run on the loop."""
        source = self._js_source(_stdin_code(code, stdin))
        try:
            result = await self.run_async(source, on_output=_stdout_only(on_output))
        except CapsaError as exc:
            self._last_stderr = exc.result.stderr if exc.result is not None else ""
            self._last_exit_code = None
            raise
        return self._execute_result(result, value=True, on_output=on_output)

    def _js_source(self, code: str | bytes) -> str | bytes:
        """The code ``execute`` runs for ``code`` (as it is here; the amla_sandbox
        package gives each execute a scope of its own)."""
        return code

    def _safe(self, fn: Callable[[], RunResult]) -> RunResult:
        try:
            return fn()
        except CapsaError as exc:
            self._last_stderr = exc.result.stderr if exc.result is not None else ""
            self._last_exit_code = None
            raise

    def _execute_result(self, result: RunResult, *, value: bool = False,
                        on_output: Callable[[str], None] | None = None) -> str:
        stderr = result.stderr
        if result.error is not None:
            stderr += ("" if not stderr or stderr.endswith("\n") else "\n") + str(result.error) + "\n"
        self._last_stderr = stderr
        self._last_exit_code = result.exit_code
        if not value:
            return result.stdout
        text = returned_text(result)
        if text and on_output is not None:
            on_output(text)
        return result.stdout + text

    @property
    def last_stderr(self) -> str:
        """stderr of the last ``execute`` (with the script's error, if it threw)."""
        return self._last_stderr

    def shell(self, command: str, stdin: str | bytes | None = None,
              on_output: Callable[[str], None] | None = None) -> str:
        """Runs a shell command line and returns its stdout (amla's ``shell``).

        ``stdin`` is the command line's standard input; ``on_output(chunk)`` streams
        stdout. A failing command does not raise (as amla): its stderr is in
        ``last_stderr`` and its exit status in ``last_exit_code``. Limits raise
        ``LimitExceeded`` subclasses (RuntimeErrors). See ``run_shell`` for the rest.
        """
        cb = _stdout_only(on_output)
        result = self._safe(lambda: self.run_shell(command, stdin, on_output=cb))
        return self._execute_result(result)

    @property
    def last_exit_code(self) -> int | None:
        """Exit status of the last ``shell`` command line (None after ``execute`` or
        when a limit stopped it)."""
        return self._last_exit_code

    # ---- capabilities ---------------------------------------------------------------

    def check_call(self, method: str, params: dict[str, Any] | None = None) -> tuple[bool, str]:
        """Would the policy allow this call now? (allowed, the policy's message). A dry
        run in C that spends no budget."""
        if not isinstance(method, str):
            raise TypeError(f"method must be a str, not {type(method).__name__}")
        args = None
        if params is not None:
            if not isinstance(params, dict):
                raise TypeError(f"params must be a dict, not {type(params).__name__}")
            try:
                args = json.dumps(params, allow_nan=False).encode()
            except (TypeError, ValueError) as exc:
                raise TypeError(f"params are not JSON-serialisable: {exc}") from None
        with self._use():
            return _policy_check(self._handle, strip_mcp(method), args)

    def can_call(self, method: str, params: dict[str, Any] | None = None) -> bool:
        """Whether the capabilities allow the call now (amla's; decided in C)."""
        return self.check_call(method, params)[0]

    def get_capabilities(self) -> list[ToolCallCap]:
        """The capabilities given at creation (amla's)."""
        return list(self._caps)

    @property
    def capabilities(self) -> list[ToolCallCap]:
        return list(self._caps)

    @property
    def tools(self) -> list[ToolDefinition]:
        """The registered tools' definitions."""
        return [t.definition() for t in self._bound]

    def get_remaining_calls(self, capability_key: str) -> int | None:
        """Calls a capability may still allow; None when unlimited or unknown (amla's).
        The key is ``cap:tool-call:<pattern>``, ``cap:method:<pattern>`` or the pattern."""
        pattern = canonical_name(pattern_of_key(capability_key))
        same = [c for c in self._caps if canonical_name(strip_mcp(c.method_pattern)) == pattern]
        if any(c.max_calls == 0 for c in same) and not any(c.max_calls != 0 for c in same):
            return 0
        remaining = ctypes.c_uint64()
        with self._use():
            rc = _lib.lib().capsa_policy_calls(self._handle, pattern.encode(), None,
                                               ctypes.byref(remaining))
        if rc != _lib.OK or remaining.value == _lib.UINT64_MAX:
            return None
        return remaining.value

    def get_call_counts(self) -> dict[str, int]:
        """{capability key: remaining calls} of the capabilities with a budget (amla's)."""
        counts = self.call_counts()
        installed = [c for c in self._caps if c.max_calls != 0]
        out: dict[str, int] = {}
        for cap, row in zip(installed, counts):
            if row["remaining"] is not None:
                out.setdefault(cap.key(), row["remaining"])
        for cap in self._caps:
            if cap.max_calls == 0:
                out.setdefault(cap.key(), 0)
        return out

    def call_counts(self) -> list[dict[str, Any]]:
        """Every installed capability's ``{"pattern", "max_calls", "used", "remaining"}``."""
        with self._use():
            raw = _lib.take_string(_lib.lib().capsa_policy_counts_json(self._handle))
        if raw is None:
            raise error_for(_lib.ENOMEM, "capsa_policy_counts_json: out of memory")
        return json.loads(raw)

    def reset_call_counts(self) -> None:
        """Sets every capability's used calls back to zero."""
        with self._use():
            _lib.lib().capsa_policy_reset_counts(self._handle)

    # ---- audit ------------------------------------------------------------------------

    def audit_log(self) -> list[dict[str, Any]]:
        """The audit lines the library handed to this sandbox, as dicts: the host's own
        record, not ``/log/actions.jsonl`` (the guest's read-only copy)."""
        self._take_audit()
        return [e.data for e in self._audit_collector.entries]

    def get_audit_entries(self, entry_type: str | None = None, since: datetime | None = None
                          ) -> Iterator[AuditEntry]:
        """Audit entries (amla's): the lines the library handed to this sandbox, with
        the context of ``audit_config`` when it is set (never read back from the
        guest-readable ``/log/actions.jsonl``). ``entry_type`` filters on the event
        ("tool_call", "run_start", "run_end", "limit", "tool_denials", and
        "audit_overflow" past the collector's cap)."""
        self._take_audit()
        return self._audit_collector.get_entries(entry_type=entry_type, since=since)

    @property
    def audit_collector(self) -> AuditCollector | None:
        """The collector of ``audit_config`` (None without one)."""
        self._take_audit()
        return self._audit_collector if self.audit_config is not None else None

    # ---- files ------------------------------------------------------------------------

    @property
    def files(self) -> Files:
        """The sandbox's filesystem (read, write, list, stat, remove, mount, tar)."""
        if self._files is None:
            self._files = Files(self)
        return self._files


# ---- helpers --------------------------------------------------------------------------


def returned_text(result: RunResult) -> str:
    """The value a JavaScript run returned as amla prints it: a string as it is, anything
    else as its JSON text, "" for undefined (and for a run that threw)."""
    if result.error is not None or result.exit_code is not None or result.value_json is None:
        return ""
    return result.value if isinstance(result.value, str) else result.value_json


def _read_result(ptr: int) -> RunResult:
    """Copies a capsa_result into Python objects (it is freed by the library later)."""
    lib = _lib.lib()
    st = _lib.Stats()
    st.struct_size = ctypes.sizeof(st)
    lib.capsa_result_stats(ptr, ctypes.byref(st))
    # A stream the run wrote nothing to keeps nothing (its count includes what was
    # not kept): no call for it.
    stdout = stderr = ""
    n = ctypes.c_size_t() if st.stdout_bytes or st.stderr_bytes else None
    if st.stdout_bytes:
        out_p = lib.capsa_result_stdout(ptr, ctypes.byref(n))
        stdout = ctypes.string_at(out_p, n.value).decode("utf-8", "replace") if out_p else ""
    if st.stderr_bytes:
        err_p = lib.capsa_result_stderr(ptr, ctypes.byref(n))
        stderr = ctypes.string_at(err_p, n.value).decode("utf-8", "replace") if err_p else ""
    raw = lib.capsa_result_value(ptr)
    value_json = raw.decode("utf-8", "replace") if raw is not None else None
    value = _json.loads(value_json) if value_json is not None else None
    name = lib.capsa_result_error_name(ptr)
    error = None
    if name is not None:
        message = lib.capsa_result_error_message(ptr)
        stack = lib.capsa_result_error_stack(ptr)
        code = lib.capsa_result_error_code(ptr)
        error = JSError(name.decode("utf-8", "replace"),
                        message.decode("utf-8", "replace") if message else "",
                        stack.decode("utf-8", "replace") if stack else None,
                        code.decode("utf-8", "replace") if code else None)
    stats = Stats(st.wall_ms, st.memory_bytes, st.stdout_bytes, st.stderr_bytes,
                  st.output_dropped, st.fuel_used, st.tool_calls)
    result = RunResult(lib.capsa_result_status(ptr), stdout, stderr, value, value_json, error, stats)
    if _lib.lib_has_shell():
        code = lib.capsa_result_exit_code(ptr)
        if code >= 0:
            result.exit_code = code
            result.shell_exited = bool(lib.capsa_result_shell_exited(ptr))
    return result


def _shell_result(rc: int, result: RunResult | None) -> RunResult | None:
    """The exit status of a command line that was resumed (capsa_resume gives the shell
    entry's raw value: the status, plus 256 when it ran ``exit``)."""
    if (rc == _lib.OK and result is not None and result.exit_code is None
            and isinstance(result.value, int) and not isinstance(result.value, bool)
            and 0 <= result.value <= 511):
        raw = result.value
        result.exit_code = raw & 255
        result.shell_exited = raw > 255
        result.value = result.exit_code
        result.value_json = str(result.exit_code)
    return result


def _stdin_bytes(stdin: Any) -> bytes:
    """The standard input of run: text as UTF-8, bytes as they are, None as empty."""
    if stdin is None:
        return b""
    if isinstance(stdin, str):
        return stdin.encode("utf-8")
    if isinstance(stdin, (bytes, bytearray, memoryview)):
        return bytes(stdin)
    raise TypeError(f"stdin must be a str or bytes, not {type(stdin).__name__}")


def _shell_args(command: Any, stdin: Any) -> tuple[bytes, bytes]:
    """The command line (NUL-terminated for C) and the input of run_shell, checked."""
    if not _lib.has_shell():
        raise ShellNotAvailable(_NO_SHELL)
    if not isinstance(command, str):
        raise TypeError(f"command must be a str, not {type(command).__name__}")
    if "\0" in command:
        raise ValueError("command must not contain a NUL character")
    cmdline = command.encode("utf-8")
    data = _stdin_bytes(stdin)  # None: empty, not the standard input a run was given
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"stdin is not UTF-8 text: {exc}") from None
    return cmdline, data


def _code_bytes(code: str | bytes) -> bytes:
    if isinstance(code, str):
        return code.encode("utf-8", "surrogatepass")
    if isinstance(code, (bytes, bytearray, memoryview)):
        return bytes(code)
    raise TypeError(f"code must be a str or bytes, not {type(code).__name__}")


def _filename(filename: str | None) -> bytes | None:
    if filename is None:
        return None
    if not isinstance(filename, str):
        raise TypeError(f"filename must be a str, not {type(filename).__name__}")
    return filename.encode()


def _stdin_code(code: str, stdin: str | bytes | None) -> str | bytes:
    if stdin is None:
        return code
    return stdin.decode("utf-8") if isinstance(stdin, (bytes, bytearray)) else stdin


def _stdout_only(cb: Callable[[str], None] | None) -> OutputCallback | None:
    if cb is None:
        return None
    if not callable(cb):
        raise TypeError("on_output must be callable")

    def out(stream: str, text: str) -> None:
        if stream == "stdout":
            cb(text)

    return out


def _capabilities(value: Any) -> list[ToolCallCap]:
    if value is None:
        return []
    if isinstance(value, (str, bytes)) and value.lstrip()[:1] in ("{", b"{"):
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise PolicyError(f"the policy is not JSON: {exc}") from None
    if isinstance(value, dict):
        if set(value) != {"capabilities"} or not isinstance(value["capabilities"], list):
            raise PolicyError('a policy dict is {"capabilities": [...]}')
        value = value["capabilities"]
    if isinstance(value, (str, ToolCallCap)):
        value = [value]
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"capabilities must be a list, not {type(value).__name__}")
    return [as_capability(c) for c in value]


def _mounts(value: Any) -> list[Mount]:
    if value is None:
        return []
    if isinstance(value, dict):
        return [Mount(host, guest) for guest, host in value.items()]
    out = []
    for m in value:
        if isinstance(m, Mount):
            out.append(m)
        elif isinstance(m, (tuple, list)) and len(m) in (2, 3):
            writable = m[2] if len(m) == 3 else False
            if isinstance(writable, str):
                if writable not in ("ro", "rw"):
                    raise ValueError(f"mount mode must be 'ro' or 'rw', not {writable!r}")
                writable = writable == "rw"
            out.append(Mount(m[0], m[1], bool(writable)))
        else:
            raise TypeError(f"a mount is a capsa.Mount or (host_dir, guest_path[, writable]), not {m!r}")
    return out


async def _unknown(name: str) -> tuple[bool, Any]:
    return False, ("unknown_tool", f"no Python handler for tool '{name}'")


async def _direct(fn: Callable[[], Any]) -> Any:
    return fn()


async def _offloaded(fn: Callable[[], Any]) -> Any:
    import asyncio
    return await asyncio.get_running_loop().run_in_executor(None, fn)


def _run_coroutine_sync(make: Callable[[], Awaitable[Any]]) -> Any:
    """Runs a coroutine to completion from synchronous code: on a private event loop,
    or on a helper thread when this thread already runs one."""
    import asyncio
    import concurrent.futures
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_as_coro(make))
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, _as_coro(make)).result()


async def _as_coro(make: Callable[[], Awaitable[Any]]) -> Any:
    return await make()
