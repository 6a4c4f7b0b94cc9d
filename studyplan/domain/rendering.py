"""Rendering a plan as Markdown in its own language: the one format every reader of plans understands.

Rendering is strict (one spelling of every label, from data/plan_labels.json), so `parse_plan` reads a
rendered plan back to the same PlanDoc. save_plan writes this rendering of what it read, whatever Markdown
the model wrote.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from studyplan.domain.labels import dated, format_hours, render_labels
from studyplan.domain.plan_model import Phase, PlanDoc
from studyplan.domain.references import course_ref_parts

if TYPE_CHECKING:
    from studyplan.domain.catalog import Catalog, Course


# Text that Markdown would read as the start of a list, heading, quote or rule when it opens a list item.
_BLOCK_START = re.compile(r"^(?:(\d+)([.)])|([-*+]|#{1,6}))(?=\s|$)|^([>_*-])")
# A backslash before ASCII punctuation is an escape in Markdown; the reader resolves escapes.
_BACKSLASH = re.compile(r"\\(?=[!-/:-@\[-`{-~])")


def _text(text: str) -> str:
    """Free text as Markdown that reads back as the same text (backslashes kept)."""
    return _BACKSLASH.sub(r"\\\\", text)


def _item(text: str) -> str:
    """Free text safe at the start of a block (a list item, the time-note paragraph): "0." stays text, not a
    list; ">0" is no quote."""
    text = _text(text)
    return _BLOCK_START.sub(lambda m: f"{m[1]}\\{m[2]}" if m[1] else f"\\{m[3] or m[4]}", text, count=1)


def _lookup(catalog: Catalog, ref: str) -> Course | None:
    course_id, name = course_ref_parts(ref)
    return catalog.find(course_id or name)


def render_plan(plan: PlanDoc, catalog: Catalog) -> str:
    """The plan as Markdown in its own language; course ids are shown with their catalog names."""
    labels = render_labels(plan.lang)
    lines = [labels["title"].format(title=_text(plan.title)), "", labels["goal"].format(goal=_text(plan.goal)), ""]
    lines += [
        labels["start"].format(date=dated(plan.start, plan.lang)),
        labels["end"].format(date=dated(plan.end, plan.lang)),
        labels["weekly_time"].format(hours=format_hours(plan.hours_per_week)),
        "",
    ]
    if plan.time_note:
        lines += [labels["time_note"], "", _item(plan.time_note), ""]
    if plan.assumptions:
        lines += [labels["assumptions"], "", *(f"- {_item(item)}" for item in plan.assumptions), ""]
    for phase in plan.phases:
        lines += _phase_lines(plan, phase, catalog)
    lines += [labels["resources"], ""]
    lines += [_resource_line(plan, ref, catalog) for ref in plan.resources]
    return "\n".join(lines).rstrip() + "\n"


def _phase_lines(plan: PlanDoc, phase: Phase, catalog: Catalog) -> list[str]:
    labels = render_labels(plan.lang)

    def course_label(ref: str) -> str:
        course = _lookup(catalog, ref)
        return f"[{course.id}] {course.name}" if course else ref

    heading = labels["phase"].format(number=phase.number, title=_text(phase.title))
    if phase.weeks:
        first, last = phase.weeks[0].number, phase.weeks[-1].number
        span = labels["phase_span"] if first != last else labels["phase_span_single"]
        heading += span.format(first=first, last=last)
    lines = [heading, ""]
    for week in phase.weeks:
        courses = labels["course_separator"].join(course_label(ref) for ref in week.courses)
        start, end = dated(week.start, plan.lang), dated(week.end, plan.lang)
        lines += [
            labels["week"].format(number=week.number, start=start, end=end),
            labels["course"].format(courses=courses or labels["no_course"]),
        ]
        if week.content:  # a plan read from a model's table may have no content or tasks column
            lines.append(labels["content"].format(content=_text(week.content)))
        if week.tasks:
            lines += [labels["tasks"], *(f"  - {_item(task)}" for task in week.tasks)]
        if week.deliverable:
            lines.append(labels["deliverable"].format(deliverable=_text(week.deliverable)))
        lines.append("")
    lines += [labels["self_check"].format(number=phase.number), ""]
    lines += [*(f"- [ ] {_text(item)}" for item in phase.self_check), ""]
    return lines


def _resource_line(plan: PlanDoc, ref: str, catalog: Catalog) -> str:
    labels = render_labels(plan.lang)
    course = _lookup(catalog, ref)
    if course is None:
        return f"- {ref}"
    name_zh = labels["name_zh"].format(name_zh=course.name_zh) if course.name_zh else ""
    return labels["resource"].format(
        id=course.id,
        name=course.name,
        name_zh=name_zh,
        provider=course.provider,
        url=course.url,
        weeks=course.weeks,
        hours=format_hours(course.hours_per_week),
    )
