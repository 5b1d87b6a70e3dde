"""Capabilities: what a sandbox's scripts may call, with which arguments, how often.

The classes here (``Param``, ``Constraint``, ``ConstraintSet``, ``ToolCallCap`` and its
older name ``MethodCapability``) mirror amla-sandbox's and only *describe* a policy:
they build the library's policy JSON. Every decision -- a script's call,
``Sandbox.can_call``, ``ToolCallCap.validate_call``, ``ConstraintSet.evaluate`` -- is
made by the C checker (``capsa_policy_check``), never by Python.

The exception is ``is_subset_of`` (attenuation: does a child grant no more than its
parent?), which the library does not offer and is decided here, conservatively: it
answers True only when it can show that every call the child allows, the parent allows
too; when unsure (e.g. a child "**/x" under a parent "*/**", or constraints of kinds it
cannot compare) it answers False. Unlike amla, every constraint of the parent must be
implied by the child's constraints: a child that drops a parent's constraint on another
parameter is not a subset.

Semantics (the library's): patterns split tool names into segments on '.', the canonical
separator, and on '/', the same separator written another way ("github.*" and "github/*"
are one pattern; '*' is one segment, '**' any number); a missing or null parameter fails
every constraint
but ``not_exists``; values of different types never compare; budgets (``max_calls``)
are per sandbox and last across runs.
"""

from __future__ import annotations

import ctypes
import json
import math
import re
import threading
from dataclasses import dataclass, field
from typing import Any, Iterable, Literal, Sequence

from . import _lib
from .errors import (
    CallLimitExceededError,
    CapabilityError,
    ConstraintError,
    MissingParamError,
    PolicyError,
    TypeMismatchError,
    ViolationError,
)

__all__ = [
    "Constraint", "ConstraintSet", "Param", "ToolCallCap", "MethodCapability",
    "method_matches_pattern", "pattern_is_subset", "policy_json", "TOOL_CALL_CAP_TYPE",
    "METHOD_CAPABILITY_TYPE", "strip_mcp", "MissingParamError", "TypeMismatchError",
    "ViolationError", "ConstraintError", "CapabilityError", "CallLimitExceededError",
]

TOOL_CALL_CAP_TYPE = "tool-call"
METHOD_CAPABILITY_TYPE = "method"

ConstraintType = Literal["lt", "le", "gt", "ge", "eq", "ne", "in", "not_in", "starts_with",
                         "ends_with", "contains", "exists", "not_exists", "and", "or"]

_OPS = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!=", "in": "in",
        "not_in": "not_in", "starts_with": "starts_with", "ends_with": "ends_with",
        "contains": "contains", "exists": "exists", "not_exists": "not_exists"}
_TYPES = {v: k for k, v in _OPS.items()}


