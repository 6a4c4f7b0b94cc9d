"""Which tools a plan has taught by a given week, so that no task asks for a tool before a course teaches it
(NumPy, pandas and Jupyter before scikit-learn tasks): a skill map per topic, plus the tools a course's own
name, description and units name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from studyplan.domain.catalog import Course

TOOLS: dict[str, re.Pattern[str]] = {
    "NumPy": re.compile(r"\bnumpy\b", re.IGNORECASE),
    "pandas": re.compile(r"\bpandas\b", re.IGNORECASE),
    "Jupyter": re.compile(r"\bjupyter\b|\bcolab\b", re.IGNORECASE),
    "scikit-learn": re.compile(r"\bscikit-learn\b|\bsklearn\b", re.IGNORECASE),
    "PyTorch": re.compile(r"\bpytorch\b", re.IGNORECASE),
    "TensorFlow": re.compile(r"\btensorflow\b|\bkeras\b", re.IGNORECASE),
}
# The tools a course about the topic teaches along the way (its labs and assignments use them).
TOPIC_TOOLS: dict[str, frozenset[str]] = {
    "data_analysis": frozenset({"NumPy", "pandas", "Jupyter"}),
    "machine_learning": frozenset({"NumPy", "Jupyter", "scikit-learn"}),
    "deep_learning": frozenset({"NumPy", "Jupyter", "PyTorch"}),
    "computer_vision": frozenset({"NumPy", "Jupyter", "PyTorch"}),
    "nlp": frozenset({"NumPy", "Jupyter", "PyTorch"}),
    "llm": frozenset({"Jupyter"}),
}


def tools_named(text: str) -> set[str]:
    return {tool for tool, pattern in TOOLS.items() if pattern.search(text)}


def course_tools(course: Course) -> set[str]:
    units = " ".join(unit.title for unit in course.units)
    taught = tools_named(f"{course.name} {course.description} {units}")
    for topic in course.topics[:1]:  # what the course is mainly about
        taught |= TOPIC_TOOLS.get(topic, frozenset())
    return taught


def known_tools(known_topics: Iterable[str]) -> set[str]:
    """The tools a learner who says they know these topics has used."""
    return {tool for topic in known_topics for tool in TOPIC_TOOLS.get(topic, frozenset())}


def fits(text: str, taught: set[str]) -> bool:
    """Whether every tool the text names has been taught (or is known)."""
    return tools_named(text) <= taught


def first_fitting(options: list[str], start: int, taught: set[str]) -> str | None:
    """The option at `start` (cycling) or the next one that asks for no untaught tool."""
    for offset in range(len(options)):
        option = options[(start + offset) % len(options)]
        if fits(option, taught):
            return option
    return None
