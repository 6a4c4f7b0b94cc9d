"""A batch run on the console: the progress bar, a line per finished goal, the summary (studyplan batch)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from studyplan.paths import display_path
from studyplan.safe_text import printable
from studyplan.ui.console import is_plain
from studyplan.ui.words import STATUS_MESSAGES, format_seconds

if TYPE_CHECKING:
    from rich.progress import Progress

    from studyplan.app.batch import GoalResult

GOAL_ERROR_PREVIEW_CHARS = 160


def batch_progress(console: Console) -> Progress:
    """The bar of a batch or evaluation: goals done of all, elapsed and estimated remaining time."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        SpinnerColumn(),
        TextColumn("{task.description}", markup=False),  # descriptions hold model names: never markup
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        disable=is_plain(console),  # a pipe gets the line per goal only, not a bar drawn once at the end
    )


def render_goal_result(console: Console, result: GoalResult) -> None:
    """One line per finished goal, printed above the progress bar: ✓ goal → plan, or what went wrong."""
    if result.saved and result.plan_path is not None:
        mark, style, outcome = "✓", "green", display_path(Path(result.plan_path))
    elif result.status in STATUS_MESSAGES:
        mark, style, outcome = "⚠", "yellow", STATUS_MESSAGES[result.status]
    else:
        mark, style = ("✗", "yellow") if result.status == "rejected" else ("✗", "red")
        outcome = printable(" ".join((result.error or result.status).split()))
        if len(outcome) > GOAL_ERROR_PREVIEW_CHARS:  # the whole message is in the results file
            outcome = outcome[: GOAL_ERROR_PREVIEW_CHARS - 1] + "…"
    goal = printable(result.goal) or "(empty goal)"  # undecodable bytes and escape codes shown, not sent
    line = Text.assemble((f"{mark} ", f"bold {style}"), (goal, "bold"), (" → ", "dim"))
    line.append(outcome, style=style)
    details = [f"{result.steps} steps", format_seconds(result.seconds)]
    if result.usage.total_tokens:
        details.append(f"{result.usage.total_tokens:,} tokens")
    line.append(f"  ({' · '.join(details)})", style="dim")
    console.print(line, soft_wrap=True)


def render_batch_summary(
    console: Console, counts: dict[str, int], skipped: int, results_path: Path, seconds: float
) -> None:
    """The last lines of a batch: how many goals ended each way and where the results are."""
    parts = [f"{count} {status}" for status, count in counts.items()]
    if skipped:
        parts.append(f"{skipped} skipped (already saved)")
    all_saved = set(counts) <= {"saved"}
    style = "bold green" if all_saved else "bold yellow"
    console.print(Text.assemble(("Batch: " if all_saved else "Batch incomplete: ", style),
                                (", ".join(parts) or "nothing to do", style),
                                (f" in {format_seconds(seconds)}", "dim")))
    console.print(Text(f"Results: {display_path(results_path)}", style="dim"), soft_wrap=True)
    if not all_saved:
        console.print(Text("Run the same command again to retry the goals without a plan.", style="dim"))


def render_batch_interrupted(console: Console, finished: int, results_path: Path) -> None:
    console.print(
        Text(f"Interrupted: the {finished} goals that finished are in {display_path(results_path)}; "
             "run the same command again to do the rest.", style="yellow"),
        soft_wrap=True,
    )
