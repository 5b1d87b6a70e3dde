"""amla_sandbox.capabilities.method: ``MethodCapability`` (key ``cap:method:<pattern>``)
and ``ToolCallCap`` (key ``cap:tool-call:<pattern>``), with the errors a refused call
raises."""

from ...capabilities import METHOD_CAPABILITY_TYPE, TOOL_CALL_CAP_TYPE, MethodCapability, ToolCallCap
from ...errors import CallLimitExceededError, CapabilityError

__all__ = ["METHOD_CAPABILITY_TYPE", "TOOL_CALL_CAP_TYPE", "CallLimitExceededError",
           "CapabilityError", "MethodCapability", "ToolCallCap"]
