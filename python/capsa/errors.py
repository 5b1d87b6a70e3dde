"""The exceptions of the capsa package, and the mapping from the library's status codes.

    CapsaError (RuntimeError)        every error raised by the package
    ├── LimitExceeded                a limit stopped the run (the sandbox was reset)
    │   ├── TimeLimitExceeded        CAPSA_ETIMEOUT; also a builtin TimeoutError
    │   ├── FuelExhausted            CAPSA_EFUEL
    │   ├── Interrupted              CAPSA_EINTERRUPTED: Sandbox.interrupt() stopped it
    │   └── OutOfMemory              CAPSA_ENOMEM; also a MemoryError
    ├── GuestTrap                    CAPSA_ETRAP: the guest trapped and was reset
    ├── ScriptError                  raised by RunResult.raise_for_error() (CAPSA_ESCRIPT)
    ├── CapabilityError              a call the policy refuses, or a bad policy
    │   ├── CallLimitExceededError   a capability's budget is spent (capability_key, max_calls)
    │   ├── ConstraintError          arguments fail a constraint
    │   │   ├── MissingParamError    a constrained or required parameter is missing (param)
    │   │   ├── TypeMismatchError    a parameter of the wrong type (param, expected, actual)
    │   │   └── ViolationError       a parameter fails its rule (param, rule, actual)
    │   └── PolicyError              a policy the library refuses to load (also ValueError)
    ├── ToolError                    raise it from a tool to fail the call with a code
    ├── ToolCallbackError            record of a tool callback that failed in Python
    ├── ToolDefinitionError          a tool the library refuses (also ValueError)
    ├── FilesError and subclasses    the files API (also the matching OSError)
    ├── InvalidArgument              CAPSA_EINVAL (also ValueError)
    ├── CheckpointError              a checkpoint refused, or one taken during a run (also ValueError)
    ├── TooManySandboxes             CAPSA_ETOOMANY
    └── ShellNotAvailable            a libcapsa.so older than the shell (also NotImplementedError)
"""

from __future__ import annotations

import errno as _errno
from typing import Any

from . import _lib


