"""Audit entries: the library's audit lines as Python objects (amla's AuditConfig,
AuditEntry and AuditCollector).

The library writes one JSON line per event (``tool_call``, ``run_start``, ``run_end``,
``limit``) to the sandbox's ``/log/actions.jsonl`` and hands it to the sandbox's audit
callback; a sandbox made with an ``AuditConfig`` collects them through that callback,
adds the config's context (agent_id, trace_id, turn_id, custom_enricher) and appends
them to ``output_path`` when set.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any, Callable, Iterator

__all__ = ["AuditConfig", "AuditEntry", "AuditCollector"]


@dataclass
class AuditConfig:
    """What to do with a sandbox's audit entries (amla's fields; ``capture_binary`` and
    ``binary_dir`` are accepted and have no effect: capsa logs no binary payloads).

    ``hash_args``: log the SHA-256 of each call's arguments instead of the arguments.
    """

    output_path: Path | str | None = None
    agent_id: str | None = None
    trace_id: str | None = None
    capture_binary: bool = False
    binary_dir: Path | None = None
    custom_enricher: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    hash_args: bool = False


@dataclass
class AuditEntry:
    """One audit line. ``type`` is the line's ``event``, ``data`` the whole line."""

    type: str
    session_id: str
    timestamp: datetime
    data: dict[str, Any]
    agent_id: str | None = None
    trace_id: str | None = None
    turn_id: int | None = None
    binary_path: Path | None = None

    @classmethod
    def from_line(cls, line: str | bytes, *, session_id: str = "", agent_id: str | None = None,
                  trace_id: str | None = None, turn_id: int | None = None) -> "AuditEntry":
        raw = json.loads(line)
        try:
            ts = datetime.fromisoformat(str(raw.get("time", "")).replace("Z", "+00:00"))
        except ValueError:
            ts = datetime.now(tz=timezone.utc)
        return cls(type=raw.get("event", "unknown"), session_id=session_id, timestamp=ts,
                   data=raw, agent_id=agent_id, trace_id=trace_id, turn_id=turn_id)

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
        return json.dumps(self.to_dict())


class AuditCollector:
    """Collects audit entries (thread-safe) and appends them to ``output_path``."""

    def __init__(self, config: AuditConfig | None = None, *, session_id: str = "") -> None:
        self._config = config or AuditConfig()
        self._entries: list[AuditEntry] = []
        self._lock = threading.Lock()
        self._turn_id = 0
        self.session_id = session_id
        self._file: IO[str] | None = None
        if self._config.output_path:
            self._file = Path(self._config.output_path).open("a", encoding="utf-8")

    def add_line(self, line: bytes | str) -> AuditEntry | None:
        """Parses, enriches, stores and writes one line of the library's audit log."""
        try:
            entry = AuditEntry.from_line(line, session_id=self.session_id,
                                         agent_id=self._config.agent_id,
                                         trace_id=self._config.trace_id, turn_id=self._turn_id)
        except (ValueError, TypeError, AttributeError):
            return None
        if self._config.custom_enricher is not None:
            entry.data = self._config.custom_enricher(entry.data)
        self.add_entry(entry)
        return entry

    def add_entry(self, entry: AuditEntry, *, write_to_file: bool = True) -> None:
        with self._lock:
            self._entries.append(entry)
            if write_to_file and self._file is not None:
                self._file.write(entry.to_jsonl() + "\n")
                self._file.flush()

    def add_entries(self, entries: list[AuditEntry], *, write_to_file: bool = True) -> None:
        for e in entries:
            self.add_entry(e, write_to_file=write_to_file)

    def new_turn(self) -> None:
        """Starts a new agent turn (entries get the next turn_id)."""
        self._turn_id += 1

    def get_entries(self, entry_type: str | None = None, since: datetime | None = None
                    ) -> Iterator[AuditEntry]:
        with self._lock:
            entries = list(self._entries)
        for e in entries:
            if entry_type and e.type != entry_type:
                continue
            if since and e.timestamp < _aware(since):
                continue
            yield e

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None

    @property
    def entries(self) -> list[AuditEntry]:
        with self._lock:
            return list(self._entries)

    @property
    def turn_id(self) -> int:
        return self._turn_id

    def __len__(self) -> int:
        return len(self._entries)

    def __enter__(self) -> "AuditCollector":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _aware(ts: datetime) -> datetime:
    """Naive datetimes are taken as UTC, so they compare with the log's times."""
    return ts if ts.tzinfo else ts.replace(tzinfo=timezone.utc)


def parse_log(text: bytes, **context: Any) -> list[AuditEntry]:
    """The entries of an /log/actions.jsonl file (bad lines skipped)."""
    out = []
    for line in text.splitlines():
        if line.strip():
            try:
                out.append(AuditEntry.from_line(line, **context))
            except (ValueError, TypeError, AttributeError):
                continue
    return out
