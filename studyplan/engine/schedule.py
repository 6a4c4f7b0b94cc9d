"""Scheduling chosen courses into the learner's weeks: each week takes whole pieces of courses up to its hours.

Plain functions over data: chosen courses in, a timetable (slots per week) out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction

from studyplan.engine.select import ChosenCourse

MAX_UNUSED_SHARE = 0.1  # split course weeks more finely when whole ones would leave over a tenth of a week unused
TIGHT_UNUSED_SHARE = 0.01
SLIVER_SHARE = 0.2
PACE_STEP = 0.25  # hours: the gentler pace of plans the catalog cannot fill is a multiple of this
REFIT_STEP = 0.01
MAX_PIECES = 4  # course weeks are split into halves, thirds or quarters at most: fractions a reader follows
MAX_ODD_PIECES = 6


@dataclass(frozen=True)
class Slot:
    """One course's share of one week: the stretch of the course from `start` to `end`, in course weeks
    (0 is the course's beginning; 2.5 is halfway through its third week)."""

    chosen: ChosenCourse
    hours: float
    start: Fraction
    end: Fraction

    @property
    def finishes(self) -> bool:
        return self.end >= self.chosen.course.weeks


def capstone_weeks(weeks: int) -> int:
    """Weeks kept for the capstone project and review: one or two, never much more than a tenth of the plan."""
    return 2 if weeks >= 13 else 1 if weeks >= 4 else 0


def _pieces_per_course_week(unit_hours: float, pace: float, room: float, unused_share: float) -> int:
    """Into how many equal pieces a course's weeks are split when scheduled: the fewest (whole course weeks,
    halves, thirds...) that leave at most `unused_share` of the learner's weeks unused (`room` is what is left
    of the week the course starts in), else the ones that leave the least."""
    epsilon = 1e-6

    def unused(pieces: int, hours: float) -> float:
        step = unit_hours / pieces
        return hours - math.floor(hours / step + epsilon) * step

    def fills(pieces: int) -> bool:
        limit = unused_share * pace + epsilon
        return unused(pieces, pace) <= limit and (room >= pace - epsilon or unused(pieces, room) <= limit)

    # at least one piece must fit in a week, however large the course's weeks are
    fewest = max(1, math.ceil(unit_hours / pace - epsilon))
    preferred = list(range(fewest, MAX_PIECES + 1)) or [fewest]
    fitting = [pieces for pieces in preferred if fills(pieces)]
    if not fitting:  # fifths and sixths are harder to follow, but better than weeks left half empty
        fitting = [pieces for pieces in range(max(fewest, MAX_PIECES + 1), MAX_ODD_PIECES + 1) if fills(pieces)]
    candidates = preferred + list(range(max(fewest, MAX_PIECES + 1), MAX_ODD_PIECES + 1))
    return fitting[0] if fitting else min(candidates, key=lambda pieces: (round(unused(pieces, pace), 6), pieces))


def schedule(
    courses: list[ChosenCourse], weeks: int, pace: float, avoid_slivers: bool = True, tight: bool = False
) -> list[list[Slot]] | None:
    """Lay the courses end to end, each week taking whole pieces (course weeks, or halves or quarters of
    them) up to `pace` hours and never more. None when they do not fit in `weeks`.

    With `avoid_slivers`, a course does not start in the last fifth of a week: it waits for the next one.
    `tight` splits course weeks into whatever pieces fill the weeks best, for plans that need every hour.
    """
    epsilon = 1e-6
    slots: list[list[Slot]] = [[] for _ in range(weeks)]
    week, used = 0, 0.0
    for chosen in courses:
        course = chosen.course
        if avoid_slivers and used > epsilon and pace - used < SLIVER_SHARE * pace:
            week, used = week + 1, 0.0
        unused_share = TIGHT_UNUSED_SHARE if tight else MAX_UNUSED_SHARE
        pieces = _pieces_per_course_week(chosen.planned_hours / course.weeks, pace, pace - used, unused_share)
        step = chosen.planned_hours / (course.weeks * pieces)
        done, total = 0, course.weeks * pieces
        while done < total:
            if week >= weeks:
                return None
            fit = min(total - done, math.floor((pace - used) / step + epsilon))
            if fit <= 0:
                week, used = week + 1, 0.0
                continue
            slots[week].append(Slot(chosen, fit * step, Fraction(done, pieces), Fraction(done + fit, pieces)))
            done, used = done + fit, used + fit * step
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
    weeks; courses that cannot fit once split into whole pieces are compressed a little more.
    """
    course_weeks = weeks - capstone_weeks(weeks)
    shortest_course_weeks = weeks - min(capstone_weeks(weeks), 1)
    need = sum(chosen.planned_hours for chosen in courses)
    if course_weeks > 0 and need < (course_weeks - 1) * hours_per_week:
        # too little to fill the plan: the gentlest pace (in half hours) at which the courses still end in time
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

    if (fitted := attempt(1.0)) is not None:
        return fitted
    # Whole pieces leave a little of some weeks unused: compress as little as that needs.
    factor = 1.0
    while (fitted := attempt(factor)) is None:
        factor -= REFIT_STEP
    return fitted

