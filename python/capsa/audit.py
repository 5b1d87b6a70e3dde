"""Audit entries: the library's audit lines as Python objects (amla's AuditConfig,
AuditEntry and AuditCollector).

The library writes one JSON line per event (``tool_call``, ``run_start``, ``run_end``,
``limit``, ``tool_denials``) to the sandbox's ``/log/actions.jsonl`` and hands it to the
sandbox's audit callback. Every sandbox collects the lines it is handed, the host's own
record (the file is the guest's read-only copy); with an ``AuditConfig`` it also adds the
config's context (agent_id, trace_id, turn_id, custom_enricher) and appends them to
``output_path`` when set. A collector keeps at most ``max_entries`` entries and
``max_bytes`` bytes of lines: past them it counts the entries it drops (``dropped``) in
one ``audit_overflow`` entry, and still writes them to ``output_path``.
"""

from __future__ import annotations

import json
import re
import threading
import warnings
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any, Callable, Iterator, NamedTuple

from . import _json

_HASH_NAME = re.compile(r"[A-Za-z0-9_-]{1,128}")

__all__ = ["AuditConfig", "AuditEntry", "AuditCollector"]


@dataclass
class AuditConfig:
    """What to do with a sandbox's audit entries (amla's fields; ``capture_binary`` has
    no effect, as capsa logs no binary payloads; ``binary_dir`` is where
    ``AuditCollector.capture_binary`` saves what it is given).

    ``hash_args``: log the SHA-256 of each call's arguments instead of the arguments.
    ``max_entries`` / ``max_bytes``: the most entries, and bytes of their lines, a
    collector keeps (None: no limit); past them it counts what it drops in one
    ``audit_overflow`` entry (``data["dropped"]``, also ``AuditCollector.dropped``).
    """

    output_path: Path | str | None = None
    agent_id: str | None = None
    trace_id: str | None = None
    capture_binary: bool = False
    binary_dir: Path | str | None = None
    custom_enricher: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    hash_args: bool = False
    max_entries: int | None = 10_000
    max_bytes: int | None = 16 << 20


@dataclass
class AuditEntry:
    """One audit line. ``type`` is the line's ``event``, ``data`` the whole line (arrays
    and objects nested deeper than ``capsa.JSON_MAX_DEPTH`` levels, which Python's
    parser cannot take, kept as their JSON text, ``capsa.JSONTooDeep``); ``line`` the
    line as the library gave it."""

    type: str
    session_id: str
    timestamp: datetime
    data: dict[str, Any]
    agent_id: str | None = None
    trace_id: str | None = None
    turn_id: int | None = None
    binary_path: Path | None = None
    line: str | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_line(cls, line: str | bytes, *, session_id: str = "", agent_id: str | None = None,
                  trace_id: str | None = None, turn_id: int | None = None) -> "AuditEntry":
        """The entry of one line. A line that is not a JSON object (never one of the
        library's) is kept too, as an entry of type ``unparsed`` whose data holds it."""
        text = line.decode("utf-8", "replace") if isinstance(line, (bytes, bytearray)) else line
        try:
            raw = _json.loads(text)
        except ValueError:
            raw = None
        if not isinstance(raw, dict):
            raw = {"event": "unparsed", "line": text}
        try:
            ts = datetime.fromisoformat(str(raw.get("time", "")).replace("Z", "+00:00"))
        except ValueError:
            ts = datetime.now(tz=timezone.utc)
        event = raw.get("event")
        return cls(type=event if isinstance(event, str) else "unknown", session_id=session_id,
                   timestamp=ts, data=raw, agent_id=agent_id, trace_id=trace_id, turn_id=turn_id,
                   line=text)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "session_id": self.session_id,
                               "timestamp": self.timestamp.isoformat(), **self.data}
        if self.agent_id:
            out["agent_id"] = self.agent_id
        if self.trace_id:
            out["trace_id"] = self.trace_id
        if self.turn_id is not None:
            out["turn_id"] = self.turn_id
        if self.binary_path:
            out["binary_path"] = str(self.binary_path)
        return out

    def to_jsonl(self) -> str:
        try:
            return json.dumps(self.to_dict(), default=str)
        except RecursionError:
            pass
        # Data nested too deeply to encode here: the library's line, decoded as
        # deeply as capsa decodes guest JSON, with the same context around it.
        d = self.to_dict()
        if self.line is not None:
            d.update(_json.loads_limited(self.line))
        else:
            d = {k: v for k, v in d.items() if not isinstance(v, (dict, list))}
        return json.dumps(d, default=str)


