"""amla_sandbox.capabilities: capabilities, constraints and patterns (capsa's classes;
the C checker decides every call)."""

from .constraints import (
    Constraint,
    ConstraintError,
    ConstraintSet,
    MissingParamError,
    Param,
    TypeMismatchError,
    ViolationError,
)
from .method import (
    METHOD_CAPABILITY_TYPE,
    TOOL_CALL_CAP_TYPE,
    CallLimitExceededError,
    CapabilityError,
    MethodCapability,
    ToolCallCap,
)
from .patterns import method_matches_pattern, pattern_is_subset

__all__ = ["METHOD_CAPABILITY_TYPE", "TOOL_CALL_CAP_TYPE", "CallLimitExceededError",
           "CapabilityError", "Constraint", "ConstraintError", "ConstraintSet",
           "MethodCapability", "MissingParamError", "Param", "ToolCallCap", "TypeMismatchError",
           "ViolationError", "method_matches_pattern", "pattern_is_subset"]
