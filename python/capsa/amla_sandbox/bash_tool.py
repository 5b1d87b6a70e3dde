"""amla_sandbox.bash_tool: ``create_sandbox_tool`` (JavaScript first) and
``create_bash_tool`` (shell first), capsa's ``create_sandbox_tool`` over
``amla_sandbox.Sandbox``.

Constraints use amla's compact syntax (``"<=1000"``, ``">=0"``, ``"<10"``, ``">5"``,
``"==42"``, ``"startswith:/api/"``, a list of allowed values, a number for an exact
value) and capsa's additions (``"!=N"``, ``"endswith:x"``, ``"contains:x"``, a
``Constraint``); anything else raises ``PolicyError`` where amla drops it with a log
line. ``workspace`` is accepted (amla reserves it too) and unused: scripts write under
/workspace and /tmp.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ..compat import DEFAULT_MAX_CALLS
from ..compat import create_sandbox_tool as _create
from .langgraph import SandboxTool
from .sandbox import Sandbox

__all__ = ["DEFAULT_MAX_CALLS", "create_bash_tool", "create_sandbox_tool"]


def create_sandbox_tool(tools: Sequence[Callable[..., Any]] | None = None, *,
                        constraints: dict[str, dict[str, Any]] | None = None,
                        max_calls: int | dict[str, int] | None = None,
                        default_language: str = "javascript",
                        workspace: str | None = None) -> SandboxTool:
    """A SandboxTool over Python functions, each allowed ``max_calls`` calls (100 by
    default) under its ``constraints``; ``run(code, language=...)`` runs JavaScript
    or a shell command line."""
    return _create(tools, constraints=constraints, max_calls=max_calls,  # type: ignore[return-value]
                   default_language=default_language, sandbox_class=Sandbox, tool_class=SandboxTool)


def create_bash_tool(tools: Sequence[Callable[..., Any]] | None = None, *,
                     constraints: dict[str, dict[str, Any]] | None = None,
                     max_calls: int | dict[str, int] | None = None,
                     workspace: str | None = None) -> SandboxTool:
    """``create_sandbox_tool`` whose ``run`` takes shell command lines by default."""
    return create_sandbox_tool(tools, constraints=constraints, max_calls=max_calls,
                               default_language="shell", workspace=workspace)
