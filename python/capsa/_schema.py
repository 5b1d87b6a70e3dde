"""JSON Schema from Python type hints, and parameter descriptions from docstrings."""

from __future__ import annotations

import dataclasses
import enum
import inspect
import re
import types
import typing
from typing import Any, Callable

_PRIMITIVES: dict[Any, str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    type(None): "null",
    bytes: "string",
}


def type_to_schema(tp: Any, _depth: int = 0) -> dict[str, Any]:
    """A JSON Schema for a type hint; ``{}`` (anything) for what it cannot describe."""
    if _depth > 8 or tp is Any or tp is inspect.Parameter.empty or tp is object:
        return {}
    if tp in _PRIMITIVES:
        return {"type": _PRIMITIVES[tp]}
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return {"enum": [m.value for m in tp]}
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Annotated:
        schema = type_to_schema(args[0], _depth + 1)
        for extra in args[1:]:
            if isinstance(extra, str):
                schema = {**schema, "description": extra}
        return schema
    if origin is typing.Literal:
        return {"enum": list(args)}
    if origin in (typing.Union, types.UnionType):
        members = [a for a in args if a is not type(None)]
        if len(members) == 1:
            inner = type_to_schema(members[0], _depth + 1)
            return _nullable(inner) if len(args) > 1 else inner
        return {"anyOf": [type_to_schema(a, _depth + 1) for a in args]}
    if origin in (list, set, frozenset, tuple) or tp in (list, set, frozenset, tuple):
        schema: dict[str, Any] = {"type": "array"}
        if args and origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            schema["prefixItems"] = [type_to_schema(a, _depth + 1) for a in args]
        elif args:
            schema["items"] = type_to_schema(args[0], _depth + 1)
        return schema
    if origin is dict or tp is dict:
        schema = {"type": "object"}
        if len(args) == 2 and args[1] is not Any:
            schema["additionalProperties"] = type_to_schema(args[1], _depth + 1)
        return schema
    if typing.is_typeddict(tp):
        hints = typing.get_type_hints(tp)
        required = sorted(getattr(tp, "__required_keys__", hints.keys()))
        return {"type": "object",
                "properties": {k: type_to_schema(v, _depth + 1) for k, v in hints.items()},
                "required": required}
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        hints = typing.get_type_hints(tp)
        props = {f.name: type_to_schema(hints.get(f.name, Any), _depth + 1)
                 for f in dataclasses.fields(tp)}
        required = [f.name for f in dataclasses.fields(tp)
                    if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
        return {"type": "object", "properties": props, "required": required}
    return {}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``Optional[T]``: T's schema that null passes too (``{"type": ["integer", "null"]}``,
    or an ``anyOf`` with null when T's schema is more than a type)."""
    if not schema:
        return schema  # anything, null included
    t = schema.get("type")
    if isinstance(t, str) and set(schema) <= {"type", "description"}:
        return {**schema, "type": [t, "null"]}
    if isinstance(t, str) and t != "null" and set(schema) - {"type", "description"} and \
            "enum" not in schema and "const" not in schema:
        # Keywords of other types pass null by themselves: only the type must allow it.
        return {**schema, "type": [t, "null"]}
    return {"anyOf": [schema, {"type": "null"}]}


_ARG_SECTIONS = {"args", "arguments", "parameters", "params", "keyword args"}
_OTHER_SECTIONS = {"returns", "return", "raises", "yields", "example", "examples", "note",
                   "notes", "see also", "attributes"}


def split_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """(description, {parameter: description}) from a Google, NumPy or reST docstring.

    The description is the text before the first section ("Args:", "Parameters",
    ":param x:"); the parameter texts are joined into one line each.
    """
    desc: list[str] = []
    params: dict[str, str] = {}
    section: str | None = None
    current: str | None = None
    base = 0  # indentation of the parameter lines of the current section
    for line in doc.splitlines():
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        rest = re.match(r"^:param\s+(?:[^:]*\s)?(\w+)\s*:\s*(.*)$", stripped)
        if rest:
            section, current = "rest", rest.group(1)
            params[current] = rest.group(2)
            continue
        if stripped.startswith(":"):
            section, current = "rest-other", None
            continue
        head = stripped.rstrip(":").lower()
        if head in _ARG_SECTIONS or head in _OTHER_SECTIONS:
            section = "args" if head in _ARG_SECTIONS else "other"
            current, base = None, -1
            continue
        if section is None:
            desc.append(line)
            continue
        if not stripped or set(stripped) <= {"-", "="}:
            continue  # blank lines and NumPy underlines
        if section == "rest" and current:
            params[current] += " " + stripped
            continue
        if section != "args":
            continue
        if base < 0:
            base = indent
        if indent <= base:
            google = re.match(r"^\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$", stripped)
            numpy = re.match(r"^(\w+)\s*:\s*.*$", stripped)
            if google and "(" in stripped.split(":")[0] or google and not numpy_style(stripped):
                current = google.group(1)
                params[current] = google.group(2)
            elif numpy:
                current = numpy.group(1)
                params[current] = ""
            else:
                current = None
        elif current:
            params[current] = (params[current] + " " + stripped).strip()
    return "\n".join(desc).strip(), {k: v.strip() for k, v in params.items() if v.strip()}


def numpy_style(line: str) -> bool:
    """Whether an argument line reads "name : type" (NumPy) rather than "name: text"."""
    return bool(re.match(r"^\w+\s+:\s*\S", line))


def function_schema(fn: Callable[..., Any]) -> tuple[str, dict[str, Any]]:
    """(description, JSON Schema of the arguments object) of a Python callable."""
    doc = inspect.getdoc(fn) or ""
    description, param_docs = split_docstring(doc)
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception:  # noqa: BLE001 - unresolvable forward references: no types
        hints = {}
    sig = inspect.signature(fn)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, param in sig.parameters.items():
        if name in ("self", "cls") or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        if param.kind is param.POSITIONAL_ONLY:
            raise TypeError(f"tool {getattr(fn, '__name__', fn)!r}: positional-only parameter "
                            f"{name!r} cannot be passed from a JSON object")
        schema = dict(type_to_schema(hints.get(name, param.annotation)))
        if name in param_docs:
            schema["description"] = param_docs[name]
        if param.default is param.empty:
            required.append(name)
        elif _json_default(param.default):
            schema["default"] = param.default
        properties[name] = schema
    params: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        params["required"] = required
    if not any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        params["additionalProperties"] = False
    return description, params


def _json_default(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool))