class AuditCollector:
    """Collects audit entries (thread-safe), up to the config's ``max_entries`` and
    ``max_bytes`` (past them: one ``audit_overflow`` entry counting the entries dropped,
    ``dropped``), and appends every entry to ``output_path``."""

    def __init__(self, config: AuditConfig | None = None, *, session_id: str = "") -> None:
        self._config = config or AuditConfig()
        self._entries: list[AuditEntry | _Pending] = []
        self._bytes = 0
        self._overflow: AuditEntry | None = None
        self.dropped = 0
        self._lock = threading.Lock()
        self._turn_id = 0
        self.session_id = session_id
        self._file: IO[str] | None = None
        if self._config.output_path:
            self._file = Path(self._config.output_path).open("a", encoding="utf-8")

    def add_line(self, line: bytes | str) -> AuditEntry:
        """Parses, enriches, stores and writes one line of the library's audit log.
        Never drops it for its contents: a line too deep for Python's parser is
        decoded as deeply as capsa decodes guest JSON, one that is not JSON is kept as
        text (``unparsed``), and a custom_enricher that raises leaves it as it was
        (with a RuntimeWarning)."""
        entry = AuditEntry.from_line(line, session_id=self.session_id,
                                     agent_id=self._config.agent_id,
                                     trace_id=self._config.trace_id, turn_id=self._turn_id)
        if self._config.custom_enricher is not None:
            try:
                enriched = self._config.custom_enricher(entry.data)
                if isinstance(enriched, dict):
                    entry.data = enriched
            except Exception as exc:  # noqa: BLE001 - the entry is kept unenriched
                warnings.warn(f"capsa: custom_enricher raised {exc!r}", RuntimeWarning, stacklevel=2)
        self.add_entry(entry)
        return entry

    def add_line_deferred(self, line: bytes | str) -> None:
        """``add_line`` for the library's own lines, parsed only when the entries are
        read (the parse is most of what collecting costs a run): stored as the text
        with its context when nothing needs the entry at once, which is when the
        config has neither a custom_enricher nor an output_path."""
        cfg = self._config
        if cfg.custom_enricher is not None or self._file is not None:
            self.add_line(line)
            return
        text = line.decode("utf-8", "replace") if isinstance(line, (bytes, bytearray)) else line
        with self._lock:
            self._keep(_Pending(text, self.session_id, cfg.agent_id, cfg.trace_id, self._turn_id))

    def add_lines_deferred(self, lines: bytes) -> None:
        """``add_line_deferred`` of each of the newline-ended lines (the library's
        kept lines, taken at once), decoded once and stored under one lock."""
        texts = lines.decode("utf-8", "replace").split("\n")
        if texts and not texts[-1]:
            texts.pop()
        cfg = self._config
        if cfg.custom_enricher is not None or self._file is not None:
            for text in texts:
                self.add_line(text)
            return
        context = (self.session_id, cfg.agent_id, cfg.trace_id, self._turn_id)
        with self._lock:
            for text in texts:
                self._keep(_Pending(text, *context))

    def _keep(self, pending: "_Pending") -> None:
        """Stores a deferred line, or counts it past the cap (lock held)."""
        cfg = self._config
        kept = len(self._entries) - (self._overflow is not None)
        if ((cfg.max_entries is not None and kept >= cfg.max_entries)
                or (cfg.max_bytes is not None and self._bytes + len(pending.text) > cfg.max_bytes)):
            self._count_dropped(pending.entry())
        else:
            self._entries.append(pending)
            self._bytes += len(pending.text)

    def _parsed(self) -> list[AuditEntry]:
        """The entries, every deferred line parsed now and kept parsed (lock held)."""
        entries = self._entries
        for i, e in enumerate(entries):
            if isinstance(e, _Pending):
                entries[i] = e.entry()
        return entries  # type: ignore[return-value]

    def add_entry(self, entry: AuditEntry, *, write_to_file: bool = True) -> None:
        size = len(entry.line) if entry.line is not None else 0
        with self._lock:
            cfg = self._config
            kept = len(self._entries) - (self._overflow is not None)
            if ((cfg.max_entries is not None and kept >= cfg.max_entries)
                    or (cfg.max_bytes is not None and self._bytes + size > cfg.max_bytes)):
                self._count_dropped(entry)
            else:
                self._entries.append(entry)
                self._bytes += size
            if write_to_file and self._file is not None:
                self._file.write(entry.to_jsonl() + "\n")
                self._file.flush()

    def _count_dropped(self, entry: AuditEntry) -> None:
        """Counts an entry past the cap in the one audit_overflow entry (lock held)."""
        self.dropped += 1
        if self._overflow is None:
            self._overflow = AuditEntry(
                type="audit_overflow", session_id=self.session_id, timestamp=entry.timestamp,
                data={"event": "audit_overflow", "dropped": 0,
                      "max_entries": self._config.max_entries, "max_bytes": self._config.max_bytes,
                      "message": "the collector is full: later entries are counted here, not "
                                 "kept (output_path, when set, still gets them)"},
                agent_id=entry.agent_id, trace_id=entry.trace_id, turn_id=entry.turn_id)
            self._entries.append(self._overflow)
        self._overflow.data["dropped"] = self.dropped

    def add_entries(self, entries: list[AuditEntry], *, write_to_file: bool = True) -> None:
        for e in entries:
            self.add_entry(e, write_to_file=write_to_file)

    def new_turn(self) -> None:
        """Starts a new agent turn (entries get the next turn_id)."""
        self._turn_id += 1

    def get_entries(self, entry_type: str | None = None, since: datetime | None = None
                    ) -> Iterator[AuditEntry]:
        with self._lock:
            entries = list(self._parsed())
        for e in entries:
            if entry_type and e.type != entry_type:
                continue
            if since and e.timestamp < _aware(since):
                continue
            yield e

    def capture_binary(self, content_hash: str, data: bytes) -> Path | None:
        """Saves ``data`` as ``<binary_dir>/<content_hash>.bin`` and returns the path
        (amla's); None when the config has no ``binary_dir``. The library itself logs no
        binary payloads, so only callers of this method store any. ``content_hash``
        must be a file name of letters, digits, '_' and '-' (at most 128): it never
        names a path outside ``binary_dir``."""
        if not isinstance(content_hash, str) or not _HASH_NAME.fullmatch(content_hash):
            raise ValueError(f"content_hash must be 1-128 letters, digits, '_' or '-', "
                             f"not {content_hash!r}")
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"data must be bytes, not {type(data).__name__}")
        if not self._config.binary_dir:
            return None
        directory = Path(self._config.binary_dir)
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{content_hash}.bin"
        path.write_bytes(bytes(data))
        return path

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0
            self._overflow = None
            self.dropped = 0

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None

    @property
    def entries(self) -> list[AuditEntry]:
        with self._lock:
            return list(self._parsed())

    @property
    def turn_id(self) -> int:
        return self._turn_id

    def __len__(self) -> int:
        return len(self._entries)

    def __enter__(self) -> "AuditCollector":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class _Pending(NamedTuple):
    """A line of the library's audit log kept unparsed, with the context it came in."""

    text: str
    session_id: str
    agent_id: str | None
    trace_id: str | None
    turn_id: int

    def entry(self) -> AuditEntry:
        return AuditEntry.from_line(self.text, session_id=self.session_id, agent_id=self.agent_id,
                                    trace_id=self.trace_id, turn_id=self.turn_id)


def _aware(ts: datetime) -> datetime:
    """Naive datetimes are taken as UTC, so they compare with the log's times."""
    return ts if ts.tzinfo else ts.replace(tzinfo=timezone.utc)


def parse_log(text: bytes, **context: Any) -> list[AuditEntry]:
    """The entries of the lines of a /log/actions.jsonl file (lines that are not JSON
    objects as ``unparsed`` entries)."""
    return [AuditEntry.from_line(line, **context) for line in text.splitlines() if line.strip()]