@dataclass
class Constraint:
    """One constraint on one parameter (or an and/or of constraints), as amla's.

    Build them with ``Param``: ``Param("amount") <= 100``. ``param`` is a path into the
    arguments ("amount", "body/items/0/id"; a leading "/" is accepted).
    """

    type: ConstraintType
    param: str = ""
    value: Any = None
    values: list[Any] = field(default_factory=list)
    prefix: str = ""
    suffix: str = ""
    substring: str = ""
    constraints: list["Constraint"] = field(default_factory=list)

    # Factories, as amla's.
    @classmethod
    def lt(cls, param: str, value: Any) -> "Constraint":
        return cls(type="lt", param=param, value=value)

    @classmethod
    def le(cls, param: str, value: Any) -> "Constraint":
        return cls(type="le", param=param, value=value)

    @classmethod
    def gt(cls, param: str, value: Any) -> "Constraint":
        return cls(type="gt", param=param, value=value)

    @classmethod
    def ge(cls, param: str, value: Any) -> "Constraint":
        return cls(type="ge", param=param, value=value)

    @classmethod
    def eq(cls, param: str, value: Any) -> "Constraint":
        return cls(type="eq", param=param, value=value)

    @classmethod
    def ne(cls, param: str, value: Any) -> "Constraint":
        return cls(type="ne", param=param, value=value)

    @classmethod
    def is_in(cls, param: str, values: Iterable[Any]) -> "Constraint":
        return cls(type="in", param=param, values=list(values))

    @classmethod
    def not_in(cls, param: str, values: Iterable[Any]) -> "Constraint":
        return cls(type="not_in", param=param, values=list(values))

    @classmethod
    def starts_with(cls, param: str, prefix: str) -> "Constraint":
        return cls(type="starts_with", param=param, prefix=prefix)

    @classmethod
    def ends_with(cls, param: str, suffix: str) -> "Constraint":
        return cls(type="ends_with", param=param, suffix=suffix)

    @classmethod
    def contains(cls, param: str, substring: Any) -> "Constraint":
        return cls(type="contains", param=param, substring=substring)

    @classmethod
    def exists(cls, param: str) -> "Constraint":
        return cls(type="exists", param=param)

    @classmethod
    def not_exists(cls, param: str) -> "Constraint":
        return cls(type="not_exists", param=param)

    @classmethod
    def and_(cls, constraints: Iterable["Constraint"]) -> "Constraint":
        return cls(type="and", constraints=list(constraints))

    @classmethod
    def or_(cls, constraints: Iterable["Constraint"]) -> "Constraint":
        return cls(type="or", constraints=list(constraints))

    # The library's format.
    @property
    def operand(self) -> Any:
        """The value the operator compares with, whichever field holds it."""
        t = self.type
        if t in ("in", "not_in"):
            return self.values
        if t == "starts_with":
            return self.prefix
        if t == "ends_with":
            return self.suffix
        if t == "contains":
            return self.substring
        return self.value

    @property
    def param_name(self) -> str | None:
        """The parameter path (without a leading '/'); None for and/or."""
        return None if self.type in ("and", "or") else _norm(self.param)

    def referenced_params(self) -> list[str]:
        if self.type in ("and", "or"):
            return [p for c in self.constraints for p in c.referenced_params()]
        return [_norm(self.param)]

    def to_policy(self) -> dict[str, Any]:
        """The constraint as the library's policy JSON object."""
        if self.type in ("and", "or"):
            if not self.constraints:
                raise PolicyError(f"an empty '{self.type}' constraint")
            return {self.type: [c.to_policy() for c in self.constraints]}
        if self.type not in _OPS:
            raise PolicyError(f"unknown constraint type {self.type!r}")
        if not isinstance(self.param, str) or not self.param:
            raise PolicyError(f"constraint {self.type!r} needs a parameter name")
        out: dict[str, Any] = {"param": _norm(self.param), "op": _OPS[self.type]}
        if self.type not in ("exists", "not_exists"):
            out["value"] = _json_value(self.operand, f"{self.param} {_OPS[self.type]}")
        return out

    def to_dict(self) -> dict[str, Any]:
        """amla's form: ``type``, and of ``param``, ``value``, ``values``, ``prefix``,
        ``suffix``, ``substring``, ``constraints`` those that are set."""
        out: dict[str, Any] = {"type": self.type}
        if self.param:
            out["param"] = self.param
        if self.value is not None:
            out["value"] = self.value
        for name in ("values", "prefix", "suffix", "substring"):
            if getattr(self, name):
                out[name] = getattr(self, name)
        if self.constraints:
            out["constraints"] = [c.to_dict() for c in self.constraints]
        return out

    @classmethod
    def from_dict(cls, obj: dict[str, Any]) -> "Constraint":
        """From amla's form (``type``) or the library's policy form (``op``, ``and``, ``or``)."""
        if not isinstance(obj, dict):
            raise PolicyError(f"a constraint must be a dict, not {type(obj).__name__}: {obj!r}")
        if "type" not in obj:
            return cls.from_policy(obj)
        t = obj["type"]
        if t not in _OPS and t not in ("and", "or"):
            raise PolicyError(f"unknown constraint type {t!r}")
        values, kids = obj.get("values") or [], obj.get("constraints") or []
        if not isinstance(values, list) or not isinstance(kids, list):
            raise PolicyError(f"constraint {t!r}: 'values' and 'constraints' must be lists")
        return cls(type=t, param=obj.get("param", ""), value=obj.get("value"),
                   values=list(values), prefix=obj.get("prefix", ""),
                   suffix=obj.get("suffix", ""), substring=obj.get("substring", ""),
                   constraints=[cls.from_dict(c) for c in kids])

    @classmethod
    def from_policy(cls, obj: dict[str, Any]) -> "Constraint":
        """The inverse of ``to_policy``."""
        if "and" in obj or "or" in obj:
            kind = "and" if "and" in obj else "or"
            return cls(type=kind, constraints=[cls.from_policy(c) for c in obj[kind]])
        t = _TYPES.get(obj.get("op", ""))
        if t is None:
            raise PolicyError(f"unknown constraint operator {obj.get('op')!r}")
        c = cls(type=t, param=obj.get("param", ""))  # type: ignore[arg-type]
        v = obj.get("value")
        if t in ("in", "not_in"):
            c.values = list(v or [])
        elif t == "starts_with":
            c.prefix = v
        elif t == "ends_with":
            c.suffix = v
        elif t == "contains":
            c.substring = v
        else:
            c.value = v
        return c

    def evaluate(self, params: dict[str, Any]) -> None:
        """Raises ConstraintError when params fail this constraint (checked in C)."""
        ConstraintSet([self]).evaluate(params)

    def subsumes(self, other: "Constraint") -> bool:
        """Whether every value that satisfies ``other`` satisfies this one (conservative)."""
        return _implies(other, self)

    def __str__(self) -> str:
        if self.type in ("and", "or"):
            return "(" + f" {self.type} ".join(str(c) for c in self.constraints) + ")"
        if self.type in ("exists", "not_exists"):
            return f"{self.param} {self.type}"
        return f"{self.param} {_OPS.get(self.type, self.type)} {json.dumps(self.operand)}"


