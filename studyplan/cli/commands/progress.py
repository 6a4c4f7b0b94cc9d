"""`studyplan checkin`, `studyplan status` and `studyplan export`: life with a plan after it is written."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from studyplan.cli.options import CatalogOption, PlanArgument, TodayOption


def checkin_command(
    plan: PlanArgument,
    week: Annotated[
        int | None, typer.Option(help="Plan week number. Default: the week containing today.", show_default=False)
    ] = None,
    hours: Annotated[float | None, typer.Option(help="Hours studied (added to the week).", show_default=False)] = None,
    note: Annotated[str | None, typer.Option(help="A note on what you did.", show_default=False)] = None,
    done: Annotated[bool, typer.Option("--done", help="Mark the week as done.")] = False,
    today: TodayOption = None,
) -> None:
    """Record what you actually did in a plan week (kept beside the plan, survives revisions)."""
    from studyplan.app.progress import check_in
    from studyplan.cli.main import parse_today
    from studyplan.ui.render import make_console, render_checkin

    result = check_in(plan, week, hours, note, done, parse_today(today))
    render_checkin(make_console(), result)


def status_command(plan: PlanArgument, today: TodayOption = None, catalog: CatalogOption = None) -> None:
    """Show the plan against reality: weeks done, hours spent, ahead/behind, and what is next."""
    from studyplan.app.progress import plan_status
    from studyplan.cli.main import parse_today
    from studyplan.domain.catalog import Catalog
    from studyplan.ui.render import make_console, render_status

    report = plan_status(plan, parse_today(today), Catalog.load(catalog))
    render_status(make_console(), report)


def export_command(
    plan: PlanArgument,
    ics: Annotated[bool, typer.Option("--ics", help="Write an iCalendar (.ics) file.")] = False,
    json_: Annotated[bool, typer.Option("--json", help="Write the plan's structure as JSON.")] = False,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="File (or folder) to write. Default: next to the plan.", show_default=False
        ),
    ] = None,
    sessions: Annotated[
        bool, typer.Option("--sessions", help="Calendar: timed study sessions instead of one event per week.")
    ] = False,
    days: Annotated[
        str | None,
        typer.Option(help="Session weekdays, e.g. mon,wed,fri. Default: about 2 h sessions from Monday on.",
                     show_default=False),
    ] = None,
    at: Annotated[
        str | None, typer.Option(help="Session start time (local, HH:MM). Default: 19:00.", show_default=False)
    ] = None,
    catalog: CatalogOption = None,
) -> None:
    """Export a plan as a calendar (.ics, for Google/Apple Calendar) or as JSON for other tools."""
    from studyplan.app.export import DEFAULT_SESSION_START, export_plan
    from studyplan.domain.catalog import Catalog
    from studyplan.errors import UsageError
    from studyplan.ui.render import make_console, render_export

    if ics == json_:
        raise UsageError("choose one format: --ics or --json")
    # Choosing days or a time means sessions: silently writing week events instead would surprise.
    sessions = sessions or days is not None or at is not None
    if json_ and sessions:
        raise UsageError("--sessions, --days and --at only apply to --ics")
    result = export_plan(
        plan, "ics" if ics else "json", Catalog.load(catalog), output=output,
        sessions=sessions, days=days, at=at or DEFAULT_SESSION_START,
    )
    render_export(make_console(), result)


def register(app: typer.Typer) -> None:
    app.command("checkin")(checkin_command)
    app.command("status")(status_command)
    app.command("export")(export_command)
