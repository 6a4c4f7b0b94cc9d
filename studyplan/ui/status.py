"""Life with a plan: the check-in confirmation and the status screen (studyplan checkin / status)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from studyplan.paths import display_path
from studyplan.ui.console import is_plain, table_box
from studyplan.ui.words import DONE_MARK, days_text, hours_text, percent, span_text

if TYPE_CHECKING:
    from studyplan.app.progress import CheckinResult, StatusReport

PROGRESS_BAR_WIDTH = 30


def render_checkin(console: Console, result: CheckinResult) -> None:
    """One confirmation line: which week, what was added, the week's totals."""
    checkin, week = result.checkin, result.week
    parts = [f"{hours_text(result.week_spent_hours)} of {hours_text(result.planned_hours)} spent this week"]
    if checkin.hours is not None:
        parts.insert(0, f"+{hours_text(checkin.hours)}")
    if result.week_done:
        parts.append(f"done {DONE_MARK}")
    if checkin.note:
        parts.append("note saved")
    line = Text.assemble(
        (f"{DONE_MARK} Checked in week {week.number} ", "bold green"),
        (f"({span_text(week.start, week.end)}) of {display_path(result.plan_path)}: ", "green"),
        (" · ".join(parts), "bold"),
    )
    console.print(line, soft_wrap=True)


def render_status(console: Console, report: StatusReport) -> None:
    """Plan against reality: a table of weeks, progress bars, the pace in days, and what to do next."""
    plan = report.plan
    console.print(
        Text.assemble(
            (plan.title or report.plan_path.stem, "bold"),
            (f" · {display_path(report.plan_path)} · as of {report.today.isoformat()}", "dim"),
        ),
        soft_wrap=True,
    )
    table = Table(box=table_box(console))
    table.add_column("Week", justify="right", no_wrap=True)
    table.add_column("Dates", no_wrap=True)
    table.add_column("Courses · notes")  # the one column that wraps, so the numbers stay readable
    table.add_column("Planned", justify="right", no_wrap=True)
    table.add_column("Spent", justify="right", no_wrap=True)
    table.add_column("Done", justify="center", no_wrap=True)
    for status in report.weeks:
        week = status.week
        courses = Text(", ".join(status.course_labels))
        if status.notes:
            courses.append("\n" + "; ".join(status.notes), style="dim")
        table.add_row(
            Text(f"▸ {week.number}" if status.is_current else str(week.number)),
            # The year once: weeks are 7 days, so the end's month and day are enough.
            Text(f"{week.start.isoformat()} – {week.end:%m-%d}"),
            courses,
            Text(hours_text(status.planned_hours)),
            Text(hours_text(status.spent_hours) if status.spent_hours else "–"),
            Text(DONE_MARK, style="bold green") if status.done else Text(""),
            style="bold" if status.is_current else None,
        )
    console.print(table)

    total_weeks = len(report.weeks)
    planned = report.planned_hours
    weeks_line = f"{report.done_weeks}/{total_weeks} weeks done ({percent(report.done_weeks, total_weeks)})"
    spent = report.spent_hours
    hours_line = f"{hours_text(spent)} of {hours_text(planned)} spent ({percent(spent, planned)})"
    if is_plain(console):  # bars are drawn with box characters: plain output says it in words only
        console.print(Text(f"Weeks: {weeks_line}"), soft_wrap=True)
        console.print(Text(f"Hours: {hours_line}"), soft_wrap=True)
    else:
        bars = Table.grid(padding=(0, 1))
        bars.add_row(
            Text("Weeks"),
            ProgressBar(total=total_weeks, completed=report.done_weeks, width=PROGRESS_BAR_WIDTH),
            Text(weeks_line),
        )
        bars.add_row(
            Text("Hours"),
            ProgressBar(total=planned or 1, completed=report.spent_hours, width=PROGRESS_BAR_WIDTH),
            Text(hours_line),
        )
        console.print(bars)
    console.print(_pace_line(report), soft_wrap=True)
    _print_next_week(console, report)


def _pace_line(report: StatusReport) -> Text:
    ahead = report.days_ahead
    if ahead > 0:
        verdict = Text(f"ahead by {days_text(ahead)}", style="bold green")
    elif ahead < 0:
        verdict = Text(f"behind by {days_text(-ahead)}", style="bold yellow")
    else:
        verdict = Text("on schedule", style="bold green")
    first_day = report.weeks[0].week.start
    if report.today < first_day:
        where = f"the plan starts on {first_day.isoformat()}"
    else:
        where = f"the calendar is at day {report.expected_days:g} of {report.total_days}"
    detail = f" — {where}; your work covers {days_text(round(report.actual_days, 1))}."
    return Text.assemble("Pace: ", verdict, (detail, "dim"))


def _print_next_week(console: Console, report: StatusReport) -> None:
    upcoming = report.next_week
    if upcoming is None:
        console.print(Text(f"{DONE_MARK} All {len(report.weeks)} weeks are done.", style="bold green"))
        return
    week = upcoming.week
    console.print(
        Text.assemble(
            ("Next: ", "bold"),
            (f"week {week.number} ({span_text(week.start, week.end)}) · {', '.join(upcoming.course_labels)}", "bold"),
        ),
        soft_wrap=True,
    )
    lines = Text()
    if week.content:
        lines.append(f"  {week.content}\n")
    for task in week.tasks:
        lines.append(f"  - {task}\n")
    if week.deliverable:
        lines.append(f"  Deliverable: {week.deliverable}\n")
    lines.rstrip()
    if lines.plain:
        console.print(lines)
