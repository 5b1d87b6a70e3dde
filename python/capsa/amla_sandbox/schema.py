"""amla_sandbox.schema: JSON Schema from Python type hints (capsa's ``_schema``), in
the shapes amla's functions return.

Differences, deliberate: ``Optional[T]`` is ``{"type": [T, "null"]}`` (JSON Schema;
amla's ``"nullable": true`` is an OpenAPI keyword that a JSON Schema validator
ignores, so a null would be refused); a type with no JSON Schema is ``{}`` (anything)
rather than amla's ``"string"``, which would refuse what the tool takes; other unions are
``anyOf`` of their members rather than ``"string"``.
"""

from __future__ import annotations

from typing import Any

from .._schema import split_docstring, type_to_schema

__all__ = ["dataclass_to_schema", "extract_param_description", "python_type_to_json_schema"]


def python_type_to_json_schema(py_type: Any) -> str | dict[str, Any]:
    """A type hint's JSON Schema: the type's name alone for a plain type ("string",
    "integer", "array", ...), else the schema dict."""
    schema = type_to_schema(py_type)
    if set(schema) == {"type"} and isinstance(schema["type"], str) and schema["type"] != "null":
        return schema["type"]
    return schema


def dataclass_to_schema(dc_type: type) -> dict[str, Any]:
    """The object schema of a dataclass (properties and required fields)."""
    return type_to_schema(dc_type)


def extract_param_description(docstring: str, param_name: str) -> str | None:
    """A parameter's description from a Google, NumPy or reST docstring, or None."""
    if not docstring:
        return None
    return split_docstring(docstring)[1].get(param_name) or None
