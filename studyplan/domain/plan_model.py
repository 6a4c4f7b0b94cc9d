"""The plan document's data model: a plan is phases of dated weeks, each week naming catalog courses.

Reading (`reading.py`) and rendering (`rendering.py`) convert it from and to Markdown; `document.py` is the
public face that gathers them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from studyplan.lang import LANGS, Lang

__all__ = ["LANGS", "Lang", "Phase", "PlanDoc", "Week"]


@dataclass
class Week:
    number: int  # 1-based, counted from the plan's start
    start: date
    end: date  # start + 6 days
    courses: list[str]  # catalog course ids studied this week (parsed: the name when no [id] was written)
    content: str  # which part of the course(s): e.g. "Python for Everybody, course weeks 1-2"
    tasks: list[str]
    deliverable: str
    # What a parsed plan literally said, so the checker can quote it; not part of the plan's identity.
    course_refs: list[str] = field(default_factory=list, compare=False)
    start_weekday: str | None = field(default=None, compare=False)
    end_weekday: str | None = field(default=None, compare=False)


@dataclass
class Phase:
    number: int
    title: str
    weeks: list[Week]
    self_check: list[str]  # the self-check list that closes the phase


@dataclass
class PlanDoc:
    title: str
    goal: str  # the learner's sentence
    lang: Lang
    start: date
    end: date
    hours_per_week: float
    phases: list[Phase]
    resources: list[str]  # catalog course ids
    time_note: str | None = None  # says what was compressed or left out when time is short
    assumptions: list[str] = field(default_factory=list)
    resource_refs: list[str] = field(default_factory=list, compare=False)  # resource lines as written

    @property
    def weeks(self) -> list[Week]:
        return [week for phase in self.phases for week in phase.weeks]
