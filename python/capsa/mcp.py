"""Upstream MCP servers as tools of a sandbox (libcapsa-net's MCP client).

``Sandbox(mcp_servers={...})`` makes one ``MCPClient``: the servers of an mcpServers
configuration (stdio children or Streamable HTTP endpoints) are started at once,
their tools registered in the sandbox as ``S.T`` (``await tools.S.T({...})``), each
call checked by the sandbox's capabilities and audited, and the servers stopped
(children reaped) when the sandbox closes. The C side is include/capsa_net.h.
"""

from __future__ import annotations

import ctypes
import json
import os
import warnings
from typing import Any, Callable

from . import _lib
from .errors import CapsaError, InvalidArgument, error_for

__all__ = ["MCPClient", "MCPLogKind"]


class MCPLogKind:
    """What an ``on_log(server, kind, text)`` line is (CAPSA_MCP_LOG_*)."""

    EVENT = 1    # capsa's, worth a look: a server failed, exited, was restarted
    STDERR = 2   # one line of a stdio server's stderr
    MESSAGE = 3  # a notifications/message it sent (JSON)
    INFO = 4     # capsa's, routine: started, list refreshed


def _config_text(servers: Any) -> bytes:
    """The configuration as JSON text: a dict (``{"mcpServers": {...}}`` or the inner
    mapping of servers by name), its JSON text, or the path of a JSON file."""
    if isinstance(servers, (str, os.PathLike)) and not str(servers).lstrip().startswith("{"):
        with open(servers, "rb") as f:
            return f.read()
    if isinstance(servers, (str, bytes)):
        return servers.encode() if isinstance(servers, str) else servers
    if isinstance(servers, dict):
        doc = servers if "mcpServers" in servers else {"mcpServers": servers}
        try:
            return json.dumps(doc).encode()
        except (TypeError, ValueError) as exc:
            raise InvalidArgument(f"mcp_servers is not JSON: {exc}") from exc
    raise TypeError(f"mcp_servers must be a dict, JSON text or a file's path, not {type(servers).__name__}")


def _default_log(server: str, kind: int, text: str) -> None:
    if kind == MCPLogKind.EVENT:
        warnings.warn(f"capsa: MCP server '{server}': {text}", RuntimeWarning, stacklevel=1)


class MCPClient:
    """A set of upstream MCP servers, started when made.

    Args:
        servers: the mcpServers configuration (see ``_config_text``).
        on_log: ``on_log(server, kind, text)`` from the client's threads (kind: an
            ``MCPLogKind``); by default EVENT lines become RuntimeWarnings and the
            rest is dropped.
        start_timeout_ms, call_timeout_ms: as in capsa_mcp_options (0: defaults).

    A server that fails to start does not raise: ``status()`` says why, and its
    tools are absent. A malformed configuration raises ``InvalidArgument``.
    """

    def __init__(self, servers: Any, *, on_log: Callable[[str, int, str], None] | None = None,
                 start_timeout_ms: int = 0, call_timeout_ms: int = 0) -> None:
        self._handle: int | None = None
        text = _config_text(servers)
        net = _lib.net_lib()
        self._log_key = _lib.mcp_registry.add(on_log or _default_log)
        opts = _lib.MCPOptions()
        net.capsa_mcp_options_init(ctypes.byref(opts))
        if start_timeout_ms:
            opts.start_timeout_ms = start_timeout_ms
        if call_timeout_ms:
            opts.call_timeout_ms = call_timeout_ms
        opts.on_log = _lib.MCP_LOG_CALLBACK
        opts.on_log_ud = self._log_key
        handle = ctypes.c_void_p()
        rc = net.capsa_mcp_client_new(ctypes.byref(opts), ctypes.byref(handle))
        if rc != _lib.OK:
            _lib.mcp_registry.remove(self._log_key)
            raise error_for(rc, "cannot make the MCP client")
        self._handle = handle.value
        rc = net.capsa_mcp_client_configure(self._handle, text, len(text))
        if rc != _lib.OK:
            msg = net.capsa_mcp_client_errmsg(self._handle).decode("utf-8", "replace")
            self.close()
            raise InvalidArgument(f"mcp_servers: {msg}") if rc in (_lib.EINVAL, _lib.EEXIST) \
                else error_for(rc, f"mcp_servers: {msg}")
        net.capsa_mcp_client_start(self._handle)  # blocking, without the GIL (ctypes)

    def attach(self, sandbox_handle: int, generation: int) -> int:
        """Registers the tools that appeared after generation (0: all) in the sandbox;
        returns the new generation. Tools that cannot be registered are reported to
        on_log and left out."""
        if self._handle is None:
            raise CapsaError("the MCP client is closed")
        gen = ctypes.c_uint64(generation)
        _lib.net_lib().capsa_mcp_client_attach(self._handle, sandbox_handle, ctypes.byref(gen))
        return gen.value

    def defs(self) -> tuple[list[_lib.ToolDef], int]:
        """The definitions of the started servers' tools, for a restore to bind a
        checkpoint's tools by name, and the client's generation (for ``attach`` to add
        what came later). Their strings and callbacks are the client's: valid while it
        is open."""
        if self._handle is None:
            raise CapsaError("the MCP client is closed")
        net = _lib.net_lib()
        gen = ctypes.c_uint64(0)
        n = net.capsa_mcp_client_defs(self._handle, None, 0, ctypes.byref(gen))
        while True:
            arr = (_lib.ToolDef * max(n, 1))()
            got = net.capsa_mcp_client_defs(self._handle, arr, n, ctypes.byref(gen))
            if got <= n:
                return list(arr[:got]), gen.value
            n = got  # a list grew in between: again with room

    def status(self) -> list[dict[str, Any]]:
        """Each server: name, namespace, transport, state, error, tools, restarts, server,
        protocol_version."""
        if self._handle is None:
            return []
        raw = _lib.net_lib().capsa_mcp_client_status_json(self._handle)
        if not raw:
            raise MemoryError("capsa: out of memory describing the MCP servers")
        return json.loads(_lib.take_string(raw))

    def close(self) -> None:
        """Stops every server (children reaped). Every sandbox it was attached to must be
        closed first. Idempotent."""
        if self._handle is not None:
            _lib.net_lib().capsa_mcp_client_free(self._handle)
            self._handle = None
            _lib.mcp_registry.remove(self._log_key)

    def __enter__(self) -> "MCPClient":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
