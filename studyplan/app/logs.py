"""The run log, like `llm logs`: every run recorded in SQLite in the user's data folder.

One row per run: when, goal, model, endpoint, protocol, how it ended, the plan it wrote, steps, tokens,
seconds, the error if any, and the conversation (the messages sent, and the last reply). Keys are redacted
before anything is written. Traces stay what they were: opt-in JSON Lines files beside the plans.
The log must never break a run: a log that cannot be written is skipped (the caller may say so).
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from studyplan.app.config import data_dir
from studyplan.core.events import Event, ModelCallFinished, ModelCallStarted, RunFinished, RunStarted, Usage
from studyplan.llm.settings import ModelSettings, redact

LOG_FILE = "logs.db"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    started_at TEXT NOT NULL,
    goal TEXT NOT NULL,
    model TEXT NOT NULL,
    endpoint TEXT NOT NULL,
    protocol TEXT NOT NULL,
    status TEXT NOT NULL,
    plan_path TEXT,
    steps INTEGER NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    tokens_estimated INTEGER NOT NULL,
    seconds REAL NOT NULL,
    error TEXT,
    messages TEXT NOT NULL
)
"""
_COLUMNS = (
    "started_at", "goal", "model", "endpoint", "protocol", "status", "plan_path", "steps", "prompt_tokens",
    "completion_tokens", "tokens_estimated", "seconds", "error", "messages",
)
# A row stays readable: a conversation longer than this (a pathological run) is cut, and marked so.
MAX_MESSAGES_CHARS = 1_000_000


def log_path(env: Mapping[str, str] = os.environ) -> Path:
    return data_dir(env) / LOG_FILE


@dataclass(frozen=True)
class LoggedRun:
    started_at: str
    goal: str
    model: str
    endpoint: str
    protocol: str
    status: str  # the run's status, or "error" / "interrupted"
    plan_path: str | None
    steps: int
    usage: Usage
    seconds: float
    error: str | None = None
    messages: list[dict[str, Any]] = field(default_factory=list)
    id: int | None = None

    def to_json(self, with_messages: bool = True) -> dict[str, Any]:
        record = asdict(self)
        usage = record.pop("usage")
        record.update(
            prompt_tokens=usage["prompt_tokens"],
            completion_tokens=usage["completion_tokens"],
            tokens=self.usage.total_tokens,
            tokens_estimated=usage["estimated"],
        )
        if not with_messages:
            record.pop("messages")
        return record


class RunRecorder:
    """Follows one run's events and turns them into a LoggedRun."""

    def __init__(self, goal: str, settings: ModelSettings) -> None:
        self._goal = goal
        self._settings = settings
        self._started_at = datetime.now().astimezone().isoformat(timespec="seconds")
        self._started = datetime.now()
        self._protocol = "tools"
        self._messages: list[dict[str, Any]] = []
        self._steps = 0
        self._usage = Usage()
        self._finished: RunFinished | None = None

    def observe(self, event: Event) -> None:
        match event:
            case RunStarted():
                self._protocol = event.protocol
            case ModelCallStarted():
                self._messages = list(event.messages)
            case ModelCallFinished():
                self._messages.append(event.reply)
                self._steps = event.step
                self._usage = self._usage + (event.usage or Usage())
            case RunFinished():
                self._finished = event

    @property
    def finished(self) -> bool:
        return self._finished is not None

    def result(self, error: str | None = None, status: str | None = None) -> LoggedRun:
        finished = self._finished
        secrets = [self._settings.api_key]
        return LoggedRun(
            started_at=self._started_at,
            goal=self._goal,
            model=self._settings.model,
            endpoint=self._settings.endpoint,
            protocol=self._protocol,
            status=status or (finished.status if finished else "error"),
            plan_path=str(finished.plan_path) if finished and finished.plan_path else None,
            steps=finished.steps if finished else self._steps,
            usage=finished.usage if finished else self._usage,
            seconds=finished.seconds if finished else (datetime.now() - self._started).total_seconds(),
            error=redact(error, secrets) if error else None,
            messages=json.loads(redact(json.dumps(self._messages, ensure_ascii=False), secrets)),
        )


def _connect(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path, timeout=5)
    connection.execute(_SCHEMA)
    return connection


def write_run(run: LoggedRun, path: Path) -> bool:
    """Append the run to the log; False (and nothing raised) when the log cannot be written."""
    messages = json.dumps(run.messages, ensure_ascii=False)
    if len(messages) > MAX_MESSAGES_CHARS:
        messages = json.dumps([{"role": "note", "content": f"{len(messages):,} characters: not kept"}])
    values = tuple(
        _storable(value)
        for value in (
            run.started_at, run.goal, run.model, run.endpoint, run.protocol, run.status, run.plan_path, run.steps,
            run.usage.prompt_tokens, run.usage.completion_tokens, int(run.usage.estimated), run.seconds, run.error,
            messages,
        )
    )
    try:
        with _connect(path) as connection:
            connection.execute(
                f"INSERT INTO runs ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})", values
            )
        connection.close()
    except (sqlite3.Error, OSError, ValueError):  # never break the run for its log
        return False
    return True


def _storable(value: object) -> object:
    """Text SQLite can store: a goal read from undecodable bytes holds lone surrogates, kept as U+FFFD."""
    return value.encode("utf-8", "replace").decode("utf-8") if isinstance(value, str) else value


def read_runs(path: Path, limit: int = 3) -> list[LoggedRun]:
    """The latest `limit` runs, newest first; none when there is no log yet."""
    if not path.exists():
        return []
    from studyplan.errors import UsageError

    try:
        connection = _connect(path)
        try:
            rows = connection.execute(
                f"SELECT id, {', '.join(_COLUMNS)} FROM runs ORDER BY id DESC LIMIT ?", (limit,)
            ).fetchall()
        finally:
            connection.close()
    except sqlite3.Error as error:
        raise UsageError(f"{path}: the run log cannot be read ({error})") from None
    return [_run_from_row(row) for row in rows]


def _run_from_row(row: tuple[Any, ...]) -> LoggedRun:
    (run_id, started_at, goal, model, endpoint, protocol, status, plan_path, steps, prompt_tokens,
     completion_tokens, estimated, seconds, error, messages) = row
    try:
        conversation = json.loads(messages)
    except (TypeError, json.JSONDecodeError):
        conversation = []
    return LoggedRun(
        started_at, goal, model, endpoint, protocol, status, plan_path, steps,
        Usage(prompt_tokens, completion_tokens, bool(estimated)), seconds, error, conversation, run_id,
    )
