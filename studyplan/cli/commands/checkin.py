"""`studyplan checkin PLAN`: record what you actually did in a plan week."""

from __future__ import annotations

from typing import Annotated

import typer

from studyplan.cli.options import PlanArgument, TodayOption

EXAMPLES = """\b
Examples:
  studyplan checkin plans/ml.md --hours 3 --note "finished the first two lectures"
  studyplan checkin plans/ml.md --week 1 --done
"""


def checkin_command(
    plan: PlanArgument,
    week: Annotated[
        int | None,
        typer.Option(metavar="N", help="Plan week number. Default: the week containing today.", show_default=False),
    ] = None,
    hours: Annotated[
        float | None, typer.Option(metavar="H", help="Hours studied (added to the week).", show_default=False)
    ] = None,
    note: Annotated[
        str | None, typer.Option(metavar="TEXT", help="A note on what you did.", show_default=False)
    ] = None,
    done: Annotated[bool, typer.Option("--done", help="Mark the week as done.")] = False,
    today: TodayOption = None,
) -> None:
    """Record what you actually did in a plan week (kept beside the plan, survives revisions)."""
    from studyplan.app.progress import check_in
    from studyplan.cli.options import parse_today
    from studyplan.ui.console import make_console
    from studyplan.ui.status import render_checkin

    result = check_in(plan, week, hours, note, done, parse_today(today))
    render_checkin(make_console(), result)


def register(app: typer.Typer) -> None:
    app.command("checkin", epilog=EXAMPLES)(checkin_command)
