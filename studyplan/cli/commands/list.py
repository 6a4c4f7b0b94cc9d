"""`studyplan list`: the plans in the plans folder with their dates, weeks, progress and pace."""

from __future__ import annotations

import typer

from studyplan.cli.options import CatalogOption, JsonOption, PlansDirOption, TodayOption

EXAMPLES = """\b
Examples:
  studyplan list
  studyplan list --plans-dir ~/plans --json
"""


def list_command(
    plans_dir: PlansDirOption = None,
    today: TodayOption = None,
    catalog: CatalogOption = None,
    json_: JsonOption = False,
) -> None:
    """List your plans: dates, weeks, weeks done, hours spent and pace (from check-ins)."""
    from studyplan.app.config import plans_dir as configured_plans_dir
    from studyplan.app.library import list_plans
    from studyplan.cli.options import parse_today
    from studyplan.domain.catalog import Catalog

    folder = configured_plans_dir(plans_dir)  # the flag, $STUDYPLAN_PLANS_DIR, the config file, else plans/
    entries = list_plans(folder, parse_today(today), Catalog.load(catalog))
    if json_:
        from studyplan.ui.json_output import plan_list_json, print_json

        print_json(plan_list_json(entries))
        return
    from studyplan.ui.console import make_console
    from studyplan.ui.plans import render_plan_list

    render_plan_list(make_console(), folder, entries)


def register(app: typer.Typer) -> None:
    app.command("list", epilog=EXAMPLES)(list_command)
