"""The text-protocol parser on hostile replies: the worst parse time a long fuzz run finds, per 100 KB.

Replies are built from protocol fragments repeated thousands of times (tests/react_fuzz.py), cut to 100 KB,
from a fixed seed, plus the pathological cases the parser once took seconds on. Each reply goes through
`parse_react` with the tool names and through `extract_embedded_calls`, as the two protocols use them.

    python benchmarks/parser_fuzz.py            # 2,000 replies
    python benchmarks/parser_fuzz.py 20000      # the long run
"""

from __future__ import annotations

import random
import re
import sys
import time

from _support import Figure, median, print_figures

# isort: split
import react_fuzz  # in tests/, which _support puts on the path

from studyplan.core.react_parser import extract_embedded_calls, parse_react

REPLY_CHARS = 100_000
DEFAULT_RUNS = 2_000
TARGET_MS = 50
RETRIES = 4
# The plain baseline measured in the same run (the machine is shared and noisy): one compiled pass over the
# reply's brackets and quotes, the least any quote-aware parser does.
_BASELINE = re.compile(r"[\[\]{}()\"']")
KNOWN_CASES = [[("Action: f(a=", 9000)], [("functions.a{", 9000)], [("<think>", 15000)], [("a.", 50000)]]


def _parse_ms(text: str) -> float:
    started = time.perf_counter()
    parse_react(text, react_fuzz.TOOLS)
    extract_embedded_calls(text)
    return (time.perf_counter() - started) * 1000


def _steady_parse_ms(text: str) -> float:
    """The parse time, and for a reply over the target the least of RETRIES more: on a shared machine one
    timing can include another process's time slice (a 25 ms reply once measured 380 ms)."""
    milliseconds = _parse_ms(text)
    if milliseconds > TARGET_MS:
        milliseconds = min([milliseconds] + [_parse_ms(text) for _ in range(RETRIES)])
    return milliseconds


def _baseline_ms(text: str) -> float:
    started = time.perf_counter()
    sum(1 for _ in _BASELINE.finditer(text))
    return (time.perf_counter() - started) * 1000


def measure(runs: int = DEFAULT_RUNS, seed: int = 13) -> list[Figure]:
    rng = random.Random(seed)
    recipes = KNOWN_CASES + [react_fuzz.random_recipe(rng) for _ in range(runs)]
    timings: list[tuple[float, list[tuple[str, int]]]] = []
    for recipe in recipes:
        text = react_fuzz.build(recipe, REPLY_CHARS)
        timings.append((_steady_parse_ms(text), recipe))
    worst_ms, worst_recipe = max(timings, key=lambda timing: timing[0])
    over = sum(1 for milliseconds, _ in timings if milliseconds > TARGET_MS)
    shown = " + ".join(f"{fragment!r} × {times}" for fragment, times in worst_recipe)
    baseline = max(_baseline_ms(react_fuzz.build(recipe, REPLY_CHARS)) for recipe in recipes)
    return [
        Figure(
            f"parse_react, worst of {len(recipes):,} hostile replies (≤ 100 KB each)",
            worst_ms,
            "ms",
            f"< {TARGET_MS} ms",
            worst_ms < TARGET_MS,
            f"{shown}; {over} over {TARGET_MS} ms",
        ),
        Figure("parse_react, median of the same replies", median([ms for ms, _ in timings]), "ms"),
        Figure("baseline: one regex pass over brackets and quotes, worst reply", baseline, "ms"),
    ]


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_RUNS
    figures = measure(count)
    print_figures("Text-protocol parser on hostile replies", figures)
    sys.exit(0 if all(figure.met is not False for figure in figures) else 1)
