"""capsa: run JavaScript written by AI agents in a capability-secured WebAssembly sandbox.

Native API::

    import capsa

    def get_weather(city: str) -> dict:
        '''Current weather of a city.'''
        return {"city": city, "temp": 21}

    with capsa.Sandbox(tools=[get_weather], capabilities=["get_weather"]) as sb:
        r = sb.run("const w = await get_weather({city: 'Paris'}); return w.temp")
        print(r.value)              # 21

amla-sandbox's names work too (``from capsa import Sandbox, ToolCallCap, Param, ...``,
``create_sandbox_tool``); capsa is strict where amla is not: a bare ``Sandbox()``
grants nothing, and a constraint capsa does not understand raises. A program written
for amla-sandbox runs unchanged after ``import capsa.as_amla_sandbox`` (``import
amla_sandbox`` then finds ``capsa.amla_sandbox``, amla's module layout over this API;
docs/amla-compat.md lists every name).

The package is ctypes over ``libcapsa.so`` (standard library only): the library in
the package directory, or the one ``$CAPSA_LIBRARY`` names.
"""

from ._json import JSON_MAX_DEPTH, RESULT_RULE, JSONTooDeep
from .audit import AuditCollector, AuditConfig, AuditEntry
from .capabilities import (
    METHOD_CAPABILITY_TYPE,
    TOOL_CALL_CAP_TYPE,
    Constraint,
    ConstraintSet,
    MethodCapability,
    Param,
    ToolCallCap,
    method_matches_pattern,
    pattern_is_subset,
)
from .compat import DEFAULT_MAX_CALLS, ExecutionResult, SandboxTool, create_sandbox_tool
from .engine import Engine, default_engine, version
from .errors import (
    CallLimitExceededError,
    CapabilityError,
    CapsaError,
    CheckpointError,
    ConstraintError,
    DirectoryNotEmptyError,
    FilesError,
    FuelExhausted,
    GuestTrap,
    InvalidArgument,
    Interrupted,
    LimitExceeded,
    MissingParamError,
    OutOfMemory,
    PolicyError,
    QuotaExceeded,
    ScriptError,
    ShellNotAvailable,
    TimeLimitExceeded,
    ToolCallbackError,
    ToolCallbackWarning,
    ToolDefinitionError,
    ToolError,
    TooManySandboxes,
    TypeMismatchError,
    ViolationError,
)
from ._lib import LibraryNotFoundError
from .files import FileInfo, Files
from .mcp import MCPClient, MCPLogKind
from .sandbox import JSError, Limits, Mount, RunResult, Sandbox, Stats
from .tools import (
    Tool,
    ToolDefinition,
    ToolHandler,
    capability_from_function,
    create_tool_handler,
    format_tool_descriptions_js,
    from_anthropic_tools,
    from_claude,
    from_langchain,
    from_openai,
    from_openai_tools,
    tool,
    tool_from_function,
)

from ._version import __version__  # from include/capsa.h (see _version.py)

# amla-sandbox spells the limit errors this way.
RuntimeError = CapsaError  # noqa: A001 - amla exports its RuntimeError under this name

__all__ = [
    "MCPClient",
    "MCPLogKind",
    # native
    "Sandbox", "RunResult", "Stats", "JSError", "Limits", "Mount", "Files", "FileInfo",
    "Engine", "default_engine", "version", "Tool", "tool",
    # amla-sandbox's names
    "ToolDefinition", "ToolHandler", "ToolCallCap", "MethodCapability", "Constraint",
    "ConstraintSet", "Param", "TOOL_CALL_CAP_TYPE", "METHOD_CAPABILITY_TYPE",
    "method_matches_pattern", "pattern_is_subset", "create_sandbox_tool", "SandboxTool",
    "ExecutionResult", "DEFAULT_MAX_CALLS", "tool_from_function", "capability_from_function",
    "create_tool_handler", "format_tool_descriptions_js", "from_openai_tools", "from_openai",
    "from_anthropic_tools", "from_claude", "from_langchain", "AuditConfig", "AuditEntry",
    "AuditCollector", "JSONTooDeep", "JSON_MAX_DEPTH", "RESULT_RULE",
    # errors
    "CapsaError", "LimitExceeded", "TimeLimitExceeded", "FuelExhausted", "Interrupted",
    "OutOfMemory",
    "GuestTrap", "ScriptError", "CapabilityError", "CallLimitExceededError", "ConstraintError",
    "MissingParamError", "TypeMismatchError", "ViolationError",
    "PolicyError", "ToolError", "ToolCallbackError", "ToolCallbackWarning", "ToolDefinitionError",
    "FilesError", "QuotaExceeded", "DirectoryNotEmptyError", "InvalidArgument", "CheckpointError",
    "TooManySandboxes", "ShellNotAvailable", "LibraryNotFoundError",
]
