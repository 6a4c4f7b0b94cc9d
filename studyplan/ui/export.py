"""Where an export went (studyplan export)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from studyplan.paths import display_path
from studyplan.ui.words import DONE_MARK

if TYPE_CHECKING:
    from studyplan.app.export import ExportResult


def render_export(console: Console, result: ExportResult) -> None:
    """Where the export went, what it holds, and a note when the usual name was taken."""
    if result.kind == "json":
        what = "Plan structure (JSON)"
    elif result.schedule is None:
        what = f"Calendar with {result.events} all-day week events"
    else:
        schedule = result.schedule
        days = ", ".join(("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")[day] for day in schedule.weekdays)
        what = (
            f"Calendar with {result.events} study sessions ({days}, "
            f"{schedule.start:%H:%M}–{schedule.end:%H:%M})"
        )
    verb = f"updated (revision {result.sequence}; re-import it to update the events)" if result.updated else "written"
    console.print(
        Text.assemble((f"{DONE_MARK} {what} {verb}: ", "bold green"), (display_path(result.path), "bold")),
        soft_wrap=True,
    )
    if result.path != result.requested:
        console.print(
            Text(f"Note: {display_path(result.requested)} already exists and was left as it is.", style="dim"),
            soft_wrap=True,
        )


def render_page_written(console: Console, written: Path, requested: Path, opened: bool) -> None:
    """Where the HTML page of a plan went, and whether the browser was opened on it."""
    console.print(
        Text.assemble((f"{DONE_MARK} Plan page written: ", "bold green"), (display_path(written), "bold")),
        soft_wrap=True,
    )
    if written.resolve() != requested.resolve():
        console.print(
            Text(f"Note: {display_path(requested)} is not a page studyplan wrote, so it was left as it is.",
                 style="dim"),
            soft_wrap=True,
        )
    if opened:
        console.print(Text("Opened in your browser.", style="dim"))
