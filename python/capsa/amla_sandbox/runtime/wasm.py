"""amla_sandbox.runtime.wasm: amla's low-level runtime, on capsa.

amla drives its WASM module step by step from Python; capsa's guest is compiled into
``libcapsa.so`` and the library drives it (tool calls concurrent on its threads, or
left to Python for ``async`` handlers), so the stepping protocol has no equivalent
here. ``Runtime`` keeps amla's surface for what programs do with it: run a shell
command line (``execute``, with ``node -e CODE`` for JavaScript), check calls, read
budgets. ``precompile_module`` has nothing to precompile and returns None.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Awaitable, Callable, Union

from ...capabilities import MethodCapability
from ...errors import CapsaError
from ...tools import ToolDefinition

__all__ = ["AsyncToolHandler", "Runtime", "RuntimeConfig", "RuntimeError", "RuntimeStatus",
           "SyncToolHandler", "ToolHandler", "precompile_module"]

RuntimeError = CapsaError  # noqa: A001 - amla's name of its runtime errors

SyncToolHandler = Callable[[str, dict[str, Any]], Any]
AsyncToolHandler = Callable[[str, dict[str, Any]], Awaitable[Any]]
ToolHandler = Union[SyncToolHandler, AsyncToolHandler]


class RuntimeStatus(Enum):
    """amla's step states (capsa's library runs a command line to its end)."""

    RUNNING = "running"
    ALL_BLOCKED = "all_blocked"
    ALL_DONE = "all_done"
    ERROR = "error"
    PANIC = "panic"


@dataclass
class RuntimeConfig:
    """amla's runtime configuration: ``capabilities``, ``tool_handler`` and
    ``tools_json`` (MCP tool definitions) are used; the WASM, token and buffer fields
    are accepted and unused (capsa's limits are ``capsa.Limits``)."""

    wasm_path: Path | None = None
    pca_bytes: bytes = b""
    trusted_authorities: list[str] = field(default_factory=list)
    capabilities: list[MethodCapability] = field(default_factory=list)
    tool_handler: ToolHandler | None = None
    tools_json: str = "[]"
    max_steps: int = 10000
    output_buffer_size: int = 8192
    tool_result_chunk_size: int = 2048
    max_tool_result_size: int = 10 * 1024 * 1024


class Runtime:
    """A sandbox driven by shell command lines (amla's Runtime)."""

    def __init__(self, config: RuntimeConfig) -> None:
        from ..sandbox import Sandbox

        try:
            defs = [ToolDefinition.from_dict(d) for d in json.loads(config.tools_json or "[]")]
        except (ValueError, TypeError, KeyError) as exc:
            raise CapsaError(f"tools_json is not a JSON array of tool definitions: {exc}") from None
        self.config = config
        self._sandbox = Sandbox(tools=defs, capabilities=list(config.capabilities),
                                tool_handler=config.tool_handler)

    @classmethod
    def for_testing(cls, capabilities: list[str] | None = None, tool_handler: ToolHandler | None = None,
                    tools_json: str = "[]", wasm_path: Path | None = None,
                    max_steps: int = 10000) -> "Runtime":
        """amla's test runtime: ``capabilities`` as "tool_call:<pattern>" strings
        (default ``tool_call:**``, every tool)."""
        caps = [MethodCapability(method_pattern=c.split(":", 1)[1] if c.startswith("tool_call:") else c)
                for c in (capabilities if capabilities is not None else ["tool_call:**"])]
        return cls(RuntimeConfig(wasm_path=wasm_path, capabilities=caps, tool_handler=tool_handler,
                                 tools_json=tools_json, max_steps=max_steps))

    def execute(self, command: str, on_output: Callable[[str], None] | None = None,
                stdin: str | bytes | None = None) -> str:
        """Runs a shell command line; its stdout (stderr in ``last_stderr``)."""
        return self._sandbox.shell(command, stdin, on_output)

    async def execute_async(self, command: str, on_output: Callable[[str], None] | None = None,
                            stdin: str | bytes | None = None) -> str:
        result = await self._sandbox.run_shell_async(command, stdin)
        text = self._sandbox._execute_result(result)
        if on_output is not None and text:
            on_output(text)
        return text

    @property
    def last_stderr(self) -> str:
        return self._sandbox.last_stderr

    def can_call(self, method: str, params: dict[str, Any] | None = None) -> bool:
        return self._sandbox.can_call(method, params)

    def get_remaining_calls(self, capability_key: str) -> int | None:
        return self._sandbox.get_remaining_calls(capability_key)

    def get_call_counts(self) -> dict[str, int]:
        return self._sandbox.get_call_counts()

    @property
    def sandbox(self) -> Any:
        """The capsa sandbox underneath."""
        return self._sandbox


def precompile_module(wasm_path: Path | None = None) -> None:
    """Nothing to do: capsa's guest is compiled into the library at build time."""
    return None
