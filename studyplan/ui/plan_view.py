"""One plan in the terminal: its progress, then its Markdown with done weeks ticked and this week marked
(studyplan show). A terminal gets Rich Markdown with this week in a panel; a pipe gets the Markdown itself."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich import box
from rich.console import Console
from rich.markdown import Markdown
from rich.panel import Panel
from rich.text import Text

from studyplan.paths import display_path
from studyplan.ui.console import is_plain
from studyplan.ui.words import DONE_MARK, hours_text, span_text

if TYPE_CHECKING:
    from studyplan.app.library import PlanView, Section

THIS_WEEK = "◀ this week"


def render_plan_view(console: Console, view: PlanView) -> None:
    from studyplan.app.library import pace_words

    report = view.report
    console.print(
        Text.assemble(
            (report.plan.title or report.plan_path.stem, "bold"),
            (f" · {display_path(report.plan_path)} · as of {report.today.isoformat()}", "dim"),
        ),
        soft_wrap=True,
    )
    progress = (
        f"{report.done_weeks}/{len(report.weeks)} weeks done · {hours_text(report.spent_hours)} of "
        f"{hours_text(report.planned_hours)} spent · {pace_words(report)}"
    )
    current = view.current
    if current is not None:
        progress += f" · this week: week {current.week.number} ({span_text(current.week.start, current.week.end)})"
    console.print(Text(progress), soft_wrap=True)
    console.print()
    plain = is_plain(console)
    for section in view.sections:
        text = annotated(section)
        if plain:
            console.print(Text(text.rstrip("\n")), soft_wrap=True)
            console.print()
        elif section.week is not None and section.week.is_current:
            console.print(Panel(Markdown(text), title=Text(THIS_WEEK), title_align="left", border_style="cyan",
                                box=box.ROUNDED))
        else:
            console.print(Markdown(text))


def annotated(section: Section) -> str:
    """The section's Markdown with its heading marked: ✓ for a week checked in as done, ◀ for this week."""
    status = section.week
    if status is None:
        return section.markdown
    marks = [mark for mark, on in ((DONE_MARK, status.done), (THIS_WEEK, status.is_current)) if on]
    if not marks:
        return section.markdown
    heading, newline, rest = section.markdown.partition("\n")
    return f"{heading.rstrip()} {' '.join(marks)}{newline}{rest}"
