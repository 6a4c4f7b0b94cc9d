"""Small wording shared by the screens: durations, hours, days, date spans, how a run ended."""

from __future__ import annotations

from datetime import date

from studyplan.core.events import RunStatus, Usage

DONE_MARK = "✓"

# Why a run ended without a saved plan, in words a user can act on.
STATUS_MESSAGES: dict[RunStatus, str] = {
    "saved": "Plan saved",
    "step_limit": "Stopped: the step limit was reached before a plan was saved.",
    "no_plan": "The model finished without saving a plan.",
    "repeated_calls": "Stopped: the model kept repeating the same tool call.",
}


def status_message(status: RunStatus, detail: str = "") -> str:
    """One sentence describing how a run ended (the CLI may reuse it for its own error line); `detail` (the
    repeated call, where an unsaved draft is kept) is added to it."""
    message = STATUS_MESSAGES[status]
    return f"{message.removesuffix('.')}: {detail}." if detail else message


def format_seconds(seconds: float) -> str:
    if seconds < 1:
        return f"{round(seconds * 1000)} ms"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s"


def format_usage(usage: Usage) -> str:
    # ≈: estimated by the project's count, the server sent none (llama-cpp-python's streams)
    approx = "≈" if usage.estimated else ""
    return f"{approx}{usage.prompt_tokens:,} → {approx}{usage.completion_tokens:,} tokens"


def hours_text(hours: float) -> str:
    return f"{hours:g} h"


def days_text(days: float) -> str:
    return f"{days:g} day" if days == 1 else f"{days:g} days"


def span_text(start: date, end: date) -> str:
    return f"{start.isoformat()} – {end.isoformat()}"


def percent(part: float, whole: float) -> str:
    return f"{part / whole:.0%}" if whole else "–"
