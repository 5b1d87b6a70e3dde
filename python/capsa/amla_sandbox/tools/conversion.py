"""amla_sandbox.tools.conversion: a function as a ToolDefinition or a capability, and
tools described for a JavaScript prompt.

``capability_from_function`` names the capability ``mcp:<name>`` as amla does (capsa
reads the prefix as the bare name); the rest is capsa's."""

from __future__ import annotations

from typing import Any, Callable

from ...capabilities import ConstraintSet, ToolCallCap
from ...tools import bind_tools, format_tool_descriptions_js, tool_from_function

__all__ = ["capability_from_function", "format_tool_descriptions_js", "tool_from_function"]


def capability_from_function(func: Callable[..., Any], constraints: ConstraintSet | None = None,
                             max_calls: int | None = None) -> ToolCallCap:
    """A ToolCallCap for a function's tool, pattern ``mcp:<name>`` (amla's)."""
    name = bind_tools([func])[0].name
    return ToolCallCap(method_pattern=f"mcp:{name}", constraints=constraints or ConstraintSet(),
                       max_calls=max_calls)
