"""amla_sandbox.capabilities.patterns: glob patterns of tool names ('*' one segment,
'**' any number; '/' and '.' one separator; amla's ``mcp:`` prefix means the bare name)."""

from ...capabilities import method_matches_pattern, pattern_is_subset

__all__ = ["method_matches_pattern", "pattern_is_subset"]
