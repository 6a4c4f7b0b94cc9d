"""What the tools did in one run, for code to read: every call with its arguments and its result.

The model reads observation texts; code (a rule-based reply policy, the "done" rule of a task, the hook that
says what is still missing, an evaluation) reads this journal instead, so no wording is ever parsed back.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Failure = Literal["unknown_tool", "arguments", "refused", "crashed", "repeated", "too_long"]
"""Why a call did not succeed: a name or arguments the loop could not use, a tool's refusal (ToolError), a
tool's bug, a repeated call answered from memory, arguments over the size limit."""

# Failures that mean the model's reply was not usable as written (an evaluation's "format error").
UNUSABLE_CALL: frozenset[Failure] = frozenset({"unknown_tool", "arguments", "too_long"})


@dataclass(frozen=True)
class ToolResult:
    """What a tool returns: `text` for the model, `data` for code (JSON-ready values only)."""

    text: str
    data: Mapping[str, Any] = field(default_factory=dict)


def call_key(name: str, arguments: Mapping[str, Any]) -> str:
    """The identity of a call: the same tool with the same arguments, in any key order."""
    return f"{name}:{json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=str)}"


@dataclass(frozen=True)
class JournalEntry:
    step: int
    call_id: str
    name: str
    arguments: Mapping[str, Any]
    result: ToolResult
    failure: Failure | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None

    @property
    def key(self) -> str:
        return call_key(self.name, self.arguments)


class Journal:
    """The calls of one run, in the order they were made (parallel calls in the order the model gave)."""

    def __init__(self) -> None:
        self.entries: list[JournalEntry] = []

    def record(self, entry: JournalEntry) -> JournalEntry:
        self.entries.append(entry)
        return entry

    def clear(self) -> None:
        self.entries.clear()

    def __iter__(self) -> Iterator[JournalEntry]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def of(self, *names: str) -> list[JournalEntry]:
        """The calls of these tools, failed ones included."""
        return [entry for entry in self.entries if entry.name in names]

    def succeeded(self, *names: str) -> list[JournalEntry]:
        return [entry for entry in self.entries if entry.ok and entry.name in names]

    def earlier(self, key: str) -> JournalEntry | None:
        """The first call with this identity that really ran or was refused (a repeat points back to it)."""
        return next(
            (e for e in self.entries if e.key == key and e.failure not in ("repeated", "too_long")), None
        )
