"""The run log on the console (studyplan logs): a few lines per run, newest first."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from studyplan.ui.words import format_seconds

if TYPE_CHECKING:
    from studyplan.app.logs import LoggedRun


def render_logged_runs(console: Console, runs: list[LoggedRun]) -> None:
    if not runs:
        console.print(Text("No runs logged yet (every run is recorded unless --no-log)."))
        return
    for index, run in enumerate(runs):
        if index:
            console.print()
        style = "green" if run.status == "saved" else "yellow"
        tokens = f"{'≈' if run.usage.estimated else ''}{run.usage.total_tokens:,} tokens"
        console.print(Text.assemble(
            (f"#{run.id}  {run.started_at}  ", "dim"), (run.status, f"bold {style}"),
            (f"  {run.steps} steps · {tokens} · {format_seconds(run.seconds)}", "dim"),
        ), soft_wrap=True)
        console.print(Text.assemble(("  Goal: ", "bold"), run.goal), soft_wrap=True)
        where = "" if run.endpoint == "offline" else f" · {run.endpoint}"
        console.print(Text(f"  Model: {run.model} · {run.protocol}{where}"), soft_wrap=True)
        if run.plan_path:
            console.print(Text(f"  Plan: {run.plan_path}"), soft_wrap=True)
        if run.error:
            console.print(Text(f"  Error: {run.error}", style="red"), soft_wrap=True)