class ConstraintSet:
    """Constraints that must all hold (an implicit "and"), as amla's."""

    def __init__(self, constraints: Iterable[Constraint] | None = None) -> None:
        items = list(constraints) if constraints else []
        for c in items:
            if not isinstance(c, Constraint):
                raise TypeError(f"ConstraintSet takes Constraint objects (from Param(...) <= 10 ...), "
                                f"not {type(c).__name__}: {c!r}")
        self.constraints: list[Constraint] = items

    def is_empty(self) -> bool:
        return not self.constraints

    def __len__(self) -> int:
        return len(self.constraints)

    def __iter__(self) -> Any:
        return iter(self.constraints)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ConstraintSet) and self.constraints == other.constraints

    def __repr__(self) -> str:
        return f"ConstraintSet({self.constraints!r})"

    def to_policy(self) -> list[dict[str, Any]]:
        """The list as the library's policy JSON."""
        return [c.to_policy() for c in self.constraints]

    def evaluate(self, params: dict[str, Any]) -> None:
        """Raises ConstraintError with the checker's message when params fail (checked in C)."""
        allowed, message = _checker.check([{"pattern": "**", "constraints": self.to_policy()}],
                                          "constraint_check", params)
        if not allowed:
            desc = _strip_method(message)
            raise constraint_error(desc, desc)

    def subsumes(self, child: "ConstraintSet") -> bool:
        """Whether every call ``child`` allows, this set allows too (conservative)."""
        return all(_implied_by_all(child.constraints, p) for p in self.constraints)

    def extend(self, other: "ConstraintSet") -> None:
        self.constraints.extend(other.constraints)

    def merge(self, other: "ConstraintSet") -> "ConstraintSet":
        return ConstraintSet(self.constraints + other.constraints)


class Param:
    """Builds constraints with operators, as amla's: ``Param("amount") <= 10000``,
    ``Param("currency").is_in(["USD", "EUR"])``, ``Param("path").starts_with("/api/")``.

    ``==`` and ``!=`` build constraints too, so Param objects are not hashable.
    """

    __hash__ = None  # type: ignore[assignment]

    def __init__(self, name: str) -> None:
        if not isinstance(name, str) or not name:
            raise TypeError("Param needs a non-empty parameter name (a str)")
        self.name = name

    def __lt__(self, value: Any) -> Constraint:
        return Constraint.lt(self.name, value)

    def __le__(self, value: Any) -> Constraint:
        return Constraint.le(self.name, value)

    def __gt__(self, value: Any) -> Constraint:
        return Constraint.gt(self.name, value)

    def __ge__(self, value: Any) -> Constraint:
        return Constraint.ge(self.name, value)

    def __eq__(self, value: Any) -> Constraint:  # type: ignore[override]
        return Constraint.eq(self.name, value)

    def __ne__(self, value: Any) -> Constraint:  # type: ignore[override]
        return Constraint.ne(self.name, value)

    def is_in(self, values: Iterable[Any]) -> Constraint:
        return Constraint.is_in(self.name, values)

    def not_in(self, values: Iterable[Any]) -> Constraint:
        return Constraint.not_in(self.name, values)

    def starts_with(self, prefix: str) -> Constraint:
        return Constraint.starts_with(self.name, prefix)

    def ends_with(self, suffix: str) -> Constraint:
        return Constraint.ends_with(self.name, suffix)

    def contains(self, substring: Any) -> Constraint:
        return Constraint.contains(self.name, substring)

    def exists(self) -> Constraint:
        return Constraint.exists(self.name)

    def not_exists(self) -> Constraint:
        return Constraint.not_exists(self.name)

    def __repr__(self) -> str:
        return f"Param({self.name!r})"


