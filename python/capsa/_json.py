"""JSON both ways: values from the guest decoded without ever raising RecursionError,
and tool results encoded with a documented rule for the types ``json`` cannot take.

A script can return (or pass to a tool, and so to the audit trail) a value nested far
deeper than Python's recursive ``json`` parser takes: ``loads`` decodes it anyway,
down to ``JSON_MAX_DEPTH`` levels, and keeps each value nested below that as its JSON
text, a ``JSONTooDeep`` (a ``str``). Values Python's parser takes are decoded by it,
whole, as before.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime
import decimal
import enum
import json
import json.scanner
import re
import secrets
import uuid
from collections.abc import Mapping
from typing import Any

__all__ = ["JSON_MAX_DEPTH", "JSONTooDeep", "RESULT_RULE", "loads", "loads_limited", "dumps_result",
           "to_json_value"]

# Levels of arrays and objects decoded when Python's parser cannot take a value:
# the outermost container is level 1.
JSON_MAX_DEPTH = 200

# A string (escapes included) or a bracket: enough to follow the nesting of valid JSON.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.S)


class JSONTooDeep(str):
    """The JSON text of an array or object nested deeper than ``JSON_MAX_DEPTH`` levels
    in a value Python's parser could not decode: the text itself, unparsed."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"JSONTooDeep({len(self)} characters of JSON)"


# Python's parser as json.loads uses it (same defaults), called without the skipping
# of whitespace around the value that json.loads adds: the guest's JSON has none.
_scan_once = json.scanner.make_scanner(json.JSONDecoder())


def loads(text: str | bytes | bytearray) -> Any:
    """``json.loads``, except that a value nested too deeply for it is decoded down to
    ``JSON_MAX_DEPTH`` levels, deeper arrays and objects kept as ``JSONTooDeep``.
    Raises ValueError (``json.JSONDecodeError``, ``UnicodeDecodeError``) for text that
    is not JSON, never RecursionError."""
    try:
        if isinstance(text, str):
            try:
                value, end = _scan_once(text, 0)
            except (StopIteration, ValueError):
                end = -1  # json.loads gives the error
            if end == len(text):
                return value
        return json.loads(text)
    except RecursionError:
        return loads_limited(text)


def loads_limited(text: str | bytes | bytearray) -> Any:
    """Decodes text down to ``JSON_MAX_DEPTH`` levels, deeper arrays and objects kept
    as ``JSONTooDeep``, whatever Python's parser could take."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8")
    for limit in (JSON_MAX_DEPTH, 1):  # 1: the caller's own stack is nearly full
        try:
            return _loads_limited(text, limit)
        except RecursionError:
            continue
    raise ValueError("the JSON value is nested too deeply to decode here")


def _loads_limited(text: str, limit: int) -> Any:
    """Decodes text with every container deeper than `limit` levels replaced by a
    placeholder string, then puts the containers' text back in their place."""
    spans = []
    depth = 0
    start = 0
    for m in _TOKEN.finditer(text):
        tok = m.group()
        if tok[0] == '"':
            continue
        if tok in "[{":
            depth += 1
            if depth == limit + 1:
                start = m.start()
        else:
            if depth == limit + 1:
                spans.append((start, m.end()))
            depth -= 1
    nonce = secrets.token_hex(8)
    raws: dict[str, str] = {}
    parts = []
    pos = 0
    for i, (a, b) in enumerate(spans):
        key = f"\0capsa-too-deep-{nonce}-{i}"
        raws[key] = text[a:b]
        parts += [text[pos:a], json.dumps(key)]
        pos = b
    parts.append(text[pos:])
    value = json.loads("".join(parts))
    if raws:
        _restore(value, raws)
    return value


def _restore(value: Any, raws: dict[str, str]) -> None:
    """Replaces the placeholders in value (at most `limit` levels deep) by JSONTooDeep,
    without recursion."""
    todo = [value]
    while todo:
        v = todo.pop()
        items = v.items() if isinstance(v, dict) else enumerate(v) if isinstance(v, list) else ()
        for k, x in list(items):
            if isinstance(x, str) and x in raws:
                v[k] = JSONTooDeep(raws[x])
            elif isinstance(x, (dict, list)):
                todo.append(x)


# ---- encoding tool results -------------------------------------------------------------

