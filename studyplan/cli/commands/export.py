"""`studyplan export PLAN --ics|--json`: the plan as a calendar or as JSON."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from studyplan.cli.options import CatalogOption, PlanArgument

EXAMPLES = """\b
Examples:
  studyplan export plans/ml.md --ics
  studyplan export plans/ml.md --ics --sessions --days mon,wed,fri --at 19:30
  studyplan export plans/ml.md --ics --remind 15
  studyplan export plans/ml.md --json -o - | jq '.phases[0].weeks[0]'
"""
STDOUT = "-"


def export_command(
    plan: PlanArgument,
    ics: Annotated[bool, typer.Option("--ics", help="Write an iCalendar (.ics) file.")] = False,
    json_: Annotated[bool, typer.Option("--json", help="Write the plan's structure as JSON.")] = False,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", metavar="PATH",
            help="File (or folder) to write; - writes to stdout. Default: next to the plan.", show_default=False,
        ),
    ] = None,
    sessions: Annotated[
        bool, typer.Option("--sessions", help="Calendar: timed study sessions instead of one event per week.")
    ] = False,
    days: Annotated[
        str | None,
        typer.Option(metavar="DAYS", help="Session weekdays, e.g. mon,wed,fri. Default: about 2 h sessions from "
                     "Monday on.", show_default=False),
    ] = None,
    at: Annotated[
        str | None,
        typer.Option(metavar="HH:MM", help="Session start time (local). Default: 19:00.", show_default=False),
    ] = None,
    remind: Annotated[
        int | None,
        typer.Option(metavar="MINUTES", help="Calendar: a reminder this many minutes before each study session "
                     "(implies --sessions).", show_default=False),
    ] = None,
    catalog: CatalogOption = None,
) -> None:
    """Export a plan as a calendar (.ics, for Google/Apple Calendar) or as JSON for other tools.

    Exporting the same plan again updates the calendar written before (same events, a new revision), so
    re-importing it changes the events instead of adding copies; any other file is never overwritten."""
    from studyplan.app.export import DEFAULT_SESSION_START, ExportKind, export_content, export_plan
    from studyplan.domain.catalog import Catalog
    from studyplan.errors import UsageError
    from studyplan.ui.console import make_console
    from studyplan.ui.export import render_export

    if ics == json_:
        raise UsageError("choose one format: --ics or --json")
    # Choosing days or a time means sessions: silently writing week events instead would surprise.
    sessions = sessions or days is not None or at is not None or remind is not None
    if json_ and sessions:
        raise UsageError("--sessions, --days, --at and --remind only apply to --ics")
    kind: ExportKind = "ics" if ics else "json"
    if output is not None and str(output) == STDOUT:
        content, _, _ = export_content(
            plan, kind, Catalog.load(catalog), sessions, days, at or DEFAULT_SESSION_START, remind=remind
        )
        typer.echo(content, nl=not content.endswith("\n"))
        return
    result = export_plan(
        plan, kind, Catalog.load(catalog), output=output, sessions=sessions, days=days, at=at or DEFAULT_SESSION_START,
        remind=remind,
    )
    render_export(make_console(), result)


def register(app: typer.Typer) -> None:
    app.command("export", epilog=EXAMPLES)(export_command)
