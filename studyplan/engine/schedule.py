"""Scheduling chosen courses into the learner's weeks, by what the courses themselves are made of.

A course is cut into the steps a learner can find: the units of its public outline (a week, a chapter, a
lesson), or, for a course whose outline the catalog does not list, its own weeks. Each plan week takes whole
steps up to its hours; a step longer than a week, or one that would leave much of a week empty, is split
into named parts ("part 1 of 2"). Never a fraction of a course week.

Plain functions over data: chosen courses in, a timetable (the steps of each week) out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from studyplan.engine.select import ChosenCourse

SLIVER_SHARE = 0.2  # a course does not start in the last fifth of a week: it waits for the next one
SPLIT_SHARE = 0.35  # a step is split to use the room left in a week when that room is over a third of it
TIGHT_SPLIT_SHARE = 0.05
PACE_STEP = 0.25  # hours: the gentler pace of plans the catalog cannot fill is a multiple of this
REFIT_STEP = 0.01
_EPSILON = 1e-6


@dataclass(frozen=True)
class Step:
    """A named stretch of a course: one unit of its outline, one of its own weeks, or a part of either."""

    index: int  # position among the course's units (or its weeks), from 0
    label: str | None  # the outline's numbering ("Week 3", "Chapter 5"); None for a course week
    title: str | None  # the unit's title ("Algorithms"); None for a course week (its number is index + 1)
    kind: str  # the unit's kind of work (videos, reading, exercises, project, quiz, mock_exam, srs); "" if unknown
    hours: float
    part: int = 1
    parts: int = 1

    @property
    def is_unit(self) -> bool:
        return self.title is not None

    def split(self, first_hours: float, pace: float) -> list[Step]:
        """This step in parts: the first of `first_hours`, the rest in pieces of at most `pace` hours."""
        rest = self.hours - first_hours
        later = max(1, math.ceil(rest / pace - _EPSILON))
        parts = 1 + later
        return [replace(self, hours=first_hours, part=1, parts=parts)] + [
            replace(self, hours=rest / later, part=i, parts=parts) for i in range(2, parts + 1)
        ]


def course_steps(chosen: ChosenCourse) -> list[Step]:
    """The course's units at the planned pace (scaled to its planned hours), else its own weeks."""
    course = chosen.course
    if course.units and course.unit_hours > 0:
        units = course.units[: chosen.units_taken] if chosen.units_taken else course.units
        scale = chosen.planned_hours / sum(unit.hours for unit in units)
        return [Step(i, unit.label, unit.title, unit.kind, unit.hours * scale) for i, unit in enumerate(units)]
    weekly = chosen.planned_hours / max(course.weeks, 1)
    return [Step(i, None, None, "", weekly) for i in range(max(course.weeks, 1))]


@dataclass(frozen=True)
class Slot:
    """One course's share of one week: the steps of it studied that week, in order."""

    chosen: ChosenCourse
    steps: tuple[Step, ...]
    finishes: bool  # the course's last step is among them

    @property
    def hours(self) -> float:
        return sum(step.hours for step in self.steps)


def capstone_weeks(weeks: int) -> int:
    """Weeks kept for the capstone project and review: one or two, never much more than a tenth of the plan."""
    return 2 if weeks >= 13 else 1 if weeks >= 4 else 0


def schedule(
    courses: list[ChosenCourse], weeks: int, pace: float, avoid_slivers: bool = True, tight: bool = False
) -> list[list[Slot]] | None:
    """Lay the courses end to end, each week taking whole steps up to `pace` hours and never more. None when
    they do not fit in `weeks`. `tight` splits steps to use even small rests of a week."""
    placed: list[list[tuple[ChosenCourse, Step]]] = [[] for _ in range(weeks)]
    week, used = 0, 0.0
    split_share = TIGHT_SPLIT_SHARE if tight else SPLIT_SHARE
    for chosen in courses:
        if avoid_slivers and used > _EPSILON and pace - used < SLIVER_SHARE * pace:
            week, used = week + 1, 0.0
        pending = course_steps(chosen)
        while pending:
            if week >= weeks:
                return None
            step, room = pending[0], pace - used
            if step.hours <= room + _EPSILON:
                placed[week].append((chosen, pending.pop(0)))
                used += step.hours
                continue
            # A step longer than a week is split wherever it starts, so its parts fill the weeks they land in.
            splits = room >= split_share * pace or (step.hours > pace + _EPSILON and room >= pace - _EPSILON)
            if step.parts == 1 and splits and step.hours - room > _EPSILON:
                pending[:1] = step.split(room, pace)
                continue
            week, used = week + 1, 0.0
    return [_slots(week_steps) for week_steps in placed]


def _slots(week_steps: list[tuple[ChosenCourse, Step]]) -> list[Slot]:
    grouped: dict[int, tuple[ChosenCourse, list[Step]]] = {}
    for chosen, step in week_steps:
        grouped.setdefault(id(chosen), (chosen, []))[1].append(step)
    slots = []
    for chosen, steps in grouped.values():
        last, total = steps[-1], len(course_steps(chosen))
        slots.append(Slot(chosen, tuple(steps), last.index == total - 1 and last.part == last.parts))
    return slots


@dataclass(frozen=True)
class Timetable:
    """The courses as scheduled: their planned hours (maybe compressed further to fit the weeks), the pace
    in hours a week (below the learner's budget when the catalog has too little to fill it) and the slots."""

    courses: list[ChosenCourse]
    pace: float
    slots: list[list[Slot]]

    @property
    def capstone_count(self) -> int:
        return sum(1 for week_slots in self.slots if not week_slots)


def fit_timetable(courses: list[ChosenCourse], weeks: int, hours_per_week: float) -> Timetable:
    """Schedule the courses into the weeks before the capstone.

    Courses that do not fill the time are spread at a gentler pace, so that the capstone stays at one or two
    weeks; courses that cannot fit once cut into whole steps are compressed a little more.
    """
    course_weeks = weeks - capstone_weeks(weeks)
    shortest_course_weeks = weeks - min(capstone_weeks(weeks), 1)
    need = sum(chosen.planned_hours for chosen in courses)
    if course_weeks > 0 and need < (course_weeks - 1) * hours_per_week:
        # too little to fill the plan: the gentlest pace at which the courses still end in time
        pace = max(PACE_STEP, math.ceil(need / course_weeks / PACE_STEP) * PACE_STEP)
        while pace < hours_per_week:
            slots = schedule(courses, course_weeks, pace)
            if slots is not None:
                return Timetable(courses, pace, slots + [[] for _ in range(weeks - course_weeks)])
            pace += PACE_STEP

    def attempt(factor: float) -> Timetable | None:
        scaled = [replace(c, planned_hours=c.planned_hours * factor) for c in courses] if factor < 1 else courses
        for avoid_slivers, tight in ((True, False), (False, False), (False, True)):
            slots = schedule(scaled, shortest_course_weeks, hours_per_week, avoid_slivers, tight)
            if slots is not None:
                padding: list[list[Slot]] = [[] for _ in range(weeks - shortest_course_weeks)]
                return Timetable(scaled, hours_per_week, slots + padding)
        return None

    factor = 1.0
    while (fitted := attempt(factor)) is None:
        factor -= REFIT_STEP  # whole steps leave a little of some weeks unused: compress as little as that needs
    return fitted
