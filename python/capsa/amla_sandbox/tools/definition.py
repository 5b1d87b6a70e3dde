"""amla_sandbox.tools.definition: ``ToolDefinition`` (name, description, JSON Schema of
the arguments), capsa's."""

from ...tools import ToolDefinition

__all__ = ["ToolDefinition"]
