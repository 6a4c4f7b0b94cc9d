"""`studyplan replan PLAN`: revise a plan from the measured pace (check-ins)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from studyplan.cli.commands.revise import revise_plan
from studyplan.cli.options import PlanArgument, with_run_options

if TYPE_CHECKING:
    from studyplan.app.plan import RunOptions

EXAMPLES = """\b
Examples:
  studyplan checkin plans/ml.md --hours 3 --done
  studyplan replan plans/ml.md
"""


@with_run_options(without=("plans_dir",))
def replan_command(plan: PlanArgument, options: RunOptions) -> None:
    """Revise the plan from your measured pace (check-ins: weeks done, hours spent, days ahead or behind)."""
    from studyplan.app.progress import plan_status
    from studyplan.app.revise import measure_pace, replan_request
    from studyplan.domain.catalog import Catalog
    from studyplan.ui.console import make_console
    from studyplan.ui.diff import render_replan_request

    report = plan_status(plan, options.today, Catalog.load(options.catalog))
    pace = measure_pace(report)
    request = replan_request(pace, report.plan.lang)
    render_replan_request(make_console(), request, needed=pace.off_pace)
    if not pace.off_pace:
        raise typer.Exit(0)
    revise_plan(plan, request, options, json_output=False)


def register(app: typer.Typer) -> None:
    app.command("replan", epilog=EXAMPLES)(replan_command)
