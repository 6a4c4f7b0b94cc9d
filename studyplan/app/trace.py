"""The run trace: every event as one JSON object per line (JSON Lines).

The terminal shows a shortened view; the trace keeps everything — the full request messages sent to
the model, its raw replies, every argument and observation — so a run can be debugged afterwards.
Each line is flushed as soon as it is written, so a crashed or interrupted run still leaves its trace.
Secrets (the API key) are replaced by "***" in every string before anything reaches the file.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterable
from datetime import date, datetime
from datetime import time as clock_time
from pathlib import Path
from types import TracebackType
from typing import Any, TextIO

from studyplan.core.events import Event
from studyplan.errors import StudyplanError, UsageError

REDACTED = "***"


class TraceWriter:
    """Writes events to `path` as JSON Lines: {"t": seconds since start, "kind": ..., ...fields}."""

    def __init__(self, path: Path, secrets: Iterable[str] = ()) -> None:
        self.path = path
        # Longest first, so a secret that contains another is redacted whole.
        self._secrets = sorted({secret for secret in secrets if secret}, key=len, reverse=True)
        self._started = time.monotonic()
        if path.exists():  # never replace a file
            raise UsageError(f"The trace file {path} already exists; choose another path.")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._file: TextIO | None = path.open("x", encoding="utf-8")
        except OSError as error:
            raise StudyplanError(f"Cannot write the trace file {path}: {error.strerror or error}") from error

    def __enter__(self) -> TraceWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        # Record why the run stopped (Ctrl-C, a crash) before the file is closed.
        if exc_type is not None and self._file is not None:
            self.note("aborted", error=exc_type.__name__, message=str(exc))
        self.close()

    def write(self, event: Event) -> None:
        """Append one event with all its fields (messages and replies in full)."""
        fields = {field.name: getattr(event, field.name) for field in dataclasses.fields(event)}
        self.note(fields.pop("kind"), **fields)

    def note(self, kind: str, **data: Any) -> None:
        """Append a record that is not an event, e.g. note("error", message="...")."""
        if self._file is None:
            raise ValueError(f"The trace {self.path} is already closed")
        record = {"t": round(time.monotonic() - self._started, 3), "kind": kind, **data}
        self._file.write(json.dumps(self._plain(record), ensure_ascii=False) + "\n")
        self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def _plain(self, value: Any) -> Any:
        """`value` as JSON-ready data, every string redacted (keys too: the JSON stays valid)."""
        if isinstance(value, str):
            return self._redact(value)
        if value is None or isinstance(value, bool | int | float):
            return value
        if isinstance(value, dict):
            return {self._redact(str(key)): self._plain(item) for key, item in value.items()}
        if isinstance(value, list | tuple | set | frozenset):
            return [self._plain(item) for item in value]
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return {item.name: self._plain(getattr(value, item.name)) for item in dataclasses.fields(value)}
        if isinstance(value, datetime | date | clock_time):
            return value.isoformat()
        # Path and anything else without a JSON form: its text.
        return self._redact(str(value))

    def _redact(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        return text
