"""`studyplan --help` cold start against a bare `python -c pass`, in fresh processes.

When the difference is over target, `python -X importtime` names the slowest imports (cumulative time), which
is where a lazy import would help.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from _support import REPO, Figure, median, print_figures

RUNS = 15
TARGET_SECONDS = 0.3


def time_process(arguments: list[str]) -> float:
    """Median wall time of running `python <arguments>` to completion."""
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    timings = []
    for _ in range(RUNS):
        started = time.perf_counter()
        subprocess.run([sys.executable, *arguments], check=True, capture_output=True, env=environment, cwd=REPO)
        timings.append(time.perf_counter() - started)
    return median(timings)


def slowest_imports(count: int = 6) -> list[tuple[str, float]]:
    """The top-level imports of `studyplan --help` with the largest cumulative time, in ms."""
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    result = subprocess.run([sys.executable, "-X", "importtime", "-m", "studyplan", "--help"],
                            capture_output=True, text=True, env=environment, cwd=REPO)
    rows = []
    for line in result.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line.removeprefix("import time:").split("|")
        if not name.startswith("  "):  # nested imports are indented further: keep the top level only
            rows.append((name.strip(), int(cumulative) / 1000))
    return sorted(rows, key=lambda row: row[1], reverse=True)[:count]


def measure() -> list[Figure]:
    bare = time_process(["-c", "pass"])
    help_run = time_process(["-m", "studyplan", "--help"])
    extra = help_run - bare
    imports = ", ".join(f"{name} {ms:.0f} ms" for name, ms in slowest_imports())
    return [
        Figure("python -c pass", bare * 1000, "ms"),
        Figure("studyplan --help", help_run * 1000, "ms"),
        Figure("studyplan --help minus python -c pass", extra, "s", f"≤ {TARGET_SECONDS} s", extra <= TARGET_SECONDS,
               f"slowest imports (cumulative): {imports}"),
    ]


if __name__ == "__main__":
    print_figures("CLI cold start", measure())
