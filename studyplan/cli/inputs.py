"""What the commands read from the user besides flags: a goal or goals file from stdin, always bounded."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from studyplan.errors import UsageError

if TYPE_CHECKING:
    from studyplan.app.batch import BatchGoal

# A goal is a sentence; a goals file is a few thousand lines at most. More is a mistake (or /dev/zero).
MAX_GOAL_CHARS = 2_000
MAX_GOALS_FILE_CHARS = 2_000_000


def read_stdin(limit: int, what: str) -> str:
    """Up to `limit` characters from stdin; UsageError if there is more (nothing is silently cut)."""
    text = sys.stdin.read(limit + 1)
    if len(text) > limit:
        raise UsageError(f"{what} on stdin is longer than {limit:,} characters")
    return text


def goal_text(goal: str) -> str:
    """The goal argument, or the goal piped in when the argument is "-"."""
    if goal != "-":
        return goal
    if sys.stdin.isatty():
        raise UsageError('"-" reads the goal from stdin, but stdin is a terminal: pipe the goal in')
    return " ".join(read_stdin(MAX_GOAL_CHARS, "the goal").split())


def read_goals(goals_file: str) -> list[BatchGoal]:
    """The goals of a goals file ("-": stdin), parsed; UsageError for a file that cannot be read."""
    from studyplan.app.batch import parse_goals

    if goals_file == "-":
        return parse_goals(read_stdin(MAX_GOALS_FILE_CHARS, "the goals file"), "stdin")
    path = Path(goals_file)
    try:
        with path.open(encoding="utf-8-sig") as handle:
            text = handle.read(MAX_GOALS_FILE_CHARS + 1)
    except FileNotFoundError:
        raise UsageError(f"{goals_file}: goals file not found") from None
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"{goals_file}: cannot be read ({error})") from None
    if len(text) > MAX_GOALS_FILE_CHARS:
        raise UsageError(f"{goals_file}: longer than {MAX_GOALS_FILE_CHARS:,} characters")
    return parse_goals(text, goals_file)
