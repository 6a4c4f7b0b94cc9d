"""The run trace: every event as one JSON object per line (JSON Lines).

The terminal shows a shortened view; the trace keeps everything — the full request messages sent to
the model, its raw replies, every argument and observation — so a run can be debugged afterwards.
Each line is flushed as soon as it is written, so a crashed or interrupted run still leaves its trace.
Secrets (the API key) are replaced by "***" in every string before anything reaches the file.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import time
from collections.abc import Iterable
from datetime import date, datetime
from datetime import time as clock_time
from pathlib import Path
from types import TracebackType
from typing import Any

from studyplan.core.events import Event
from studyplan.errors import UsageError
from studyplan.paths import ensure_folder, user_file_mode
from studyplan.safe_text import json_line

REDACTED = "***"


class TraceWriter:
    """Writes events to `path` as JSON Lines: {"t": seconds since start, "kind": ..., ...fields}.

    Each record is written as one whole line. If a write fails (a full disk), the file is cut back to its last
    whole line, tracing stops, and `stopped` says why: the run goes on, since losing the trace must not cost
    the plan.
    """

    def __init__(self, path: Path, secrets: Iterable[str] = ()) -> None:
        self.path = path
        # Longest first, so a secret that contains another is redacted whole.
        self._secrets = sorted({secret for secret in secrets if secret}, key=len, reverse=True)
        self._started = time.monotonic()
        self.stopped: str | None = None  # why tracing stopped early, if it did
        if path.exists() or path.is_symlink():  # never replace a file
            raise UsageError(f"The trace file {path} already exists; choose another path.")
        ensure_folder(path.parent, "trace file's folder")
        try:
            self._descriptor: int | None = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, user_file_mode())
        except OSError as error:
            raise UsageError(f"Cannot write the trace file {path}: {error.strerror or error}") from None
        self._whole_bytes = 0  # the file's length up to its last whole line

    def __enter__(self) -> TraceWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        # Record why the run stopped (Ctrl-C, a crash) before the file is closed.
        if exc_type is not None and self._descriptor is not None:
            self.note("aborted", error=exc_type.__name__, message=str(exc))
        self.close()

    def write(self, event: Event) -> None:
        """Append one event with all its fields (messages and replies in full)."""
        fields = {field.name: getattr(event, field.name) for field in dataclasses.fields(event)}
        self.note(fields.pop("kind"), **fields)

    def note(self, kind: str, **data: Any) -> None:
        """Append a record that is not an event, e.g. note("error", message="..."); nothing once stopped."""
        if self._descriptor is None:
            if self.stopped is not None:
                return
            raise ValueError(f"The trace {self.path} is already closed")
        record = {"t": round(time.monotonic() - self._started, 3), "kind": kind, **data}
        line = json_line(self._plain(record)).encode("utf-8")
        try:
            written = 0
            while written < len(line):
                written += os.write(self._descriptor, line[written:])
        except OSError as error:
            self._stop(error)
            return
        self._whole_bytes += len(line)

    def _stop(self, error: OSError) -> None:
        """Cut the file back to its last whole line and write no more."""
        self.stopped = f"{error.strerror or error} after {self._whole_bytes:,} bytes"
        assert self._descriptor is not None
        with contextlib.suppress(OSError):
            os.ftruncate(self._descriptor, self._whole_bytes)
        self.close()

    def close(self) -> None:
        if self._descriptor is not None:
            os.close(self._descriptor)
            self._descriptor = None

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

