"""Batch concurrency efficiency: 100 goals, --jobs 16, every model reply delayed 200 ms by the scripted server.

Each goal is three model calls (date, save a valid plan, answer), so 0.6 s of model latency. The goals are
equally long, so 16 workers run them in waves (the last of the 7 holds 4): the ideal is 7 × 0.6 s = 4.2 s.
Perfect packing, 100 × 0.6 s / 16 = 3.75 s, is also given; no pool reaches it with equal goals. The scripted
endpoint runs in its own process, as a real endpoint does.
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import tempfile
import threading
import time
from collections.abc import Iterator
from datetime import date
from multiprocessing.connection import Connection
from pathlib import Path

from _support import Figure, print_figures
from plan_samples import valid_plan
from scripted_server import Step, call, delayed, reply
from test_batch import GoalRoutedServer

from studyplan.app.batch import BatchGoal, BatchSettings, GoalResult, run_concurrently, run_goal
from studyplan.domain.catalog import Catalog
from studyplan.llm.settings import resolve_settings

GOALS = 100
JOBS = 16
LATENCY = 0.2
CALLS_PER_GOAL = 3
TARGET = 0.85
TODAY = date(2026, 11, 30)


def _serve(scripts: dict[str, list[Step | list[Step]]], connection: Connection) -> None:
    with GoalRoutedServer(scripts) as server:
        connection.send(server.base_url)
        connection.recv()  # until the benchmark is done


@contextlib.contextmanager
def endpoint_process(scripts: dict[str, list[Step | list[Step]]]) -> Iterator[str]:
    """The scripted endpoint in its own process, as a real one is: its threads do not compete for our GIL."""
    ours, theirs = multiprocessing.Pipe()
    process = multiprocessing.get_context("fork").Process(target=_serve, args=(scripts, theirs), daemon=True)
    process.start()
    try:
        yield ours.recv()
    finally:
        ours.send("stop")
        process.join(timeout=5)


def measure() -> list[Figure]:
    catalog = Catalog.load()
    plan = valid_plan(catalog, TODAY)
    goals = [BatchGoal(f"benchmark goal {n}") for n in range(GOALS)]
    scripts = {
        goal.goal: [
            delayed(LATENCY, reply(tool_calls=[call("get_current_date")])),
            delayed(LATENCY, reply(tool_calls=[call("save_plan", content=plan, filename=f"plan-{n}.md")])),
            delayed(LATENCY, reply(content="Saved.")),
        ]
        for n, goal in enumerate(goals)
    }
    results: list[GoalResult] = []
    with endpoint_process(scripts) as base_url, tempfile.TemporaryDirectory() as folder:
        settings = BatchSettings(TODAY, Path(folder), resolve_settings("scripted", base_url, 0.2), protocol="tools")

        def work(goal: BatchGoal, stop: threading.Event) -> GoalResult:
            return run_goal(goal, settings, catalog, stop)

        import_started = time.perf_counter()
        import openai  # noqa: F401  (once per process; timed apart from the batch)

        import_seconds = time.perf_counter() - import_started
        started = time.perf_counter()
        run_concurrently(goals, work, JOBS, lambda _goal, result: results.append(result))
        elapsed = time.perf_counter() - started
    assert all(result.saved for result in results) and len(results) == GOALS, "every goal must save its plan"
    latency = CALLS_PER_GOAL * LATENCY
    ideal = GOALS * latency / JOBS
    waves = math.ceil(GOALS / JOBS) * latency
    return [
        Figure(f"batch of {GOALS} goals, --jobs {JOBS}, {LATENCY * 1000:.0f} ms per reply", elapsed, "s",
               note=f"the openai import before it, {import_seconds:.2f} s, is not counted"),
        Figure("efficiency vs the wave bound (ideal)", waves / elapsed * 100, "%", f"≥ {TARGET:.0%}",
               waves / elapsed >= TARGET,
               f"{math.ceil(GOALS / JOBS)} waves × {latency:.1f} s = {waves:.2f} s: the best 16 workers can do"),
        Figure("efficiency vs perfect packing", ideal / elapsed * 100, "%",
               note=f"{GOALS} × {latency:.1f} s / {JOBS} = {ideal:.2f} s, unreachable with equal goals (≤ "
               f"{ideal / waves:.0%})"),
    ]


if __name__ == "__main__":
    print_figures("Batch concurrency", measure())