@dataclass
class ToolCallCap:
    """Permission to call tools matching ``method_pattern``, with constraints on the
    arguments and an optional budget of calls (amla's ToolCallCap).

    The key (for ``Sandbox.get_remaining_calls``) is ``cap:tool-call:<pattern>``; the
    bare pattern and ``cap:method:<pattern>`` are accepted too.
    """

    method_pattern: str
    constraints: ConstraintSet = field(default_factory=ConstraintSet)
    max_calls: int | None = None
    input_schema: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.method_pattern, str) or not self.method_pattern:
            raise TypeError("method_pattern must be a non-empty str such as 'stripe/charges/*'")
        if self.constraints is None:
            self.constraints = ConstraintSet()
        elif isinstance(self.constraints, (list, tuple)):
            self.constraints = ConstraintSet(self.constraints)
        elif not isinstance(self.constraints, ConstraintSet):
            raise TypeError(f"constraints must be a ConstraintSet or a list of constraints, "
                            f"not {type(self.constraints).__name__}")
        if self.max_calls is not None and (not isinstance(self.max_calls, int)
                                           or isinstance(self.max_calls, bool) or self.max_calls < 0):
            raise TypeError("max_calls must be None (unlimited) or an int >= 0")

    def key(self) -> str:
        return f"cap:{TOOL_CALL_CAP_TYPE}:{self.method_pattern}"

    def to_policy(self) -> dict[str, Any]:
        """This capability as one entry of the library's policy JSON."""
        out: dict[str, Any] = {"pattern": strip_mcp(self.method_pattern)}
        if not self.constraints.is_empty():
            out["constraints"] = self.constraints.to_policy()
        if self.max_calls:
            out["max_calls"] = self.max_calls
        return out

    def validate_call(self, method: str, params: dict[str, Any] | None = None) -> None:
        """Raises CapabilityError (ConstraintError for a failed constraint) unless this
        capability allows the call. The budget is not checked (as amla). Checked in C."""
        entry = {k: v for k, v in self.to_policy().items() if k != "max_calls"}
        allowed, message = _checker.check([entry], strip_mcp(method), params)
        if not allowed:
            raise_for_denial(message)

    def allows(self, method: str, params: dict[str, Any] | None = None) -> bool:
        """validate_call as a bool."""
        try:
            self.validate_call(method, params)
            return True
        except CapabilityError:
            return False

    def is_subset_of(self, parent: "ToolCallCap") -> bool:
        """Whether this capability grants no more than ``parent`` (attenuation).

        Conservative (False when unsure): the pattern must be provably narrower, every
        parent constraint implied by this one's, and the budget no larger.
        """
        if not pattern_is_subset(strip_mcp(self.method_pattern), strip_mcp(parent.method_pattern)):
            return False
        if not parent.constraints.subsumes(self.constraints):
            return False
        if parent.max_calls is not None:
            if self.max_calls is None or self.max_calls > parent.max_calls:
                return False
        return True

    def to_dict(self) -> dict[str, Any]:
        """amla's serialisation: ``method_pattern`` as given, ``constraints`` as a list of
        amla's constraint dicts (``{"type": "le", "param": "amount", "value": 100}``),
        ``max_calls`` and ``input_schema`` when set. ``from_dict`` reads it back."""
        out: dict[str, Any] = {"method_pattern": self.method_pattern}
        if not self.constraints.is_empty():
            out["constraints"] = [c.to_dict() for c in self.constraints.constraints]
        if self.max_calls is not None:
            out["max_calls"] = self.max_calls
        if self.input_schema is not None:
            out["input_schema"] = self.input_schema
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ToolCallCap":
        """From ``to_dict``'s output (amla's format) or one entry of a policy file
        (``pattern``, constraints with ``op``)."""
        if not isinstance(data, dict):
            raise TypeError(f"a capability dict is needed, not {type(data).__name__}")
        pattern = data.get("method_pattern", data.get("pattern"))
        raw = data.get("constraints", [])
        if not isinstance(raw, list):
            raise PolicyError("'constraints' must be a list of constraint dicts")
        cons = [Constraint.from_dict(c) for c in raw]
        return cls(method_pattern=pattern, constraints=ConstraintSet(cons),
                   max_calls=data.get("max_calls"), input_schema=data.get("input_schema"))