RESULT_RULE = """\
A tool's result is encoded as JSON; what ``json`` cannot encode is converted first:

- ``datetime.datetime``, ``datetime.date``, ``datetime.time``: ISO 8601 text
  (``isoformat()``: "2024-03-07T10:30:00+00:00", "2024-03-07", "10:30:00"), an aware
  value with its offset, a naive one without;
- ``decimal.Decimal``: a number when a double holds it exactly as written (19.99), else
  its text ("0.10000000000000000001", "NaN"), so that no digit is lost;
- ``uuid.UUID``: its text ("12345678-1234-5678-1234-567812345678");
- ``bytes``, ``bytearray``, ``memoryview``: base64 text (standard alphabet, padded);
- ``enum.Enum``: its value (itself converted);
- dataclass instances: an object of their fields;
- objects with ``model_dump()`` (pydantic 2: ``model_dump(mode="json")``) or ``dict()``
  (pydantic 1) returning a mapping: that mapping;
- other mappings: an object; ``set`` and ``frozenset``: an array (sorted when the
  members can be sorted), tuples: an array;
- keys of an object: strings as they are; int, float, bool and None as ``json`` writes
  them; others by the rules above, as text (an Enum key by its value, a date key as
  "2024-03-07", a tuple key as its compact JSON "[1,2]").

Anything else (and NaN or infinite floats) fails the call with ``invalid_result``.
"""


def _convert(obj: Any) -> Any:
    """One value that ``json`` cannot encode, as something it can (RESULT_RULE);
    raises TypeError for what no rule covers."""
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, (datetime.datetime, datetime.date, datetime.time)):
        return obj.isoformat()
    if isinstance(obj, decimal.Decimal):
        if obj.is_finite():
            f = float(obj)
            if decimal.Decimal(repr(f)) == obj:
                return f
        return str(obj)
    if isinstance(obj, uuid.UUID):
        return str(obj)
    if isinstance(obj, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(obj)).decode("ascii")
    if isinstance(obj, (set, frozenset)):
        try:
            return sorted(obj)
        except TypeError:
            return list(obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    dump = getattr(obj, "model_dump", None)  # pydantic 2
    if callable(dump):
        try:
            out = dump(mode="json")
        except TypeError:  # a model_dump of another kind, without mode
            out = dump()
        if isinstance(out, Mapping):
            return dict(out)
    as_dict = getattr(obj, "dict", None)  # pydantic 1
    if callable(as_dict) and not isinstance(obj, type):
        out = as_dict()
        if isinstance(out, Mapping):
            return dict(out)
    if isinstance(obj, Mapping):
        return dict(obj)
    raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable")


def _key(k: Any) -> Any:
    """An object's key as ``json`` takes it: str, int, float, bool, None as they are,
    others converted by RESULT_RULE and written as text."""
    if isinstance(k, enum.Enum):
        k = k.value
    if k is None or isinstance(k, (str, int, float, bool)):
        return k
    v = to_json_value(k)
    return v if isinstance(v, (str, int, float, bool)) or v is None else json.dumps(
        v, allow_nan=False, ensure_ascii=False, separators=(",", ":"))


def to_json_value(value: Any) -> Any:
    """value with every part ``json`` cannot encode converted by RESULT_RULE, keys
    included (the slow path of dumps_result; raises ValueError for a cycle)."""
    active: set[int] = set()

    def walk(v: Any) -> Any:
        if v is None or isinstance(v, (str, int, float, bool)):
            return v
        if isinstance(v, (dict, list, tuple)):
            if id(v) in active:
                raise ValueError("Circular reference detected")
            active.add(id(v))
            try:
                if isinstance(v, dict):
                    return {_key(k): walk(x) for k, x in v.items()}
                return [walk(x) for x in v]
            finally:
                active.discard(id(v))
        return walk(_convert(v))

    return walk(value)


def dumps_result(value: Any) -> bytes:
    """A tool's result as UTF-8 JSON, by RESULT_RULE. Raises TypeError, ValueError or
    RecursionError when it cannot be encoded."""
    opts: dict[str, Any] = {"allow_nan": False, "ensure_ascii": False}
    try:
        text = json.dumps(value, default=_convert, **opts)
    except TypeError:
        # Keys json does not take (a date, a UUID): convert the whole value first.
        text = json.dumps(to_json_value(value), **opts)
    return text.encode("utf-8")
