"""The consoles the CLI prints to, and how a screen learns whether it may draw (panels, boxes, bars).

A terminal gets colour, panels and tables with lines; anything else (a pipe, a file, CI logs) gets plain
lines: no escape codes and no box-drawing characters, so the output greps and diffs cleanly.
"""

from __future__ import annotations

from rich import box
from rich.box import Box
from rich.console import Console

# `--no-color` on the command line; None follows the NO_COLOR environment variable (Rich reads it).
_no_color: bool | None = None


def set_no_color(value: bool | None) -> None:
    """Set once per CLI invocation (None: follow NO_COLOR)."""
    global _no_color
    _no_color = value


def make_console(stderr: bool = False, no_color: bool | None = None) -> Console:
    """A console for the CLI: stdout (or stderr for errors and diagnostics).

    `no_color=None` follows `--no-color`, then the NO_COLOR environment variable. When the stream is not a
    terminal Rich picks no colour system, so the output is plain text without escape codes (FORCE_COLOR
    overrides that, as the user asked for it). Markup, emoji codes and automatic highlighting are off:
    every string the screens print is built as `Text`, and nothing else should be interpreted.
    """
    chosen = no_color if no_color is not None else (True if _no_color else None)
    return _Console(stderr=stderr, no_color=chosen, markup=False, emoji=False, highlight=False)


class _Console(Console):
    def on_broken_pipe(self) -> None:
        # Rich would exit 1 (our code for a bug); `studyplan show plan.md | head` is not one. The CLI's edge
        # turns the error into its own exit code.
        raise BrokenPipeError("stdout was closed")


def is_plain(console: Console) -> bool:
    """True when the console is not a terminal: print lines, never panels, box lines or bars."""
    return not console.is_terminal


def table_box(console: Console, terminal_box: Box = box.SIMPLE_HEAD) -> Box | None:
    """The table border for this console: the given box on a terminal, none at all in plain output."""
    return None if is_plain(console) else terminal_box