class MethodCapability(ToolCallCap):
    """amla's older name of ToolCallCap; its key is ``cap:method:<pattern>``."""

    def key(self) -> str:
        return f"cap:{METHOD_CAPABILITY_TYPE}:{self.method_pattern}"


def pattern_of_key(key: str) -> str:
    """The pattern of a capability key ("cap:method:x/*" -> "x/*"); a bare pattern as is;
    amla's ``mcp:`` prefix dropped ("cap:tool-call:mcp:x" -> "x")."""
    for prefix in (f"cap:{TOOL_CALL_CAP_TYPE}:", f"cap:{METHOD_CAPABILITY_TYPE}:"):
        if key.startswith(prefix):
            return strip_mcp(key[len(prefix):])
    return strip_mcp(key)


def strip_mcp(name: str) -> str:
    """A tool name or pattern without amla's ``mcp:`` prefix (amla names the tools it
    ingests "mcp:<name>"; here the prefix means the same tool as the bare name)."""
    return name[4:] if isinstance(name, str) and name.startswith("mcp:") else name


def as_capability(item: Any) -> ToolCallCap:
    """A capability from what users pass: a ToolCallCap, a pattern string, or a dict."""
    if isinstance(item, ToolCallCap):
        return item
    if isinstance(item, str):
        return ToolCallCap(method_pattern=item)
    if isinstance(item, dict):
        return ToolCallCap.from_dict(item)
    raise TypeError(f"a capability must be a ToolCallCap, a pattern string or a dict, "
                    f"not {type(item).__name__}: {item!r}")


def policy_json(capabilities: Sequence[ToolCallCap]) -> str:
    """The library's policy file for these capabilities. A capability with
    ``max_calls=0`` allows nothing and is left out (the format has no zero budget)."""
    entries = [c.to_policy() for c in capabilities if c.max_calls != 0]
    return json.dumps({"capabilities": entries}, allow_nan=False)


def method_matches_pattern(method: str, pattern: str) -> bool:
    """Whether a tool name matches a pattern (decided by the C checker)."""
    allowed, _ = _checker.check([{"pattern": strip_mcp(pattern)}], strip_mcp(method), None)
    return allowed


def pattern_is_subset(child: str, parent: str) -> bool:
    """Whether every name ``child`` matches, ``parent`` matches too (conservative)."""
    return _segments_subset(_split(strip_mcp(child)), _split(strip_mcp(parent)))


# ---- implementation ----------------------------------------------------------------------


def _split(pattern: str) -> list[str]:
    return [] if pattern == "" else re.split(r"[./]", pattern)


def _segments_subset(c: list[str], p: list[str]) -> bool:
    if not p:
        return not c
    if p[0] == "**":
        return any(_segments_subset(c[i:], p[1:]) for i in range(len(c) + 1))
    if not c or c[0] == "**":
        return False  # unsure (or false): the child may match more than one segment here
    if p[0] == "*":
        return _segments_subset(c[1:], p[1:])
    return c[0] == p[0] and c[0] != "*" and _segments_subset(c[1:], p[1:])


def _norm(path: str) -> str:
    return path[1:] if isinstance(path, str) and path.startswith("/") else path


def _json_value(v: Any, what: str) -> Any:
    try:
        json.dumps(v, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise PolicyError(f"constraint {what}: the value {v!r} is not JSON ({exc})") from None
    return v


def _strip_method(message: str) -> str:
    return message.replace("'constraint_check' matched '**' but failed: ", "")


def _kind(v: Any) -> str:
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, (list, tuple)):
        return "array"
    if isinstance(v, dict):
        return "object"
    return "other"


