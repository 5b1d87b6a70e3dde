"""amla_sandbox.tools.ingest: tools of other frameworks (LangChain, OpenAI, Anthropic)
as (functions, definitions), capsa's."""

from ...tools import from_anthropic_tools, from_claude, from_langchain, from_openai, from_openai_tools

__all__ = ["from_anthropic_tools", "from_claude", "from_langchain", "from_openai", "from_openai_tools"]