class CapsaError(RuntimeError):
    """Any error raised by capsa (a RuntimeError, as amla's errors are). ``code`` is the
    library status (0 when none applies), ``code_name`` its name ("CAPSA_ETIMEOUT")."""

    code: int = 0

    def __init__(self, message: str, *, code: int | None = None, result: Any = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.result = result  # the RunResult of the run that failed, when there is one

    @property
    def code_name(self) -> str:
        return f"CAPSA_{_CODE_NAMES.get(self.code, 'UNKNOWN')}" if self.code else ""


class LimitExceeded(CapsaError):
    """A host limit stopped the run; the sandbox lost its JS state (files are kept)."""


class TimeLimitExceeded(LimitExceeded, TimeoutError):
    """The run reached its wall-clock limit (``Limits.timeout_ms``)."""

    code = _lib.ETIMEOUT


class Interrupted(LimitExceeded):
    """``Sandbox.interrupt()``, from another thread, stopped the run as its time limit
    would have."""

    code = _lib.EINTERRUPTED


class FuelExhausted(LimitExceeded):
    """The run spent its instruction budget (``Limits.fuel``)."""

    code = _lib.EFUEL


class OutOfMemory(LimitExceeded, MemoryError):
    """The library ran out of memory."""

    code = _lib.ENOMEM


class GuestTrap(CapsaError):
    """The guest trapped (it was stopped and its memory restored from the image)."""

    code = _lib.ETRAP


class ScriptError(CapsaError):
    """The script threw; ``name``, ``message`` and ``stack`` are the JS error's."""

    code = _lib.ESCRIPT

    def __init__(self, name: str, message: str, stack: str | None = None, *, result: Any = None) -> None:
        super().__init__(f"{name}: {message}", result=result)
        self.name = name
        self.js_message = message
        self.stack = stack


class CapabilityError(CapsaError):
    """A tool call the capabilities do not allow (the message is the policy's)."""


class CallLimitExceededError(CapabilityError):
    """A capability's ``max_calls`` budget is spent (amla's fields: ``capability_key``,
    ``cap:tool-call:<pattern>``, and ``max_calls``; amla's message). ``policy_message``
    is the checker's own ("Call limit reached for 'x': 3 of 3 used")."""

    def __init__(self, capability_key: str, max_calls: int | None = None, *,
                 policy_message: str = "") -> None:
        super().__init__(f"Call limit exceeded for '{capability_key}': max {max_calls} calls allowed")
        self.capability_key = capability_key
        self.max_calls = max_calls
        self.policy_message = policy_message


class ConstraintError(CapabilityError):
    """Arguments that fail a capability's constraints (or a tool's required parameter
    missing). The subclasses below carry amla's fields; ``policy_message`` is the
    checker's explanation when the decision was the policy's."""

    policy_message: str = ""


class MissingParamError(ConstraintError):
    """A parameter a constraint or the tool's schema needs is missing (amla's)."""

    def __init__(self, param: str, *, policy_message: str = "") -> None:
        super().__init__(f"Missing parameter: {param}")
        self.param = param
        self.policy_message = policy_message


class TypeMismatchError(ConstraintError):
    """A parameter has the wrong type for its constraint (amla's)."""

    def __init__(self, param: str, expected: str, actual: str, *, policy_message: str = "") -> None:
        super().__init__(f"Type mismatch for {param}: expected {expected}, got {actual}")
        self.param = param
        self.expected = expected
        self.actual = actual
        self.policy_message = policy_message


class ViolationError(ConstraintError):
    """A parameter fails its constraint's rule (amla's)."""

    def __init__(self, param: str, rule: str, actual: str, *, policy_message: str = "") -> None:
        super().__init__(f"Constraint violation: {param} {rule}, actual: {actual}")
        self.param = param
        self.rule = rule
        self.actual = actual
        self.policy_message = policy_message


class PolicyError(CapabilityError, ValueError):
    """A capability or policy the library refuses to load (bad pattern, operator...)."""

    code = _lib.EINVAL


class ToolError(CapsaError):
    """Raise it from a tool to fail the call with a code of your choice: the script's
    ToolError gets ``error_code`` ([A-Za-z0-9_], at most 47 bytes) and the message.

        raise capsa.ToolError("no city named 'Xyz'", error_code="not_found")
    """

    def __init__(self, message: str, error_code: str = "tool_error") -> None:
        super().__init__(message)
        self.error_code = error_code


class ToolCallbackError(CapsaError):
    """The Python-side record of a tool call that failed in Python: the callback raised,
    or returned something that is not JSON. The script got a ToolError with
    ``error_code`` and this message; these are collected in ``RunResult.tool_errors``
    (the original exception is ``__cause__``)."""

    def __init__(self, message: str, *, tool: str, error_code: str) -> None:
        super().__init__(message)
        self.tool = tool
        self.error_code = error_code


class ToolCallbackWarning(UserWarning):
    """Warned when a tool callback raises unexpectedly or returns a non-JSON value."""


class ToolDefinitionError(CapsaError, ValueError):
    """A tool the library refuses to register (bad name, bad schema, name taken)."""


class InvalidArgument(CapsaError, ValueError):
    """The library refused an argument (CAPSA_EINVAL)."""

    code = _lib.EINVAL


class CheckpointError(CapsaError, ValueError):
    """``Sandbox.checkpoint`` during a run, or ``Sandbox.restore`` of bytes that are not
    a checkpoint of this build (corrupt, truncated, another version), or whose tools
    have no handler; the message is the library's."""


class TooManySandboxes(CapsaError):
    """Too many live sandboxes (CAPSA_ETOOMANY)."""

    code = _lib.ETOOMANY


class ShellNotAvailable(CapsaError, NotImplementedError):
    """The loaded libcapsa.so has no shell (``capsa_shell``): it is older than the
    package. Raised by ``shell``/``run_shell``; a current build has the shell."""


class FilesError(CapsaError, OSError):
    """An error of the files API; also an OSError with ``errno`` set."""

    def __init__(self, message: str, *, code: int | None = None, path: str = "") -> None:
        CapsaError.__init__(self, message, code=code)
        self.errno = _ERRNO.get(self.code, _errno.EIO)
        self.strerror = message
        self.filename = path

    def __str__(self) -> str:
        return self.strerror


class SandboxFileNotFoundError(FilesError, FileNotFoundError):
    code = _lib.ENOENT


class SandboxFileExistsError(FilesError, FileExistsError):
    code = _lib.EEXIST


class SandboxNotADirectoryError(FilesError, NotADirectoryError):
    code = _lib.ENOTDIR


class SandboxIsADirectoryError(FilesError, IsADirectoryError):
    code = _lib.EISDIR


class DirectoryNotEmptyError(FilesError):
    code = _lib.ENOTEMPTY


class QuotaExceeded(FilesError):
    """The sandbox's filesystem quota is exceeded (CAPSA_ENOSPC)."""

    code = _lib.ENOSPC


_CODE_NAMES = {
    0: "OK", 1: "EINVAL", 2: "ENOMEM", 3: "ESCRIPT", 4: "ETRAP", 5: "ETOOBIG", 6: "EGUEST",
    7: "EIO", 8: "ETIMEOUT", 9: "EFUEL", 10: "ETOOMANY", 11: "ENOENT", 12: "EEXIST",
    13: "ENOTDIR", 14: "EISDIR", 15: "ENOTEMPTY", 16: "ENOSPC", 17: "PENDING",
    18: "EINTERRUPTED",
}

_ERRNO = {
    _lib.ENOENT: _errno.ENOENT, _lib.EEXIST: _errno.EEXIST, _lib.ENOTDIR: _errno.ENOTDIR,
    _lib.EISDIR: _errno.EISDIR, _lib.ENOTEMPTY: _errno.ENOTEMPTY, _lib.ENOSPC: _errno.ENOSPC,
    _lib.EINVAL: _errno.EINVAL, _lib.EIO: _errno.EIO, _lib.ETOOBIG: _errno.EFBIG,
}

_FILES = {
    _lib.ENOENT: SandboxFileNotFoundError, _lib.EEXIST: SandboxFileExistsError,
    _lib.ENOTDIR: SandboxNotADirectoryError, _lib.EISDIR: SandboxIsADirectoryError,
    _lib.ENOTEMPTY: DirectoryNotEmptyError, _lib.ENOSPC: QuotaExceeded,
}

_GENERAL: dict[int, type[CapsaError]] = {
    _lib.ETIMEOUT: TimeLimitExceeded, _lib.EFUEL: FuelExhausted, _lib.ENOMEM: OutOfMemory,
    _lib.EINTERRUPTED: Interrupted,
    _lib.ETRAP: GuestTrap, _lib.EINVAL: InvalidArgument, _lib.ETOOMANY: TooManySandboxes,
}


def errname(code: int) -> str:
    """The library's name of a status code ("CAPSA_ENOMEM")."""
    return f"CAPSA_{_CODE_NAMES.get(code, 'UNKNOWN')}"


def error_for(code: int, message: str, *, result: Any = None) -> CapsaError:
    """The exception for a library status code and its detail message."""
    cls = _GENERAL.get(code, CapsaError)
    return cls(message, code=code, result=result)


def files_error(code: int, message: str, path: str) -> CapsaError:
    """The exception for a failed files call (an OSError subclass where one fits)."""
    cls = _FILES.get(code)
    if cls is not None:
        return cls(message, code=code, path=path)
    if code in (_lib.EIO, _lib.ETOOBIG):
        return FilesError(message, code=code, path=path)
    return error_for(code, message)
