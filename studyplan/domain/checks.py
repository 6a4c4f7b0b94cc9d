"""The checks save_plan runs before it writes a plan: read what is true, refuse what is false, fix what is
mechanical.

`review_plan` reads a plan however a model wrote it and returns either the problems (each one short
instruction a model can act on, with examples in the plan's own language and values) or the plan itself,
completed where code can derive what is missing (the start, end and weekly-time lines, the resources list,
course names from ids) so that save_plan can write its canonical rendering. `check_plan` asks the stricter
question revise needs: may this text be saved exactly as written? The wording lives in
data/plan_labels.json ("checks").
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from typing import TYPE_CHECKING

from studyplan.domain.dates import PLAN_YEARS, weekday_of_token
from studyplan.domain.labels import dated, format_hours, plan_labels, render_labels, weekday_label
from studyplan.domain.plan_model import Lang, PlanDoc, Week
from studyplan.domain.reading import CourseMention, PlanScan, scan_plan
from studyplan.domain.references import Resolution, resolve_reference

if TYPE_CHECKING:
    from studyplan.domain.catalog import Catalog, Course

MIN_PHASES = 3


@dataclass(frozen=True)
class PlanReview:
    """What save_plan needs: the problems that keep the plan from being saved, or the completed plan."""

    problems: list[str]
    plan: PlanDoc | None  # None when there are problems
    filled: list[str] = field(default_factory=list)  # what code filled in: the keys of _FILLED_NOTES
    as_written: list[str] = field(default_factory=list)  # what the text itself lacks (see check_plan)


def review_plan(
    text: str, catalog: Catalog, today: date | None = None, goal_hours: float | None = None
) -> PlanReview:
    """Read `text` as a plan; refuse what is false, fill in what code can derive.

    `today`, when given, is the date before which the plan may not start. `goal_hours`, when given, is the
    learner's weekly time from the goal: a plan without a weekly-time line gets it (else what its courses ask).
    """
    scan = scan_plan(text)
    if outside := _date_outside_the_calendar(scan):
        return PlanReview([_message("date_out_of_range", date=outside.isoformat())], None)
    checker = _Checker(scan, catalog, today, goal_hours)
    problems = [
        *checker.header_problems(),
        *checker.week_problems(),
        *checker.phase_problems(),
        *checker.course_problems(),
        *checker.budget_problems(),
    ]
    if problems:
        return PlanReview(problems, None, as_written=checker.as_written())
    plan, filled = checker.completed_plan()
    return PlanReview([], plan, filled, checker.as_written())


def check_plan(text: str, catalog: Catalog, today: date | None = None) -> list[str]:
    """Problems that keep `text` from being saved as written (empty list = OK): every refusal of
    `review_plan`, and the lines it would have filled in."""
    review = review_plan(text, catalog, today)
    return [*review.problems, *review.as_written]


def _date_outside_the_calendar(scan: PlanScan) -> date | None:
    days = [mention.value for mention in (scan.start, scan.end) if mention]
    days += [day for heading in scan.week_headings for day in (heading.start, heading.end) if day]
    return next((day for day in days if day.year not in PLAN_YEARS), None)


def _message(key: str, **values: object) -> str:
    return plan_labels()["checks"][key].format(**values)


def _label(course: Course) -> str:
    return f"[{course.id}] {course.name}"


class _Checker:
    def __init__(self, scan: PlanScan, catalog: Catalog, today: date | None, goal_hours: float | None) -> None:
        self.scan = scan
        self.goal_hours = goal_hours
        self.catalog = catalog
        self.today = today
        self.lang: Lang = scan.lang
        self.labels = render_labels(scan.lang)
        weeks = scan.weeks
        # Week N must start 7(N-1) days after the plan's start; without a start line, week 1 anchors it.
        if scan.start:
            self.anchor: date | None = scan.start.value
        elif weeks:
            self.anchor = weeks[0].start - timedelta(days=7 * (weeks[0].number - 1))
        else:
            self.anchor = None
        # Weeks first, then the resources list: the order in which problems are most useful to read.
        mentions = sorted(scan.mentions, key=lambda mention: mention.week is None)
        self.resolutions = {mention.source: resolve_reference(mention.source, catalog) for mention in mentions}
        self.mentions = mentions

    # examples in the plan's language and values

    def _dated(self, day: date) -> str:
        return dated(day, self.lang)

    def _week_start(self, number: int) -> date:
        if self.anchor is None:  # nothing dated yet: suggest starting next Monday
            today = self.today or date.today()
            self.anchor = today + timedelta(days=(7 - today.weekday()) % 7)
        return self.anchor + timedelta(days=7 * (number - 1))

    def _week_heading(self, number: int) -> str:
        start = self._week_start(number)
        end = start + timedelta(days=6)
        return self.labels["week"].format(number=number, start=self._dated(start), end=self._dated(end))

    def _weekday_name(self, day: date) -> str:
        english = plan_labels()["weekday_names"][day.weekday()]
        return english if self.lang == "en" else f"{english} ({weekday_label(day, self.lang)})"

    def _weekday_problem(self, where: str, day: date, token: str | None) -> Iterator[str]:
        if token is not None and weekday_of_token(token) != day.weekday():
            yield _message("weekday", where=where, date=day.isoformat(), weekday=self._weekday_name(day), token=token)

    def _last_end(self) -> date:
        weeks = self.scan.weeks
        return weeks[-1].end if weeks else self._week_start(1) + timedelta(days=6)

    # rules

    def header_problems(self) -> Iterator[str]:
        scan = self.scan
        weeks = scan.weeks
        if scan.start and self.today and scan.start.value < self.today:
            next_monday = self.today + timedelta(days=(7 - self.today.weekday()) % 7)
            yield _message(
                "start_in_past",
                start=scan.start.value.isoformat(),
                today=self.today.isoformat(),
                suggestion=self._dated(next_monday),
            )
        elif scan.start is None and weeks and self.today and weeks[0].start < self.today:
            yield _message(
                "start_in_past",
                start=weeks[0].start.isoformat(),
                today=self.today.isoformat(),
                suggestion=self._dated(self.today + timedelta(days=(7 - self.today.weekday()) % 7)),
            )
        if scan.start:
            yield from self._weekday_problem("Start", scan.start.value, scan.start.weekday)
        if scan.end:
            yield from self._weekday_problem("End", scan.end.value, scan.end.weekday)
            if weeks and scan.end.value != weeks[-1].end:
                yield _message("end_date", end=scan.end.value.isoformat(), expected=weeks[-1].end.isoformat())
        if scan.hours_per_week is None and self._missing_hours() is None:
            yield _message("no_weekly_time", example=self.labels["weekly_time"].format(hours="N"))

    def week_problems(self) -> Iterator[str]:
        scan = self.scan
        if not scan.week_numbers:
            yield _message("no_weeks", example=self._week_heading(1))
            return
        for heading in scan.multi_week_headings:
            yield _message("multi_week", heading=heading, example=self._week_heading(1))
        if scan.week_numbers != list(range(1, len(scan.week_numbers) + 1)):
            yield _message("week_numbers", found=", ".join(map(str, scan.week_numbers)))
        for number in scan.undated_weeks:
            yield _message("undated_week", number=number, example=self._week_heading(number))
        for week in scan.weeks:
            start = self._week_start(week.number)
            end = start + timedelta(days=6)
            if (week.start, week.end) != (start, end):
                yield _message(
                    "week_dates",
                    number=week.number,
                    start=start.isoformat(),
                    end=end.isoformat(),
                    plan_start=self.anchor.isoformat() if self.anchor else "",
                    found_start=week.start.isoformat(),
                    found_end=week.end.isoformat(),
                )
            yield from self._weekday_problem(f"Week {week.number}", week.start, week.start_weekday)
            yield from self._weekday_problem(f"Week {week.number}", week.end, week.end_weekday)

    def phase_problems(self) -> Iterator[str]:
        phases = self.scan.phases
        weeks = sum(len(phase.weeks) for phase in phases)
        if len(phases) < min(MIN_PHASES, max(weeks, 1)):  # a one- or two-week plan has a phase per week
            example = self.labels["phase"].format(number=1, title="...")
            yield _message("few_phases", count=len(phases), example=example)
        for phase in phases:
            title = phase.title or "untitled"
            if not phase.weeks:
                yield _message("empty_phase", number=phase.number, title=title)
            if not phase.self_check:
                heading = self.labels["self_check"].format(number=phase.number)
                yield _message("no_self_check", number=phase.number, title=title, heading=heading)

    # courses

    def _reference_problem(self, mention: CourseMention, resolution: Resolution) -> str | None:
        ref = mention.ref
        if resolution.problem == "unknown":
            closest = self.catalog.closest(resolution.name or resolution.course_id or ref, 3)
            suffix = _message("closest", closest=", ".join(map(_label, closest))) if closest else ""
            return _message("unknown_course", ref=ref) + suffix
        if resolution.problem == "mixed" and resolution.name_course is not None:
            id_course = self.catalog.find(resolution.course_id or "")
            return _message(
                "mixed_reference",
                ref=ref,
                course_id=resolution.course_id,
                id_course=_label(id_course) if id_course else resolution.course_id,
                name=resolution.name,
                name_course=_label(resolution.name_course),
            )
        if resolution.problem == "wrong_link" and resolution.course is not None:
            course = resolution.course
            return _message("wrong_link", ref=ref, url=resolution.url, course=_label(course), right=course.url)
        return None

    def course_problems(self) -> Iterator[str]:
        reported: set[str] = set()
        for mention in self.mentions:
            problem = self._reference_problem(mention, self.resolutions[mention.source])
            if problem and problem not in reported:
                reported.add(problem)
                yield problem

    def _course(self, mention: CourseMention) -> Course | None:
        return self.resolutions[mention.source].course

    def _courses(self) -> dict[str, Course]:
        """Every course the plan names (weeks and resources), by id, in order."""
        return {course.id: course for mention in self.mentions if (course := self._course(mention))}

    def _missing_hours(self) -> float | None:
        """The weekly time for a plan that states none: the goal's, else what its courses ask."""
        return self.goal_hours if self.goal_hours is not None else self._derived_hours()

    def _derived_hours(self) -> float | None:
        """The weekly time a plan without one asks for: its busiest week's course hours, or more when its
        courses need more over all its weeks (rounded up to a half hour)."""
        by_week: dict[int, float] = {}
        for mention in self.mentions:
            if mention.week is not None and (course := self._course(mention)):
                by_week[mention.week] = by_week.get(mention.week, 0) + course.hours_per_week
        if not by_week or not self.scan.weeks:
            return None
        need = sum(course.total_hours for course in self._courses().values())
        return max(max(by_week.values()), math.ceil(2 * need / len(self.scan.weeks)) / 2)

    def budget_problems(self) -> Iterator[str]:
        scan = self.scan
        hours = scan.hours_per_week if scan.hours_per_week is not None else self._missing_hours()
        if hours is None or not scan.weeks or (scan.time_note and scan.time_note.strip()):
            return
        courses = self._courses()
        need = sum(course.total_hours for course in courses.values())
        have = hours * len(scan.weeks)
        if need > have:
            breakdown = ", ".join(f"{c.id} {format_hours(c.total_hours)} h" for c in courses.values())
            yield _message(
                "over_budget",
                need=format_hours(need),
                breakdown=breakdown,
                have=format_hours(have),
                weeks=len(scan.weeks),
                hours=format_hours(hours),
                heading=self.labels["time_note"],
            )

    # what code fills in

    def _missing_resources(self) -> list[Course]:
        listed = {course.id for m in self.mentions if m.week is None and (course := self._course(m))}
        scheduled = [course for m in self.mentions if m.week is not None and (course := self._course(m))]
        return list({course.id: course for course in scheduled if course.id not in listed}.values())

    def as_written(self) -> list[str]:
        """The lines a text saved as written would lack (what `completed_plan` fills in), as instructions."""
        scan, problems = self.scan, []
        if scan.week_numbers and scan.start is None:
            example = self.labels["start"].format(date=self._dated(self._week_start(1)))
            problems.append(_message("missing_start", example=example))
        if scan.week_numbers and scan.end is None:
            problems.append(
                _message("missing_end", example=self.labels["end"].format(date=self._dated(self._last_end())))
            )
        if scan.hours_per_week is None and (hours := self._missing_hours()) is not None:
            example = self.labels["weekly_time"].format(hours=format_hours(hours))
            problems.append(_message("missing_weekly_time", example=example))
        if missing := self._missing_resources():
            courses = ", ".join(map(_label, missing))
            problems.append(_message("missing_resources", heading=self.labels["resources"], courses=courses))
        for mention in self.mentions:
            resolution = self.resolutions[mention.source]
            known_id = resolution.course_id is None or self.catalog.get(resolution.course_id) is not None
            if resolution.problem is None and resolution.course and not known_id:
                wrong = _message(
                    "wrong_id", ref=mention.ref, course_id=resolution.course_id, right=_label(resolution.course)
                )
                problems += [wrong] if wrong not in problems else []
        return problems

    def completed_plan(self) -> tuple[PlanDoc, list[str]]:
        """The plan with course ids for every reference and the lines code can derive filled in."""
        scan, filled = self.scan, []
        ids = {m.source: course.id for m in self.mentions if (course := self._course(m))}
        phases = [
            replace(phase, weeks=[self._resolved_week(week, ids) for week in phase.weeks]) for phase in scan.phases
        ]
        resources = list(dict.fromkeys(ids[m.source] for m in self.mentions if m.week is None and m.source in ids))
        if scan.start is None:
            filled.append("start")
        if scan.end is None:
            filled.append("end")
        hours = scan.hours_per_week
        if hours is None:
            hours = self._missing_hours() or 0.0
            filled.append("weekly_time" if self.goal_hours is None else "weekly_time_goal")
        if missing := self._missing_resources():
            resources += [course.id for course in missing]
            filled.append("resources")
        weeks = scan.weeks
        plan = PlanDoc(
            title=scan.title or scan.goal or " · ".join(_label(c) for c in self._courses().values()),
            goal=scan.goal or scan.title,
            lang=scan.lang,
            start=scan.start.value if scan.start else self._week_start(1),
            end=scan.end.value if scan.end else weeks[-1].end,
            hours_per_week=hours,
            phases=phases,
            resources=resources,
            time_note=scan.time_note,
            assumptions=scan.assumptions,
        )
        return plan, filled

    @staticmethod
    def _resolved_week(week: Week, ids: dict[str, str]) -> Week:
        return replace(
            week, courses=[ids.get(ref, key) for ref, key in zip(week.course_refs, week.courses, strict=True)]
        )


def fill_note(filled: list[str]) -> str:
    """What save_plan filled in, in words for the model: "the start date line, the resources list"."""
    return ", ".join(plan_labels()["filled"][key] for key in filled)
