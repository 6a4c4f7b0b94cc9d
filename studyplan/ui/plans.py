"""The plans folder as a table: dates, weeks, progress and pace of each plan (studyplan list)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.console import Console, JustifyMethod
from rich.table import Table
from rich.text import Text

from studyplan.paths import display_path
from studyplan.ui.console import is_plain, table_box

if TYPE_CHECKING:
    from studyplan.app.library import PlanEntry

_PACE_STYLES = {"finished": "bold green", "on schedule": "green", "not started": "dim"}


def render_plan_list(console: Console, plans_dir: Path, entries: list[PlanEntry]) -> None:
    """One row per plan; files in the folder that are not readable plans are named under the table."""
    plans = [entry for entry in entries if entry.report is not None]
    if not plans:
        console.print(
            Text(f"No plans in {display_path(plans_dir)} yet: studyplan \"GOAL\" makes one."), soft_wrap=True
        )
    else:
        count = f"{len(plans)} plan{'s' if len(plans) != 1 else ''}"
        console.print(Text.assemble((count, "bold"), f" in {display_path(plans_dir)}:"), soft_wrap=True)
        headers = ("Plan", "Dates", "Weeks done", "Hours", "Pace")
        rows = [_row(entry) for entry in plans]
        if is_plain(console):
            _print_columns(console, [headers, *rows])
        else:
            table = Table(
                box=table_box(console), show_edge=False, pad_edge=False, padding=(0, 1), collapse_padding=True
            )
            for header in headers:  # the path is the one column that folds: the figures stay whole
                justify: JustifyMethod = "right" if header in _NUMBERS else "left"
                table.add_column(header, no_wrap=header != "Plan", overflow="fold", justify=justify)
            for row in rows:
                pace = row[-1]
                style = _PACE_STYLES.get(pace, "yellow" if pace.startswith("behind") else "green")
                table.add_row(*[Text(cell) for cell in row[:-1]], Text(pace, style=style))
            console.print(table)
    for entry in entries:
        if entry.report is None and not entry.draft:
            line = Text(f"Not a plan: {display_path(entry.path)} ({entry.problem})", style="dim")
            console.print(line, soft_wrap=True)
    drafts = [display_path(entry.path) for entry in entries if entry.draft]
    if drafts:  # the model's unsaved answers: kept for the learner, never checked, never tracked
        label = f"Unchecked draft{'s' if len(drafts) != 1 else ''} (not plans, never checked): "
        console.print(Text.assemble((label, "yellow"), ", ".join(drafts)), soft_wrap=True)


_NUMBERS = ("Weeks done", "Hours")


def _row(entry: PlanEntry) -> tuple[str, ...]:
    from studyplan.app.library import pace_words

    report = entry.report
    assert report is not None
    return (
        entry.path.name,
        f"{report.plan.start.isoformat()} – {report.plan.end.isoformat()}",
        f"{report.done_weeks}/{len(report.weeks)}",
        f"{report.spent_hours:g}/{report.planned_hours:g}",
        pace_words(report),
    )


def _print_columns(console: Console, rows: list[tuple[str, ...]]) -> None:
    """Aligned columns without any border, each row on one line whatever the width (for pipes and logs)."""
    widths = [max(cell_len(row[column]) for row in rows) for column in range(len(rows[0]))]
    for row in rows:
        cells = []
        for header, cell, width in zip(rows[0], row, widths, strict=True):
            pad = " " * (width - cell_len(cell))
            cells.append(pad + cell if header in _NUMBERS else cell + pad)
        console.print(Text("  ".join(cells).rstrip()), soft_wrap=True)
