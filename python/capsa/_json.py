"""JSON from the guest, decoded without ever raising RecursionError.

A script can return (or pass to a tool, and so to the audit trail) a value nested far
deeper than Python's recursive ``json`` parser takes: ``loads`` decodes it anyway,
down to ``JSON_MAX_DEPTH`` levels, and keeps each value nested below that as its JSON
text, a ``JSONTooDeep`` (a ``str``). Values Python's parser takes are decoded by it,
whole, as before.
"""

from __future__ import annotations

import json
import re
import secrets
from typing import Any

__all__ = ["JSON_MAX_DEPTH", "JSONTooDeep", "loads", "loads_limited"]

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


def loads(text: str | bytes | bytearray) -> Any:
    """``json.loads``, except that a value nested too deeply for it is decoded down to
    ``JSON_MAX_DEPTH`` levels, deeper arrays and objects kept as ``JSONTooDeep``.
    Raises ValueError (``json.JSONDecodeError``, ``UnicodeDecodeError``) for text that
    is not JSON, never RecursionError."""
    try:
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
