"""`studyplan show PLAN`: the plan in the terminal, this week marked, progress from check-ins."""

from __future__ import annotations

from typing import Annotated

import typer

from studyplan.cli.options import CatalogOption, PageOutputOption, PlanArgument, TodayOption

EXAMPLES = """\b
Examples:
  studyplan show plans/ml.md
  studyplan show plans/ml.md | less
  studyplan show plans/ml.md --html
"""

HtmlOption = Annotated[
    bool, typer.Option("--html", help="Write the plan as a self-contained HTML page beside it instead.")
]


def show_command(
    plan: PlanArgument,
    html: HtmlOption = False,
    output: PageOutputOption = None,
    today: TodayOption = None,
    catalog: CatalogOption = None,
) -> None:
    """Show a plan: progress, pace, every week with the done ones ticked and this week marked."""
    from studyplan.app.library import plan_view
    from studyplan.cli.options import parse_today
    from studyplan.domain.catalog import Catalog
    from studyplan.errors import UsageError

    if output is not None and not html:
        raise UsageError("--output is for the HTML page: add --html (or use studyplan open)")
    view = plan_view(plan, parse_today(today), Catalog.load(catalog))
    if html:
        from studyplan.cli.pages import write_plan_page

        write_plan_page(view, output, open_browser=False)
        return
    from studyplan.ui.console import make_console
    from studyplan.ui.plan_view import render_plan_view

    render_plan_view(make_console(), view)


def register(app: typer.Typer) -> None:
    app.command("show", epilog=EXAMPLES)(show_command)
