"""amla_sandbox.tools: tool definitions, conversion from functions, handlers and
ingestion of other frameworks' tools (capsa's, with amla's names)."""

from .conversion import capability_from_function, format_tool_descriptions_js, tool_from_function
from .definition import ToolDefinition
from .handlers import create_tool_handler
from .ingest import from_anthropic_tools, from_claude, from_langchain, from_openai, from_openai_tools

__all__ = ["ToolDefinition", "capability_from_function", "create_tool_handler",
           "format_tool_descriptions_js", "from_anthropic_tools", "from_claude", "from_langchain",
           "from_openai", "from_openai_tools", "tool_from_function"]
