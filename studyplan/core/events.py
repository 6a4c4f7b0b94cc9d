"""Step events yielded by the agent loop.

The loop knows nothing of the terminal: it yields these, and a renderer (or a test, or a trace writer)
consumes them. Each event is a small frozen dataclass; `kind` names it in traces.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from studyplan.core.journal import Failure

RunStatus = Literal["saved", "step_limit", "no_plan", "repeated_calls"]


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False  # counted by the project's estimate: the server sent no usage (streams often don't)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.estimated or other.estimated,
        )


@dataclass(frozen=True)
class RunStarted:
    goal: str
    model: str
    protocol: str
    offline: bool
    endpoint: str = ""  # the base URL the model is asked at ("" offline): every run's header names it
    kind: str = "run_started"


@dataclass(frozen=True)
class ModelCallStarted:
    """The loop is waiting for the model (a renderer shows a spinner until the next event).

    `messages` is a snapshot of what this request sent: later steps never change it.
    """

    step: int
    messages: tuple[dict[str, Any], ...]
    kind: str = "model_call_started"


@dataclass(frozen=True)
class ModelCallFinished:
    step: int
    seconds: float
    usage: Usage | None
    reply: dict[str, Any]
    kind: str = "model_call_finished"


@dataclass(frozen=True)
class Thought:
    step: int
    text: str
    kind: str = "thought"


@dataclass(frozen=True)
class Action:
    step: int
    call_id: str
    tool: str
    arguments: dict[str, Any]
    kind: str = "action"


@dataclass(frozen=True)
class Observation:
    step: int
    call_id: str
    tool: str
    text: str
    ok: bool
    seconds: float
    failure: Failure | None = None  # why it did not succeed (see studyplan.core.journal.Failure)
    data: Mapping[str, Any] = field(default_factory=dict)  # the tool's result for code
    kind: str = "observation"


@dataclass(frozen=True)
class Notice:
    """Something the user should know that is not a step: offline mode, a protocol switch, a retry."""

    text: str
    level: Literal["info", "warning"] = "info"
    # What happened, for code: "unparsed_reply", "answer_not_done", "repeated_calls", "step_limit", "switched_to_text".
    code: str | None = None
    kind: str = "notice"


@dataclass(frozen=True)
class ContextFolded:
    """Older steps were folded into a summary to keep the prompt inside the token budget."""

    step: int
    folded_messages: int
    tokens_before: int
    tokens_after: int
    summary: str
    kind: str = "context_folded"


@dataclass(frozen=True)
class FinalAnswer:
    step: int
    text: str
    kind: str = "final_answer"


@dataclass(frozen=True)
class RunFinished:
    status: RunStatus
    steps: int
    seconds: float
    usage: Usage
    plan_path: Path | None
    summary: str
    plans_saved: list[Path] = field(default_factory=list)
    detail: str = ""  # why the run stopped when it did not finish, e.g. the repeated call
    kind: str = "run_finished"


Event = (
    RunStarted
    | ModelCallStarted
    | ModelCallFinished
    | Thought
    | Action
    | Observation
    | Notice
    | ContextFolded
    | FinalAnswer
    | RunFinished
)