def _same(a: Any, b: Any) -> bool:
    """JSON equality as the checker sees it (True is not 1)."""
    if _kind(a) != _kind(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


def _num(v: Any) -> bool:
    return _kind(v) == "number" and not (isinstance(v, float) and math.isnan(v))


def _allowed_values(c: Constraint) -> list[Any] | None:
    """The finite set of values c allows, when it is one."""
    if c.type == "eq":
        return [c.value]
    if c.type == "in":
        return list(c.values)
    return None


def _value_implies(v: Any, p: Constraint) -> bool:
    """Whether the parameter value v (known exactly) satisfies the atomic p."""
    t, o = p.type, p.operand
    if v is None:
        return t == "not_exists"
    if t == "exists":
        return True
    if t == "not_exists":
        return False
    if t in ("lt", "le", "gt", "ge"):
        if not (_num(v) and _num(o)):
            return False
        return {"lt": v < o, "le": v <= o, "gt": v > o, "ge": v >= o}[t]
    if t == "eq":
        return _same(v, o)
    if t == "ne":
        return _kind(v) == _kind(o) and not _same(v, o)
    if t == "in":
        return any(_same(v, x) for x in o)
    if t == "not_in":
        return any(_kind(v) == _kind(x) for x in o) and not any(_same(v, x) for x in o)
    if t == "starts_with":
        return isinstance(v, str) and isinstance(o, str) and v.startswith(o)
    if t == "ends_with":
        return isinstance(v, str) and isinstance(o, str) and v.endswith(o)
    if t == "contains":
        if isinstance(v, str):
            return isinstance(o, str) and o in v
        if isinstance(v, list):
            return any(_same(x, o) for x in v)
    return False


def _atomic_implies(c: Constraint, p: Constraint) -> bool:
    """Whether every parameter value satisfying c satisfies p (same parameter)."""
    if c.param_name != p.param_name:
        return False
    values = _allowed_values(c)
    if values is not None:
        return bool(values) and all(_value_implies(v, p) for v in values)
    ct, pt, co, po = c.type, p.type, c.operand, p.operand
    if pt == "exists":
        return ct != "not_exists"
    if ct == "not_exists" or pt == "not_exists":
        return ct == pt
    if ct == pt and ct in ("ne", "contains"):
        return _same(co, po)
    if pt in ("le", "lt") and ct in ("le", "lt") and _num(co) and _num(po):
        return co < po or (co == po and (pt == "le" or ct == "lt"))
    if pt in ("ge", "gt") and ct in ("ge", "gt") and _num(co) and _num(po):
        return co > po or (co == po and (pt == "ge" or ct == "gt"))
    if ct == pt == "starts_with":
        return isinstance(co, str) and isinstance(po, str) and co.startswith(po)
    if ct == pt == "ends_with":
        return isinstance(co, str) and isinstance(po, str) and co.endswith(po)
    if ct == pt == "not_in":
        kinds = {_kind(x) for x in po}
        return ({_kind(x) for x in co} <= kinds
                and all(any(_same(x, y) for y in co) for x in po))
    return False


def _implies(c: Constraint, p: Constraint) -> bool:
    """Whether constraint c implies constraint p (conservative)."""
    if c.type == "and":
        return _implied_by_all(c.constraints, p)
    if c.type == "or":
        return bool(c.constraints) and all(_implies(x, p) for x in c.constraints)
    if p.type == "and":
        return bool(p.constraints) and all(_implies(c, x) for x in p.constraints)
    if p.type == "or":
        return any(_implies(c, x) for x in p.constraints)
    return _atomic_implies(c, p)


def _implied_by_all(cs: Sequence[Constraint], p: Constraint) -> bool:
    """Whether the conjunction cs implies p (conservative)."""
    if p.type == "and":
        return all(_implied_by_all(cs, x) for x in p.constraints)
    if p.type == "or" and any(_implied_by_all(cs, x) for x in p.constraints):
        return True
    return any(_implies(c, p) for c in cs)


class _Checker:
    """A private sandbox whose policy is replaced for each dry-run check, so that
    validate_call and friends are decided by the library's checker."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sb: int | None = None

    def _sandbox(self) -> int:
        if self._sb is None:
            from .engine import default_engine

            lib = _lib.lib()
            handle = ctypes.c_void_p()
            rc = lib.capsa_sandbox_new(default_engine().handle, None, ctypes.byref(handle))
            if rc != _lib.OK:
                raise CapabilityError(f"cannot make the checker sandbox: {lib.capsa_errstr(rc).decode()}")
            self._sb = handle.value
        return self._sb

    def check(self, entries: list[dict[str, Any]], method: str, params: Any) -> tuple[bool, str]:
        if not isinstance(method, str):
            raise TypeError(f"method must be a str, not {type(method).__name__}")
        args = None if params is None else _dumps_args(params)
        policy = json.dumps({"capabilities": entries}).encode()
        lib = _lib.lib()
        with self._lock:
            sb = self._sandbox()
            rc = lib.capsa_policy_set(sb, policy, len(policy))
            if rc != _lib.OK:
                raise PolicyError(lib.capsa_errmsg(sb).decode("utf-8", "replace"))
            return _policy_check(sb, method, args)


def _dumps_args(params: Any) -> bytes:
    if not isinstance(params, dict):
        raise TypeError(f"params must be a dict, not {type(params).__name__}")
    try:
        return json.dumps(params, allow_nan=False).encode()
    except (TypeError, ValueError) as exc:
        raise TypeError(f"params are not JSON-serialisable: {exc}") from None


def _policy_check(sb: int, method: str, args: bytes | None) -> tuple[bool, str]:
    """capsa_policy_check on a sandbox: (allowed, the policy's message)."""
    lib = _lib.lib()
    allowed = ctypes.c_int(0)
    msg = ctypes.create_string_buffer(2048)
    rc = lib.capsa_policy_check(sb, method.encode(), args, len(args) if args else 0,
                                ctypes.byref(allowed), msg, len(msg))
    if rc != _lib.OK:
        raise CapabilityError(lib.capsa_errmsg(sb).decode("utf-8", "replace"))
    return bool(allowed.value), msg.value.decode("utf-8", "replace")


def raise_for_denial(message: str) -> None:
    """Raises the CapabilityError subclass that fits a policy message."""
    raise denial_error(message)


_LIMIT = re.compile(r"^Call limit reached for '(.*)': \d+ of (\d+) used$", re.S)
_LEAF = re.compile(r"^(\S+) (\S+)(?: (.*))? \(got (.*)\)$", re.S)


def denial_error(message: str) -> CapabilityError:
    """The exception for the checker's message on a refused call, with amla's classes
    and fields: CallLimitExceededError(capability_key, max_calls) for a spent budget,
    MissingParamError / TypeMismatchError / ViolationError for a failed constraint,
    CapabilityError when no capability matches. The decision itself is the C checker's:
    this only reads its explanation."""
    m = _LIMIT.match(message)
    if m:
        key = f"cap:{TOOL_CALL_CAP_TYPE}:{m.group(1)}"
        return CallLimitExceededError(key, int(m.group(2)), policy_message=message)
    head, sep, desc = message.partition(" but failed: ")
    if sep:
        return constraint_error(desc, message)
    return CapabilityError(message)


def constraint_error(desc: str, message: str) -> ConstraintError:
    """A ConstraintError subclass for one failure description of the checker
    ("amount <= 1000 (got 5000)", "q starts_with \"SELECT\" (got missing)")."""
    m = _LEAF.match(desc)
    if m is None or desc.count(" (got ") != 1:
        # An "or" (its parts joined with " or "), or a description we cannot split.
        param = desc.split(" ", 1)[0] if desc else "(or)"
        return ViolationError(param, desc, "", policy_message=message)
    param, op, value, actual = m.group(1), m.group(2), m.group(3), m.group(4)
    if actual == "missing":
        return MissingParamError(param, policy_message=message)
    if op in ("starts_with", "ends_with") or (op == "contains" and actual[:1] != "["):
        if actual[:1] != '"':
            return TypeMismatchError(param, "string", _json_kind(actual), policy_message=message)
    rule = op if value is None else f"{op} {value}"
    return ViolationError(param, rule, actual, policy_message=message)


def _json_kind(text: str) -> str:
    """The JSON type of a value's text as the checker writes it."""
    c = text[:1]
    if c == "{":
        return "object"
    if c == "[":
        return "array"
    if text in ("true", "false"):
        return "boolean"
    if text == "null":
        return "null"
    return "number" if c in "-0123456789" else "string"


_checker = _Checker()
