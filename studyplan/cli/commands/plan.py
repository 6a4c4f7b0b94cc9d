"""`studyplan plan GOAL` (also plain `studyplan GOAL`): make a study plan from one sentence."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from studyplan.cli.exit_codes import run_exit_code
from studyplan.cli.options import JsonOption, with_run_options

if TYPE_CHECKING:
    from studyplan.app.plan import RunOptions

EXAMPLES = """\b
Examples:
  studyplan "零基础3个月学机器学习"
  studyplan "learn web development in 6 months, 8 hours a week" --start monday
  echo "3个月学Python" | studyplan - --json
  studyplan "learn Python" -m gpt-4o-mini --protocol text --trace
"""

GoalArgument = Annotated[
    str,
    typer.Argument(
        metavar="GOAL",
        help='Your goal in one sentence, e.g. "零基础3个月学机器学习"; - reads it from stdin.',
        show_default=False,
    ),
]
StartOption = Annotated[
    str | None,
    typer.Option(
        metavar="today|monday|DATE",
        help="When the plan starts (a date is YYYY-MM-DD). Default: what the goal says, else today.",
        show_default=False,
    ),
]


@with_run_options()
def plan_command(goal: GoalArgument, options: RunOptions, start: StartOption = None, json_: JsonOption = False) -> None:
    """Make a study plan from one sentence (the default command)."""
    from studyplan.app.plan import plan_run, start_date
    from studyplan.cli.inputs import goal_text
    from studyplan.cli.running import watch

    first_day = start_date(start, options.today) if start is not None else None
    run = plan_run(goal_text(goal), options, first_day)
    finished = watch(run, options, json_)
    if json_:
        from studyplan.ui.json_output import plan_run_json, print_json

        print_json(plan_run_json(finished, run))
    raise typer.Exit(run_exit_code(finished.status, run.trace_stopped))


def register(app: typer.Typer) -> None:
    app.command("plan", epilog=EXAMPLES)(plan_command)
