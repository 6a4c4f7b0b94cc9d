"""The CLI's one-line error."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from studyplan.safe_text import printable


def render_error(console: Console, message: str) -> None:
    """One line on the console, e.g. "Error: the catalog file is not valid JSON" (the message literal)."""
    one_line = printable(" ".join(message.split()))  # a file name's escape codes are shown, not obeyed
    console.print(Text.assemble(("Error: ", "bold red"), (one_line, "red")), soft_wrap=True)
