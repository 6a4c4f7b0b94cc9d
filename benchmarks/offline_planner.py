"""The offline planner end to end per goal: the real loop, tools, plan check and file write, no network.

In process over every good goal of the shipped evaluation set, and as a user runs it (a fresh process per goal,
so the interpreter's start and the imports are included).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

from _support import REPO, Figure, median, print_figures

from studyplan.app.batch import BatchSettings, run_goal
from studyplan.app.evaluate import default_goals
from studyplan.domain.catalog import Catalog
from studyplan.llm.settings import resolve_settings

TODAY = date(2026, 11, 30)
TARGET_SECONDS = 0.5
PROCESS_RUNS = 5


def in_process() -> list[float]:
    catalog = Catalog.load()
    goals = [goal for goal in default_goals() if goal.expect == "plan"]
    timings = []
    with tempfile.TemporaryDirectory() as folder:
        settings = BatchSettings(TODAY, Path(folder), resolve_settings("offline", None, 0.2))
        run_goal(goals[0], settings, catalog)  # warm up: first imports and caches
        for goal in goals:
            started = time.perf_counter()
            result = run_goal(goal, settings, catalog)
            timings.append(time.perf_counter() - started)
            assert result.saved, result
    return timings


def as_a_user() -> float:
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    timings = []
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(PROCESS_RUNS):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "studyplan", "零基础3个月学机器学习", "--model", "offline", "-q",
                            "--today", TODAY.isoformat(), "--plans-dir", folder],
                           check=True, capture_output=True, env=environment, cwd=folder)
            timings.append(time.perf_counter() - started)
    return median(timings)


def measure() -> list[Figure]:
    timings = in_process()
    process = as_a_user()
    worst = max(timings)
    return [
        Figure("offline planner per goal, in process (mean)", sum(timings) / len(timings) * 1000, "ms",
               f"< {TARGET_SECONDS * 1000:.0f} ms", worst < TARGET_SECONDS,
               f"{len(timings)} goals, slowest {worst * 1000:.0f} ms"),
        Figure("offline planner per goal, fresh `studyplan` process", process, "s", f"< {TARGET_SECONDS} s",
               process < TARGET_SECONDS, "interpreter start and imports included"),
    ]


if __name__ == "__main__":
    print_figures("Offline planner end to end", measure())
