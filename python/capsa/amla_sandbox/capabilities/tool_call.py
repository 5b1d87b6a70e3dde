"""amla_sandbox.capabilities.tool_call: amla's other name of the module of
``ToolCallCap`` (the same objects as ``amla_sandbox.capabilities.method``)."""

from .method import (
    METHOD_CAPABILITY_TYPE,
    TOOL_CALL_CAP_TYPE,
    CallLimitExceededError,
    CapabilityError,
    MethodCapability,
    ToolCallCap,
)

__all__ = ["METHOD_CAPABILITY_TYPE", "TOOL_CALL_CAP_TYPE", "CallLimitExceededError",
           "CapabilityError", "MethodCapability", "ToolCallCap"]
