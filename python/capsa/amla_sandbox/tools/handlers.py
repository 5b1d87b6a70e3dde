"""amla_sandbox.tools.handlers: ``create_tool_handler(tools)``, a ``handler(method,
params)`` over Python functions (capsa's; ``mcp:`` names accepted)."""

from ...tools import create_tool_handler

__all__ = ["create_tool_handler"]
