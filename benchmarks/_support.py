"""What the benchmark scripts share: the figure they report, printing, and access to the test fixtures.

The scripted OpenAI-compatible server and the sample plan live in tests/; benchmarks reuse them rather than
keeping a second copy, so the endpoint measured here is the one the tests exercise.
"""

from __future__ import annotations

import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO))


@dataclass(frozen=True)
class Figure:
    name: str
    value: float
    unit: str
    target: str = ""  # e.g. "< 2 ms"; empty when the figure is context for another
    met: bool | None = None  # None: no target
    note: str = ""


def median(values: list[float]) -> float:
    return statistics.median(values)


def print_figures(title: str, figures: list[Figure]) -> None:
    print(title)
    for figure in figures:
        verdict = "" if figure.met is None else ("  ✓" if figure.met else "  ✗ over target")
        target = f"  (target {figure.target})" if figure.target else ""
        note = f"  — {figure.note}" if figure.note else ""
        print(f"  {figure.name}: {format_value(figure)}{target}{verdict}{note}")


def format_value(figure: Figure) -> str:
    value = figure.value
    text = f"{value:.3g}" if abs(value) < 100 else f"{value:,.0f}"
    return f"{text} {figure.unit}".rstrip()
