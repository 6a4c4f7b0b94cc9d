"""search_courses on a generated 100,000-course catalog: the index, not a scan, keeps a query in milliseconds."""

from __future__ import annotations

import random
import tempfile
import time
from datetime import date
from pathlib import Path

from _support import Figure, median, print_figures

from studyplan.domain.catalog import LEVELS, Catalog, Course
from studyplan.planner.context import ToolContext
from studyplan.planner.tools import search_courses

COURSES = 100_000
QUERIES = 2_000
TARGET_MS = 20
# Topics as a model writes them: keys, Chinese and English aliases.
QUERY_TOPICS = ["python", "机器学习", "machine learning", "SQL", "深度学习", "前端", "算法", "英语", "Java", "线性代数"]


def generate_catalog(count: int, seed: int = 7) -> Catalog:
    """`count` synthetic courses over the real catalog's topics, levels and lengths."""
    rng = random.Random(seed)
    topics = Catalog.load().topics()
    courses = [
        Course(
            id=f"gen-{number}",
            name=f"Generated course {number}",
            name_zh=None,
            provider=f"Provider {number % 97}",
            url=f"https://example.org/course/{number}",
            topics=tuple(rng.sample(topics, rng.randint(1, 3))),
            level=rng.choice(LEVELS),
            weeks=rng.randint(2, 16),
            hours_per_week=rng.choice([2, 3, 4, 5, 6, 8, 10]),
            prerequisites=(),
            description="A generated course for the benchmark.",
        )
        for number in range(count)
    ]
    return Catalog(courses, "<generated>")


def measure() -> list[Figure]:
    started = time.perf_counter()
    catalog = generate_catalog(COURSES)
    build_seconds = time.perf_counter() - started
    rng = random.Random(11)
    timings = []
    with tempfile.TemporaryDirectory() as folder:
        context = ToolContext(today=date(2026, 11, 30), catalog=catalog, plans_dir=Path(folder))
        for _ in range(QUERIES):
            topic = rng.choice(QUERY_TOPICS)
            level = rng.choice([None, "beginner", "中级", "advanced"])
            started = time.perf_counter()
            search_courses(context, topic, level)
            timings.append((time.perf_counter() - started) * 1000)
    timings.sort()
    p99 = timings[int(len(timings) * 0.99) - 1]
    return [
        Figure(f"search_courses on {COURSES:,} courses (median)", median(timings), "ms", f"< {TARGET_MS} ms",
               p99 < TARGET_MS, f"p99 {p99:.2f} ms over {QUERIES:,} queries (tool call incl. formatting)"),
        Figure("building the catalog's indexes", build_seconds, "s", note="once per process"),
    ]


if __name__ == "__main__":
    print_figures("Catalog search", measure())
