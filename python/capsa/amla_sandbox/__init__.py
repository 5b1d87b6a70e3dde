"""amla_sandbox on capsa: amla-sandbox 0.1.x's public API, module by module, as a thin
layer over capsa's Python API.

A program written for amla-sandbox runs on capsa when ``import amla_sandbox`` finds
this package, which one line arranges (it does nothing when the real amla-sandbox is
installed)::

    import capsa.as_amla_sandbox  # noqa: F401  (then: from amla_sandbox import ...)

or, for a program left as it is: ``python3 -m capsa.amla_sandbox program.py [args]``.
Without the alias, ``from capsa.amla_sandbox import Sandbox, create_sandbox_tool`` works
too. docs/amla-compat.md lists every public name of amla-sandbox 0.1.7 and what it is
here; where amla is unsafe or wrong capsa keeps its own behaviour (a bare ``Sandbox()``
grants nothing; constraint strings it does not understand raise).
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import sys

from .audit import AuditCollector, AuditConfig, AuditEntry
from .bash_tool import DEFAULT_MAX_CALLS, create_bash_tool, create_sandbox_tool
from .capabilities import (
    METHOD_CAPABILITY_TYPE,
    TOOL_CALL_CAP_TYPE,
    CallLimitExceededError,
    CapabilityError,
    Constraint,
    ConstraintError,
    ConstraintSet,
    MethodCapability,
    MissingParamError,
    Param,
    ToolCallCap,
    TypeMismatchError,
    ViolationError,
    method_matches_pattern,
    pattern_is_subset,
)
from .codeact import JS_CODEACT_PROMPT, create_amla_codeact, create_amla_sandbox
from .langgraph import ExecutionResult, SandboxTool
from .runtime import Runtime, RuntimeConfig, RuntimeError, RuntimeStatus  # noqa: A004
from .runtime.wasm import AsyncToolHandler, SyncToolHandler, ToolHandler, precompile_module
from .sandbox import Sandbox
from .tools import (
    ToolDefinition,
    capability_from_function,
    create_tool_handler,
    format_tool_descriptions_js,
    from_anthropic_tools,
    from_claude,
    from_langchain,
    from_openai,
    from_openai_tools,
    tool_from_function,
)

__version__ = "0.1.7"
"""The amla-sandbox release whose API this package follows."""

__all__ = [
    "create_sandbox_tool", "create_bash_tool", "DEFAULT_MAX_CALLS", "create_amla_codeact",
    "create_amla_sandbox", "JS_CODEACT_PROMPT", "format_tool_descriptions_js", "SandboxTool",
    "ExecutionResult", "ToolDefinition", "tool_from_function", "capability_from_function",
    "create_tool_handler", "from_langchain", "from_openai_tools", "from_openai",
    "from_anthropic_tools", "from_claude", "Sandbox", "Runtime", "RuntimeConfig",
    "RuntimeError", "RuntimeStatus", "ToolHandler", "SyncToolHandler", "AsyncToolHandler",
    "ToolCallCap", "TOOL_CALL_CAP_TYPE", "MethodCapability", "METHOD_CAPABILITY_TYPE",
    "Constraint", "ConstraintSet", "Param", "CapabilityError", "CallLimitExceededError",
    "ConstraintError", "MissingParamError", "TypeMismatchError", "ViolationError",
    "method_matches_pattern", "pattern_is_subset", "AuditCollector", "AuditConfig",
    "AuditEntry", "precompile_module", "install",
]

ALIAS = "amla_sandbox"


def install() -> bool:
    """Makes ``import amla_sandbox`` (and every ``amla_sandbox.<submodule>``) resolve to
    this package, unless the real amla-sandbox is importable, which is left alone.
    True when the alias is in place (now or already)."""
    current = sys.modules.get(ALIAS)
    if current is not None:
        return current is sys.modules[__name__]
    if importlib.util.find_spec(ALIAS) is not None:
        return False
    sys.modules[ALIAS] = sys.modules[__name__]
    for info in pkgutil.walk_packages(__path__, prefix=f"{__name__}."):
        if info.name.rsplit(".", 1)[-1].startswith("_"):
            continue
        module = importlib.import_module(info.name)
        sys.modules[ALIAS + info.name[len(__name__):]] = module
    return True
