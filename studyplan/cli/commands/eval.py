"""`studyplan eval [GOALS]`: compare models and protocols on one goal set."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from studyplan.cli.commands.batch import JobsOption
from studyplan.cli.exit_codes import EXIT_MODEL
from studyplan.cli.options import (
    BaseUrlOption,
    CatalogOption,
    DeadlineOption,
    MaxStepsOption,
    MaxTokensOption,
    ProtocolName,
    TemperatureOption,
    TimeoutOption,
    TodayOption,
)

if TYPE_CHECKING:
    from studyplan.app.evaluate import EvaluationInterrupted
    from studyplan.errors import Interrupted

EXAMPLES = """\b
Examples:
  studyplan eval
  studyplan eval goals.txt -m offline -m gpt-4o-mini --protocol tools --protocol text
"""


def eval_command(
    goals_file: Annotated[
        str | None,
        typer.Argument(metavar="[GOALS]", help="Goals file (as for batch; - reads stdin). Default: the built-in set "
                       "of 36 goals.", show_default=False),
    ] = None,
    models: Annotated[
        list[str] | None,
        typer.Option("--model", "-m", metavar="NAME", help="A model to compare (repeat the option); 'offline' is the "
                     "built-in planner. Default: offline.", show_default=False),
    ] = None,
    protocols: Annotated[
        list[ProtocolName] | None,
        typer.Option("--protocol", metavar="tools|text|auto", help="A protocol to compare (repeat the option). "
                     "Default: tools.", show_default=False),
    ] = None,
    base_url: BaseUrlOption = None,
    temperature: TemperatureOption = 0.2,
    jobs: JobsOption = 4,
    max_steps: MaxStepsOption = 8,
    today: TodayOption = None,
    catalog: CatalogOption = None,
    timeout: TimeoutOption = None,
    deadline: DeadlineOption = None,
    max_tokens: MaxTokensOption = None,
    report: Annotated[
        Path, typer.Option(metavar="FILE", help="Markdown report to write; the JSON report goes beside it (.json).")
    ] = Path("eval-report.md"),
    plans_dir: Annotated[
        Path | None,
        typer.Option(metavar="DIR", help="Keep the plans the runs write here. Default: a temporary folder, removed "
                     "afterwards.", show_default=False),
    ] = None,
) -> None:
    """Compare models and protocols on one goal set: success, format stability, hallucination, steps, cost.

    Stops at once (exit 4) when an endpoint refuses its first connection or the key; exits 4 when every run
    failed at the endpoint. Ctrl-C still writes the report of the runs that finished."""
    import tempfile

    from studyplan.app.batch import BatchSettings
    from studyplan.app.config import model_settings as resolve_settings
    from studyplan.app.evaluate import Combo, EvaluationInterrupted, RunMeasure, combos, default_goals, evaluate
    from studyplan.cli.inputs import read_goals
    from studyplan.cli.options import parse_today
    from studyplan.domain.catalog import Catalog
    from studyplan.llm.settings import BoundFlags
    from studyplan.ui.batch import batch_progress
    from studyplan.ui.console import make_console
    from studyplan.ui.evaluate import render_eval_run, render_eval_table

    goals = read_goals(goals_file) if goals_file else default_goals()
    source = goals_file or "the built-in goal set"
    bounds = BoundFlags(timeout, deadline, max_tokens)
    model_settings = [
        resolve_settings(name, base_url, temperature, bounds) for name in dict.fromkeys(models or ["offline"])
    ]
    chosen = combos(model_settings, [p.value for p in dict.fromkeys(protocols or [ProtocolName.tools])])
    loaded_catalog = Catalog.load(catalog)
    console = make_console()
    with tempfile.TemporaryDirectory(prefix="studyplan-eval-") as scratch:
        base = BatchSettings(parse_today(today), plans_dir or Path(scratch), model_settings[0], max_steps=max_steps)
        with batch_progress(console) as progress:
            task = progress.add_task("evaluating", total=len(chosen) * len(goals))

            def advance(combo: Combo, run: RunMeasure) -> None:
                render_eval_run(progress.console, combo.settings.model, combo.protocol, run)
                progress.advance(task)

            try:
                result = evaluate(goals, chosen, base, loaded_catalog, jobs, source, advance)
            except EvaluationInterrupted as interrupted:
                raise _report_interrupted(interrupted, report) from None
    render_eval_table(console, result, list(result.write(report)))
    runs = [run for measures in result.runs.values() for run in measures]
    if runs and all(run.status == "error" for run in runs):
        raise typer.Exit(EXIT_MODEL)


def _report_interrupted(interrupted: EvaluationInterrupted, report: Path) -> Interrupted:
    """Ctrl-C: write the report of the runs that finished, and say where it is."""
    from studyplan.errors import Interrupted

    listed = ", ".join(str(path) for path in interrupted.report.write(report))
    return Interrupted(f"Interrupted: the report of the {interrupted.finished_runs} runs that finished is in {listed}.")


def register(app: typer.Typer) -> None:
    app.command("eval", epilog=EXAMPLES)(eval_command)
