"""The checks save_plan runs before it writes a plan.

`check_plan` returns problems, each one short instruction a model can act on; an empty list means the plan
may be saved. The wording lives in data/plan_labels.json ("checks"); examples in the messages are written
in the plan's own language so that the model can paste them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date, timedelta
from typing import TYPE_CHECKING

from studyplan.domain.document import (
    Lang,
    PlanScan,
    course_ref_parts,
    plan_labels,
    render_labels,
    scan_plan,
    weekday_label,
    weekday_of_token,
)

if TYPE_CHECKING:
    from studyplan.domain.catalog import Catalog, Course

MIN_PHASES = 3
_TRAILING_PARENTHETICAL = re.compile(r"\s*[（(][^（）()]*[)）]\s*$")


def check_plan(text: str, catalog: Catalog, today: date | None = None) -> list[str]:
    """Problems that keep `text` from being a usable plan (empty list = OK).

    `today`, when given, is the date before which the plan may not start.
    """
    scan = scan_plan(text)
    checker = _Checker(scan, catalog, today)
    return [
        *checker.header_problems(),
        *checker.week_problems(),
        *checker.phase_problems(),
        *checker.course_problems(),
        *checker.budget_problems(),
    ]


def _message(key: str, **values: object) -> str:
    return plan_labels()["checks"][key].format(**values)


def _hours(value: float) -> str:
    return f"{value:g}"


class _Checker:
    def __init__(self, scan: PlanScan, catalog: Catalog, today: date | None) -> None:
        self.scan = scan
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

    # examples in the plan's language

    def _dated(self, day: date) -> str:
        return self.labels["date"].format(date=day.isoformat(), weekday=weekday_label(day, self.lang))

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
            yield _message(
                "weekday", where=where, date=day.isoformat(), weekday=self._weekday_name(day), token=token
            )

    # rules

    def header_problems(self) -> Iterator[str]:
        scan = self.scan
        weeks = scan.weeks
        if scan.start is None:
            example = self.labels["start"].format(date=self._dated(self._week_start(1)))
            yield _message("missing_start", example=example)
        if scan.end is None:
            last_end = weeks[-1].end if weeks else self._week_start(1) + timedelta(days=6)
            yield _message("missing_end", example=self.labels["end"].format(date=self._dated(last_end)))
        if scan.hours_per_week is None:
            yield _message("missing_weekly_time", example=self.labels["weekly_time"].format(hours=8))
        if scan.start and self.today and scan.start.value < self.today:
            next_monday = self.today + timedelta(days=(7 - self.today.weekday()) % 7)
            yield _message(
                "start_in_past",
                start=scan.start.value.isoformat(),
                today=self.today.isoformat(),
                suggestion=self._dated(next_monday),
            )
        if scan.start:
            yield from self._weekday_problem("Start", scan.start.value, scan.start.weekday)
        if scan.end:
            yield from self._weekday_problem("End", scan.end.value, scan.end.weekday)
            if weeks and scan.end.value != weeks[-1].end:
                yield _message("end_date", end=scan.end.value.isoformat(), expected=weeks[-1].end.isoformat())

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

    def _find_by_name(self, name: str) -> Course | None:
        candidates = (name, _TRAILING_PARENTHETICAL.sub("", name))
        return next((course for text in candidates if text and (course := self.catalog.find(text))), None)

    def _reference_problem(self, ref: str) -> str | None:
        course_id, name = course_ref_parts(ref)
        by_name = self._find_by_name(name) if name else None
        by_id = self.catalog.find(course_id) if course_id else None
        if course_id and by_id is None and by_name is not None:
            return _message("wrong_id", ref=ref, course_id=course_id, right=_label(by_name))
        if by_id is None and by_name is None:
            closest = self.catalog.closest(name or course_id or ref, 3)
            suffix = _message("closest", closest=", ".join(map(_label, closest))) if closest else ""
            return _message("unknown_course", ref=ref) + suffix
        # Two catalog courses may share a name; only a name that is not the id's own course is mixed up.
        if by_id is not None and by_name is not None and not _is_named(by_id, name):
            return _message(
                "mixed_reference",
                ref=ref,
                course_id=course_id,
                id_course=_label(by_id),
                name=name,
                name_course=_label(by_name),
            )
        return None

    def _references(self) -> list[str]:
        """Every distinct course reference, in the order the plan mentions them (weeks, then resources)."""
        refs = [ref for week in self.scan.weeks for ref in week.course_refs] + self.scan.resource_refs
        return list(dict.fromkeys(refs))

    def _resolve(self, ref: str) -> Course | None:
        course_id, name = course_ref_parts(ref)
        return (self.catalog.find(course_id) if course_id else None) or self._find_by_name(name)

    def course_problems(self) -> Iterator[str]:
        for ref in self._references():
            if problem := self._reference_problem(ref):
                yield problem
        listed = {course.id for ref in self.scan.resource_refs if (course := self._resolve(ref))}
        scheduled = [self._resolve(ref) for week in self.scan.weeks for ref in week.course_refs]
        missing = {course.id: course for course in scheduled if course and course.id not in listed}
        if missing:
            yield _message(
                "missing_resources",
                heading=self.labels["resources"],
                courses=", ".join(map(_label, missing.values())),
            )

    def budget_problems(self) -> Iterator[str]:
        scan = self.scan
        if scan.hours_per_week is None or not scan.weeks or (scan.time_note and scan.time_note.strip()):
            return
        courses = {course.id: course for ref in self._references() if (course := self._resolve(ref))}
        need = sum(course.total_hours for course in courses.values())
        have = scan.hours_per_week * len(scan.weeks)
        if need > have:
            breakdown = ", ".join(f"{c.id} {_hours(c.total_hours)} h" for c in courses.values())
            yield _message(
                "over_budget",
                need=_hours(need),
                breakdown=breakdown,
                have=_hours(have),
                weeks=len(scan.weeks),
                hours=_hours(scan.hours_per_week),
                heading=self.labels["time_note"],
            )


def _name_key(text: str) -> str:
    return re.sub(r"\s+", "", text).lower()


def _is_named(course: Course, name: str) -> bool:
    names = {_name_key(course.name), _name_key(course.name_zh or "")}
    return bool({_name_key(name), _name_key(_TRAILING_PARENTHETICAL.sub("", name))} & names)


def _label(course: Course) -> str:
    return f"[{course.id}] {course.name}"
