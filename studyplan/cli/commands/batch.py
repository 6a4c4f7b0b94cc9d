"""`studyplan batch` (many goals, a few at a time, resumable) and `studyplan eval` (compare models on a goal set)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from studyplan.cli.options import (
    BaseUrlOption,
    CatalogOption,
    MaxStepsOption,
    ModelOption,
    ProtocolName,
    TemperatureOption,
    TodayOption,
)

if TYPE_CHECKING:
    from studyplan.app.batch import BatchGoal

JobsOption = Annotated[int, typer.Option("--jobs", "-j", min=1, max=64, help="Goals run at the same time.")]


def batch_command(
    goals_file: Annotated[
        str, typer.Argument(help="Goals: one per line, or JSON Lines like {\"goal\": ..., \"today\": ..., "
                            "\"max_steps\": ...}; - reads stdin. Blank lines and # comments are skipped.")
    ],
    jobs: JobsOption = 4,
    model: ModelOption = None,
    base_url: BaseUrlOption = None,
    temperature: TemperatureOption = 0.2,
    protocol: Annotated[ProtocolName, typer.Option(help="tools, text, or auto (tools, else text).")] = (
        ProtocolName.auto
    ),
    max_steps: MaxStepsOption = 8,
    today: TodayOption = None,
    catalog: CatalogOption = None,
    plans_dir: Annotated[
        Path, typer.Option(envvar="STUDYPLAN_PLANS_DIR", help="Folder the plans are written to.")
    ] = Path("plans"),
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Results file (JSON Lines, one line per goal, appended as goals "
                     "finish). A rerun skips the goals it records as saved. Default: <plans-dir>/batch-results.jsonl.",
                     show_default=False),
    ] = None,
) -> None:
    """Make plans for many goals at once. Exit code 0 when every goal has a plan, 7 when some have none."""
    import time

    from studyplan.app.batch import BatchSettings, GoalResult, ResultsFile, run_concurrently, run_goal, status_counts
    from studyplan.cli.main import parse_today
    from studyplan.domain.catalog import Catalog
    from studyplan.llm.settings import resolve_settings
    from studyplan.ui.render import (
        batch_progress,
        make_console,
        render_batch_interrupted,
        render_batch_summary,
        render_goal_result,
    )

    goals = _read_goals(goals_file)
    settings = BatchSettings(
        today=parse_today(today),
        plans_dir=plans_dir,
        model=resolve_settings(model, base_url, temperature),
        protocol=protocol.value,
        max_steps=max_steps,
    )
    loaded_catalog = Catalog.load(catalog)
    results_file = ResultsFile(output or plans_dir / "batch-results.jsonl")
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
            run_concurrently(todo, lambda goal, stop: run_goal(goal, settings, loaded_catalog, stop), jobs, record)
        except KeyboardInterrupt:
            render_batch_interrupted(progress.console, len(finished), results_file.path)
            raise
    counts = status_counts(finished)
    render_batch_summary(console, counts, len(goals) - len(todo), results_file.path, time.perf_counter() - started)
    if any(not result.saved for result in finished):
        from studyplan.cli.main import EXIT_BATCH_INCOMPLETE

        raise typer.Exit(EXIT_BATCH_INCOMPLETE)


def eval_command(
    goals_file: Annotated[
        str | None, typer.Argument(help="Goals file (as for batch; - reads stdin). Default: the built-in set of "
                                   "36 goals.", show_default=False)
    ] = None,
    models: Annotated[
        list[str] | None,
        typer.Option("--model", "-m", help="A model to compare (repeat the option); 'offline' is the built-in "
                     "planner. Default: offline.", show_default=False),
    ] = None,
    protocols: Annotated[
        list[ProtocolName] | None,
        typer.Option("--protocol", help="A protocol to compare (repeat the option). Default: tools.",
                     show_default=False),
    ] = None,
    base_url: BaseUrlOption = None,
    temperature: TemperatureOption = 0.2,
    jobs: JobsOption = 4,
    max_steps: MaxStepsOption = 8,
    today: TodayOption = None,
    catalog: CatalogOption = None,
    report: Annotated[
        Path, typer.Option(help="Markdown report to write; the JSON report goes beside it (.json).")
    ] = Path("eval-report.md"),
    plans_dir: Annotated[
        Path | None,
        typer.Option(help="Keep the plans the runs write here. Default: a temporary folder, removed afterwards.",
                     show_default=False),
    ] = None,
) -> None:
    """Compare models and protocols on one goal set: success, format stability, hallucination, steps, cost."""
    import tempfile

    from studyplan.app.batch import BatchSettings
    from studyplan.app.evaluate import RunMeasure, combos, default_goals, evaluate
    from studyplan.cli.main import parse_today
    from studyplan.domain.catalog import Catalog
    from studyplan.llm.settings import resolve_settings
    from studyplan.ui.render import batch_progress, make_console, render_eval_table

    goals = _read_goals(goals_file) if goals_file else default_goals()
    source = goals_file or "the built-in goal set"
    model_settings = [resolve_settings(name, base_url, temperature) for name in dict.fromkeys(models or ["offline"])]
    chosen = combos(model_settings, [p.value for p in dict.fromkeys(protocols or [ProtocolName.tools])])
    loaded_catalog = Catalog.load(catalog)
    console = make_console()
    with tempfile.TemporaryDirectory(prefix="studyplan-eval-") as scratch:
        base = BatchSettings(parse_today(today), plans_dir or Path(scratch), model_settings[0], max_steps=max_steps)
        with batch_progress(console) as progress:
            task = progress.add_task("evaluating", total=len(chosen) * len(goals))

            def advance(_combo: object, _run: RunMeasure) -> None:
                progress.advance(task)

            result = evaluate(goals, chosen, base, loaded_catalog, jobs, source, advance)
    render_eval_table(console, result, list(result.write(report)))


def _read_goals(goals_file: str) -> list[BatchGoal]:
    from studyplan.app.batch import parse_goals
    from studyplan.errors import UsageError

    if goals_file == "-":
        return parse_goals(sys.stdin.read(), "stdin")
    path = Path(goals_file)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise UsageError(f"{goals_file}: goals file not found") from None
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"{goals_file}: cannot be read ({error})") from None
    return parse_goals(text, goals_file)


def register(app: typer.Typer) -> None:
    app.command("batch")(batch_command)
    app.command("eval")(eval_command)
