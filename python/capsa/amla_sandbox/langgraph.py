"""amla_sandbox.langgraph: ``SandboxTool`` (a sandbox as one tool for an agent) and
``ExecutionResult``, capsa's, over ``amla_sandbox.Sandbox`` (a scope per execute).
LangChain is needed only by ``as_langchain_tool(s)``."""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ..capabilities import ToolCallCap
from ..compat import ExecutionResult
from ..compat import SandboxTool as _CapsaSandboxTool
from .sandbox import Sandbox

__all__ = ["ExecutionResult", "SandboxTool"]


class SandboxTool(_CapsaSandboxTool):
    """amla's SandboxTool; ``from_functions`` makes an ``amla_sandbox.Sandbox``."""

    @classmethod
    def from_functions(cls, tools: Sequence[Callable[..., Any]], *,
                       capabilities: Sequence[ToolCallCap] | None = None,
                       sandbox_class: type[Any] = Sandbox) -> "SandboxTool":
        return super().from_functions(tools, capabilities=capabilities, sandbox_class=sandbox_class)
