"""The comparison table of an evaluation (studyplan eval)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from studyplan.paths import display_path
from studyplan.ui.console import table_box

if TYPE_CHECKING:
    from studyplan.app.evaluate import EvalReport, RunMeasure

RUN_ERROR_PREVIEW_CHARS = 160


def render_eval_run(console: Console, model: str, protocol: str, run: RunMeasure) -> None:
    """One line per finished run, so a piped evaluation shows its progress: model · protocol · goal → status."""
    outcome = run.status if run.error is None else f"{run.status}: {' '.join(run.error.split())}"
    if len(outcome) > RUN_ERROR_PREVIEW_CHARS:
        outcome = outcome[: RUN_ERROR_PREVIEW_CHARS - 1] + "…"
    style = "green" if run.status == "saved" else "yellow"
    console.print(
        Text.assemble((f"{model} · {protocol}  ", "dim"), (run.goal, "bold"), (" → ", "dim"), (outcome, style),
                      (f"  ({run.seconds:.1f}s)", "dim")),
        soft_wrap=True,
    )


def render_eval_table(console: Console, report: EvalReport, report_paths: list[Path]) -> None:
    """The evaluation's comparison table: one row per model × protocol (definitions are in the report)."""
    from studyplan.app.evaluate import format_number, format_rate

    table = Table(
        title=Text(f"Evaluation on {report.goals_source}"),
        caption=Text("Steps: median/p90 steps to a saved plan · Tokens, Secs: spent per plan saved"),
        box=table_box(console, box.SIMPLE_HEAVY),
        pad_edge=False,
    )
    table.add_column(Text("Model"), overflow="fold", min_width=8)
    table.add_column(Text("Proto."), min_width=5, no_wrap=True)
    for header in ("Success", "Plans", "Format", "Halluc.", "Steps", "Tokens", "Secs"):
        table.add_column(Text(header), justify="right", no_wrap=True)
    for s in report.summaries:
        steps = "—" if s.steps_median is None else f"{s.steps_median:g}/{s.steps_p90}"
        table.add_row(
            Text(s.model), Text(s.protocol), Text(format_rate(s.success_rate)), Text(str(s.plans)),
            Text(format_rate(s.format_stability)), Text(format_rate(s.hallucination_rate)), Text(steps),
            Text(format_number(s.tokens_per_plan, 0)), Text(format_number(s.seconds_per_plan, 2)),
        )
    console.print(table)
    for s in report.summaries:
        if s.errors:  # the endpoint failed, not the model: the figures above understate it
            console.print(Text(f"{s.model} · {s.protocol}: {s.errors} runs ended with an endpoint or internal "
                               "error (see the JSON report).", style="red"), soft_wrap=True)
    listed = ", ".join(display_path(path) for path in report_paths)
    console.print(Text(f"Report: {listed}", style="dim"), soft_wrap=True)
