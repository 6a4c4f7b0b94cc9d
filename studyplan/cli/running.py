"""Showing an agent run the command started: its steps on the screen, or nothing but the JSON at the end."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from studyplan.app.plan import AgentRun, RunOptions
    from studyplan.core.events import RunFinished


def watch(run: AgentRun, options: RunOptions, json_output: bool = False) -> RunFinished:
    """Run it, passing every event to the steps screen (none with --json); returns the last event."""
    from studyplan.core.events import RunFinished
    from studyplan.ui.console import make_console
    from studyplan.ui.errors import render_error
    from studyplan.ui.steps import Renderer, show_run
    from studyplan.ui.words import status_message

    # closing(): Ctrl-C while a step is on screen still ends the run (and its trace) right away.
    with contextlib.closing(run.events()) as events:
        if json_output:
            finished = next(event for event in events if isinstance(event, RunFinished))
        else:
            renderer = Renderer(make_console(), quiet=options.quiet, trace_path=run.trace_path)
            finished = show_run(events, renderer)
    if options.quiet and not json_output and finished.status != "saved":
        render_error(make_console(stderr=True), status_message(finished.status, finished.detail))
    if run.trace_stopped and (options.quiet or json_output):  # the steps screen showed it as a notice
        render_error(make_console(stderr=True), f"the trace {run.trace_path} stopped ({run.trace_stopped}); "
                     "it keeps the whole lines written before (exit code 9)")  # fmt: skip
    return finished
