"""What a revision changed, week by week, and the pace a replan starts from (studyplan revise / replan)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table
from rich.text import Text

from studyplan.paths import display_path
from studyplan.ui.console import table_box
from studyplan.ui.words import days_text, hours_text

if TYPE_CHECKING:
    from studyplan.domain.diff import PlanDiff, WeekChange
    from studyplan.domain.document import Week

DIFF_DETAIL_CHARS = 48  # an added or removed week's content, enough to recognise it
_CHANGE_STYLES = {"added": "green", "removed": "red", "changed": "yellow", "moved": "cyan"}


def render_week_diff(
    console: Console, diff: PlanDiff, kept_version: Path | None = None, moved: tuple[Path, Path] | None = None
) -> None:
    """What a revision changed: the plan's length and end, then one row per added, removed or changed week
    (a run of weeks that only moved to later or earlier dates is one row), and where the plan now is when
    `moved` (old path, new path) says the revision renamed it."""
    weeks = f"{diff.after_weeks} weeks"
    if diff.before_weeks != diff.after_weeks:
        weeks = f"{diff.before_weeks} → {weeks}"
    end = diff.after_end.isoformat()
    if diff.before_end != diff.after_end:
        end = f"{diff.before_end.isoformat()} → {end}"
    parts = [weeks, f"ends {end}"]
    if diff.before_hours != diff.after_hours:
        parts.append(f"{hours_text(diff.before_hours)} → {hours_text(diff.after_hours)} per week")
    console.print(Text.assemble(("What changed: ", "bold"), " · ".join(parts)), soft_wrap=True)
    if not diff.changes:
        console.print(Text("No week changed.", style="dim"))
    else:
        table = Table(box=table_box(console), show_edge=False, pad_edge=False)
        for column in ("Change", "Week", "Starts", "Courses", "What"):
            table.add_column(column, overflow="fold")
        for row in _diff_rows(diff.changes):
            table.add_row(*row)
        console.print(table)
    if diff.unchanged:
        console.print(Text(f"{diff.unchanged} week{'s' if diff.unchanged != 1 else ''} unchanged.", style="dim"))
    if kept_version is not None:
        console.print(Text(f"Previous version kept: {display_path(kept_version)}", style="dim"), soft_wrap=True)
    if moved is not None:
        render_plan_moved(console, *moved)


def render_plan_moved(console: Console, old: Path, new: Path) -> None:
    """The line saying a revision renamed the plan to follow its new length (its check-ins went with it)."""
    message = (
        f"The plan is now {display_path(new)} (renamed from {display_path(old)} to follow its new length; "
        "its check-ins moved with it)."
    )
    console.print(Text(message, style="bold"), soft_wrap=True)


def _diff_rows(changes: tuple[WeekChange, ...]) -> list[tuple[Text, Text, Text, Text, Text]]:
    rows = []
    index = 0
    while index < len(changes):
        change = changes[index]
        if change.kind == "moved":
            run = [change]
            while index + len(run) < len(changes) and _continues_move(run[-1], changes[index + len(run)]):
                run.append(changes[index + len(run)])
            rows.append(_moved_row(run))
            index += len(run)
            continue
        rows.append(_change_row(change))
        index += 1
    return rows


def _shift_days(change: WeekChange) -> int:
    assert change.before is not None and change.after is not None
    return (change.after.start - change.before.start).days


def _continues_move(previous: WeekChange, change: WeekChange) -> bool:
    return (
        change.kind == "moved"
        and change.before is not None
        and previous.before is not None
        and change.before.number == previous.before.number + 1
        and _shift_days(change) == _shift_days(previous)
    )


def _moved_row(run: list[WeekChange]) -> tuple[Text, Text, Text, Text, Text]:
    first, last = run[0], run[-1]
    assert first.before and first.after and last.before and last.after
    if len(run) == 1:
        numbers = f"{first.before.number} → {first.after.number}"
    else:
        numbers = f"{first.before.number}–{last.before.number} → {first.after.number}–{last.after.number}"
    days = _shift_days(first)
    weeks, rest = divmod(abs(days), 7)
    amount = f"{weeks} week{'s' if weeks != 1 else ''}" if not rest else days_text(abs(days))
    direction = "later" if days > 0 else "earlier"
    dates = f"{first.before.start.isoformat()} → {first.after.start.isoformat()}"
    return (
        Text("moved", style=_CHANGE_STYLES["moved"]),
        Text(numbers),
        Text(dates),
        Text("same as before", style="dim"),
        Text(f"{amount} {direction}" if days else "renumbered"),
    )


def _change_row(change: WeekChange) -> tuple[Text, Text, Text, Text, Text]:
    style = _CHANGE_STYLES[change.kind]
    before, after = change.before, change.after
    if before is not None and after is not None:
        number = str(after.number) if before.number == after.number else f"{before.number} → {after.number}"
        dates = after.start.isoformat()
        if before.start != after.start:
            dates = f"{before.start.isoformat()} → {dates}"
        courses = _courses_text(after)
        if "courses" in change.fields:
            courses = f"{_courses_text(before)} → {courses}"
        what = ", ".join(field for field in change.fields if field not in ("number", "dates"))
        return Text(change.kind, style=style), Text(number), Text(dates), Text(courses), Text(what or "dates")
    week = after or before
    assert week is not None
    detail = week.content if len(week.content) <= DIFF_DETAIL_CHARS else week.content[: DIFF_DETAIL_CHARS - 1] + "…"
    return (
        Text(change.kind, style=style),
        Text(str(week.number)),
        Text(week.start.isoformat()),
        Text(_courses_text(week)),
        Text(detail, style="dim"),
    )


def _courses_text(week: Week) -> str:
    return ", ".join(week.courses) or "—"


def render_reviser_answer(console: Console, answer: str) -> None:
    """The reviser's own answer when it saved nothing: why, and the requests it does understand."""
    console.print(Text(answer.strip()), soft_wrap=True)


def render_replan_request(console: Console, request: str, needed: bool) -> None:
    """The measured pace `studyplan replan` found, and whether it calls for a revision."""
    console.print(Text.assemble(("Measured pace: ", "bold"), request), soft_wrap=True)
    if not needed:
        console.print(Text("On pace: the plan needs no replanning.", style="green"))
