"""`studyplan revise PLAN REQUEST`: change a saved plan in conversation."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from studyplan.cli.exit_codes import run_exit_code
from studyplan.cli.options import JsonOption, PlanArgument, with_run_options

if TYPE_CHECKING:
    from studyplan.app.plan import RunOptions

EXAMPLES = """\b
Examples:
  studyplan revise plans/ml.md "第三周太紧了，帮我减掉一半内容"
  studyplan revise plans/web.md "I can only do 5 hours a week from now on" --json
"""

RequestArgument = Annotated[
    str,
    typer.Argument(
        metavar="REQUEST", help='What to change, e.g. "第三周太紧了，帮我减掉一半内容".', show_default=False
    ),
]


def revise_plan(plan: Path, request: str, options: RunOptions, json_output: bool) -> None:
    """Run the revision agent on `plan`, show the week diff (or the JSON), and end with the run's exit code."""
    from studyplan.app.revise import revision_run
    from studyplan.cli.running import watch

    # The revision is written in place, so its trace (when asked for) goes beside the plan too.
    revision = revision_run(request, dataclasses.replace(options, plans_dir=plan.parent), plan)
    finished = watch(revision.run, options, json_output)
    result = revision.result(finished)
    if json_output:
        from studyplan.ui.json_output import print_json, revision_json

        print_json(revision_json(result, revision))
    elif result.diff is not None and not options.quiet:
        from studyplan.ui.console import make_console
        from studyplan.ui.diff import render_week_diff

        moved = (result.renamed_from, result.plan_path) if result.renamed_from is not None else None
        render_week_diff(make_console(), result.diff, result.kept_versions[0] if result.kept_versions else None, moved)
    elif result.renamed_from is not None:  # -q: the path the plan moved to is the one thing to say
        from studyplan.ui.console import make_console
        from studyplan.ui.diff import render_plan_moved

        render_plan_moved(make_console(), result.renamed_from, result.plan_path)
    elif options.quiet and result.diff is None and finished.summary.strip():
        # -q shows only the error line above; the reviser's answer says why (and what it does understand).
        from studyplan.ui.console import make_console
        from studyplan.ui.diff import render_reviser_answer

        render_reviser_answer(make_console(stderr=True), finished.summary)
    raise typer.Exit(run_exit_code(finished.status, revision.run.trace_stopped))


@with_run_options(without=("plans_dir",))
def revise_command(
    plan: PlanArgument, request: RequestArgument, options: RunOptions, json_: JsonOption = False
) -> None:
    """Change a saved plan in conversation: weeks checked in as done stay, the previous version is kept."""
    revise_plan(plan, request, options, json_)


def register(app: typer.Typer) -> None:
    app.command("revise", epilog=EXAMPLES)(revise_command)
