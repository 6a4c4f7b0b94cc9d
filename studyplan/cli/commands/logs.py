"""`studyplan logs [-n N] [--json]` and `studyplan logs path`: the run log, like `llm logs`."""

from __future__ import annotations

from typing import Annotated

import typer

from studyplan.cli.options import JsonOption

EXAMPLES = """\b
Examples:
  studyplan logs -n 3
  studyplan logs --json | jq '.[0].messages'
  studyplan logs path
"""

logs_app = typer.Typer(
    help="Show the latest runs from the run log (turn it off with --no-log or `config set log false`).",
    epilog=EXAMPLES,
)


@logs_app.callback(invoke_without_command=True)
def logs_command(
    ctx: typer.Context,
    count: Annotated[int, typer.Option("-n", "--count", min=1, metavar="N", help="How many runs, newest first.")] = 3,
    json_: JsonOption = False,
) -> None:
    """Show the latest runs: goal, model, endpoint, status, plan, steps, tokens, seconds (--json: the messages too)."""
    if ctx.invoked_subcommand is not None:
        return
    from studyplan.app.logs import log_path, read_runs
    from studyplan.ui.console import make_console
    from studyplan.ui.json_output import print_json
    from studyplan.ui.logs import render_logged_runs

    runs = read_runs(log_path(), count)
    if json_:
        print_json([run.to_json() for run in runs])
        return
    render_logged_runs(make_console(), runs)


@logs_app.command("path")
def path_command() -> None:
    """Print where the run log is (SQLite). Move it with STUDYPLAN_DATA_DIR."""
    from studyplan.app.logs import log_path

    typer.echo(str(log_path()))


def register(app: typer.Typer) -> None:
    app.add_typer(logs_app, name="logs")
