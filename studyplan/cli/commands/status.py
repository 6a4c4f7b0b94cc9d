"""`studyplan status PLAN`: the plan against reality."""

from __future__ import annotations

import typer

from studyplan.cli.options import CatalogOption, JsonOption, PlanArgument, TodayOption

EXAMPLES = """\b
Examples:
  studyplan status plans/ml.md
  studyplan status plans/ml.md --json | jq .days_ahead
"""


def status_command(
    plan: PlanArgument, today: TodayOption = None, catalog: CatalogOption = None, json_: JsonOption = False
) -> None:
    """Show the plan against reality: weeks done, hours spent, ahead/behind, and what is next."""
    from studyplan.app.progress import plan_status
    from studyplan.cli.options import parse_today
    from studyplan.domain.catalog import Catalog

    report = plan_status(plan, parse_today(today), Catalog.load(catalog))
    if json_:
        from studyplan.ui.json_output import print_json, status_json

        print_json(status_json(report))
        return
    from studyplan.ui.console import make_console
    from studyplan.ui.status import render_status

    render_status(make_console(), report)


def register(app: typer.Typer) -> None:
    app.command("status", epilog=EXAMPLES)(status_command)
