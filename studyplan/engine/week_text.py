"""How a week names what to study: a course's units ("Week 3 · Algorithms (10 h)") or its own weeks
("course weeks 3–4"), and the study task that fits the kind of resource (a book is read, an SRS app is
reviewed every day, a video course is watched). Wording comes from data/offline_phrases.json.
"""

from __future__ import annotations

from typing import Any

from studyplan.domain.catalog import Course
from studyplan.engine.schedule import Slot, Step


def _hours(value: float) -> float:
    return round(value, 1)


def step_name(step: Step, words: dict[str, Any]) -> str:
    """ "Week 3 · Algorithms", "Chapter 5 · Strings (part 1 of 2)", "course week 4"."""
    if step.title is not None:
        name = f"{step.label} · {step.title}" if step.label else step.title
    else:
        name = words["course_week"].format(week=step.index + 1)
    if step.parts > 1:
        name += words["step_part"].format(part=step.part, parts=step.parts)
    return name


def _merged_course_weeks(steps: tuple[Step, ...] | list[Step]) -> list[tuple[Step, Step]]:
    """Consecutive whole course weeks as (first, last) runs; every other step on its own."""
    runs: list[tuple[Step, Step]] = []
    for step in steps:
        whole_week = step.title is None and step.parts == 1
        previous = runs[-1][1] if runs else None
        follows = previous is not None and previous.title is None and previous.parts == 1
        if whole_week and follows and previous is not None and previous.index + 1 == step.index:
            runs[-1] = (runs[-1][0], step)
            continue
        runs.append((step, step))
    return runs


def steps_text(course: Course, steps: tuple[Step, ...] | list[Step], words: dict[str, Any], hours: bool) -> str:
    """The course and the steps of it, with each step's hours when `hours`."""
    names = []
    for first, last in _merged_course_weeks(steps):
        if first is last:
            name, step_hours = step_name(first, words), first.hours
        else:
            name = words["course_weeks"].format(first=first.index + 1, last=last.index + 1)
            step_hours = sum(s.hours for s in steps if first.index <= s.index <= last.index)
        names.append(words["step_hours"].format(step=name, hours=_hours(step_hours)) if hours else name)
    return words["course_steps"].format(name=course.name, steps=words["step_separator"].join(names))


def slot_text(slot: Slot, words: dict[str, Any]) -> str:
    return steps_text(slot.chosen.course, slot.steps, words, hours=True)


def span_text(course: Course, first: Step, last: Step, words: dict[str, Any]) -> str:
    """Where a stretch of a course starts and ends, for a phase's summary."""
    if first == last:
        return steps_text(course, [first], words, hours=False)
    if first.title is None and last.title is None and first.part == 1 and last.part == last.parts:
        span = words["course_weeks"].format(first=first.index + 1, last=last.index + 1)
    else:
        span = words["step_span"].format(first=step_name(first, words), last=step_name(last, words))
    return words["course_steps"].format(name=course.name, steps=span)


def study_task(slot: Slot, words: dict[str, Any]) -> str:
    """The task of studying one course's steps this week, worded for the kind of resource and work."""
    course = slot.chosen.course
    kinds = {step.kind for step in slot.steps}
    templates = words["task_by_kind"]
    if len(kinds) == 1 and (kind := next(iter(kinds))) in templates:
        template = templates[kind]
    else:
        template = words["task_by_format"].get(course.format or "default", words["task_by_format"]["default"])
    task = template.format(part=steps_text(course, slot.steps, words, hours=False), hours=_hours(slot.hours))
    if slot.chosen.compressed:
        task = words["task_compressed"].format(task=task)
    return task


def unitless(courses: list[Course]) -> list[Course]:
    """Courses whose outline the catalog does not list: the plan says they go by their own weeks."""
    return [course for course in courses if not (course.units and course.unit_hours > 0)]
