"""`studyplan open PLAN`: write the plan's HTML page and open it in the browser, when there is one."""

from __future__ import annotations

from typing import Annotated

import typer

from studyplan.cli.options import CatalogOption, PageOutputOption, PlanArgument, TodayOption
from studyplan.cli.pages import write_plan_page

EXAMPLES = """\b
Examples:
  studyplan open plans/ml.md
  studyplan open plans/ml.md --no-browser -o ~/Desktop
"""


def open_command(
    plan: PlanArgument,
    browser: Annotated[
        bool, typer.Option("--browser/--no-browser", help="Open the page in the browser (when there is one).")
    ] = True,
    output: PageOutputOption = None,
    today: TodayOption = None,
    catalog: CatalogOption = None,
) -> None:
    """Write the plan as a self-contained HTML page (beside the plan) and open it in the browser."""
    from studyplan.app.library import plan_view
    from studyplan.cli.options import parse_today
    from studyplan.domain.catalog import Catalog

    view = plan_view(plan, parse_today(today), Catalog.load(catalog))
    write_plan_page(view, output, open_browser=browser)


def register(app: typer.Typer) -> None:
    app.command("open", epilog=EXAMPLES)(open_command)
