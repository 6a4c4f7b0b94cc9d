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
    """Up to `limit` characters from stdin; UsageError if there is more (nothing is silently cut).

    Read as bytes (at most 4 per character): bytes that are not UTF-8 are kept as lone surrogates
    (surrogateescape), so the one goal they are in is refused with its reason instead of the whole input
    failing to decode.
    """
    stream = getattr(sys.stdin, "buffer", None)
    data = stream.read(4 * limit + 1) if stream is not None else sys.stdin.read(limit + 1)  # a bare text stream
    text = data.decode("utf-8", errors="surrogateescape") if isinstance(data, bytes) else data
    if len(text) > limit or len(data) > 4 * limit:
        raise UsageError(f"{what} on stdin is longer than {limit:,} characters")
    return text.removeprefix("\ufeff")


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
    from studyplan.paths import read_user_file

    text = read_user_file(Path(goals_file), UsageError, "goals file", limit=MAX_GOALS_FILE_CHARS)
    return parse_goals(text, goals_file)
