"""`studyplan batch GOALS`: plans for many goals, a few at a time, resumable."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from studyplan.cli.exit_codes import EXIT_BATCH_INCOMPLETE, EXIT_MODEL
from studyplan.cli.options import (
    BaseUrlOption,
    CatalogOption,
    DeadlineOption,
    MaxStepsOption,
    MaxTokensOption,
    ModelOption,
    NoLogOption,
    PlansDirOption,
    ProtocolName,
    ProtocolOption,
    TemperatureOption,
    TimeoutOption,
    TodayOption,
)

if TYPE_CHECKING:
    from studyplan.app.batch import BatchGoal

EXAMPLES = """\b
Examples:
  studyplan batch goals.txt -j 4
  printf '学Python\\nlearn SQL in 4 weeks\\n' | studyplan batch - --plans-dir plans/batch
"""

JobsOption = Annotated[
    int, typer.Option("--jobs", "-j", min=1, max=64, metavar="N", help="Goals run at the same time.")
]
GoalsFileArgument = Annotated[
    str,
    typer.Argument(
        metavar="GOALS",
        help='Goals: one per line, or JSON Lines like {"goal": ..., "today": ..., "max_steps": ...}; - reads '
        "stdin. Blank lines and # comments are skipped.",
        show_default=False,
    ),
]


def batch_command(
    goals_file: GoalsFileArgument,
    jobs: JobsOption = 4,
    model: ModelOption = None,
    base_url: BaseUrlOption = None,
    temperature: TemperatureOption = 0.2,
    protocol: ProtocolOption = ProtocolName.auto,
    max_steps: MaxStepsOption = 8,
    today: TodayOption = None,
    catalog: CatalogOption = None,
    plans_dir: PlansDirOption = None,
    timeout: TimeoutOption = None,
    deadline: DeadlineOption = None,
    max_tokens: MaxTokensOption = None,
    no_log: NoLogOption = False,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", metavar="FILE", help="Results file (JSON Lines, one line per goal, appended "
                     "as goals finish). A rerun skips the goals it records as saved. Default: "
                     "<plans-dir>/batch-results.jsonl.", show_default=False),
    ] = None,
) -> None:
    """Make plans for many goals at once. Exit code 0 when every goal has a plan, 7 when some have none, 4 when
    every goal failed at the endpoint (or it refused the first connection or the key)."""
    from studyplan.app.batch import (
        BatchSettings,
        GoalResult,
        ResultsFile,
        logged_goal_runner,
        run_concurrently,
        status_counts,
    )
    from studyplan.app.config import model_settings
    from studyplan.app.config import plans_dir as configured_plans_dir
    from studyplan.cli.inputs import read_goals
    from studyplan.cli.options import parse_today
    from studyplan.domain.catalog import Catalog
    from studyplan.llm.settings import BoundFlags
    from studyplan.ui.batch import batch_progress, render_batch_interrupted, render_batch_summary, render_goal_result
    from studyplan.ui.console import make_console

    goals = read_goals(goals_file)
    folder = configured_plans_dir(plans_dir)
    settings = BatchSettings(
        today=parse_today(today),
        plans_dir=folder,
        model=model_settings(model, base_url, temperature, BoundFlags(timeout, deadline, max_tokens)),
        protocol=protocol.value,
        max_steps=max_steps,
    )
    loaded_catalog = Catalog.load(catalog)
    results_file = ResultsFile(output or folder / "batch-results.jsonl")
    done = results_file.done_keys()
    todo = [goal for goal in goals if goal.key not in done]
    console = make_console()
    finished: list[GoalResult] = []
    started = time.perf_counter()
    with results_file, batch_progress(console) as progress:
        shown_protocol = "tools" if settings.model.offline else settings.protocol  # the planner's native calls
        task = progress.add_task(f"{settings.model.model} · {shown_protocol}", total=len(todo))

        def record(_goal: BatchGoal, result: GoalResult) -> None:
            results_file.append(result)
            finished.append(result)
            render_goal_result(progress.console, result)
            progress.advance(task)

        try:
            work = logged_goal_runner(settings, loaded_catalog, log=not no_log)
            run_concurrently(todo, work, jobs, record)
        except KeyboardInterrupt:
            render_batch_interrupted(progress.console, len(finished), results_file.path)
            raise
    counts = status_counts(finished)
    render_batch_summary(console, counts, len(goals) - len(todo), results_file.path, time.perf_counter() - started)
    if finished and all(result.status == "error" for result in finished):
        raise typer.Exit(EXIT_MODEL)  # not one goal reached a model: nothing was planned
    if any(not result.saved for result in finished):
        raise typer.Exit(EXIT_BATCH_INCOMPLETE)


def register(app: typer.Typer) -> None:
    app.command("batch", epilog=EXAMPLES)(batch_command)
