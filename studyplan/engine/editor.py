"""Editing a parsed plan for one revision request, leaving the weeks checked in as done untouched.

Plain functions over data: a PlanDoc, the done weeks, the catalog and the request in; the edited PlanDoc
and a sentence saying what changed out (or a Refusal with the answer for the learner).
"""

from __future__ import annotations

import copy
import functools
import json
import math
import re
from dataclasses import dataclass, field
from datetime import timedelta
from importlib import resources
from typing import Any

from studyplan.domain import vocabulary
from studyplan.domain.catalog import Catalog, Course
from studyplan.domain.document import Phase, PlanDoc, Week
from studyplan.engine.goal import load_phrases
from studyplan.engine.revision_request import Request
from studyplan.lang import Lang

MIN_PHASES = 3
_HOURS_IN_TASK = re.compile(r"(?P<lead>约\s*|about\s+)(?P<hours>\d+(?:\.\d+)?)(?P<unit>\s*(?:小时|h\b|hours?))")


def _task_hours(task: str) -> float:
    match = _HOURS_IN_TASK.search(task)
    return float(match["hours"]) if match else 0.0


def _with_hours(task: str, share: float) -> str:
    """The task with its stated hours times `share` ("about 8 h" → "about 4 h")."""
    def scaled(match: re.Match[str]) -> str:
        return f"{match['lead']}{round(float(match['hours']) * share, 1):g}{match['unit']}"

    return _HOURS_IN_TASK.sub(scaled, task, count=1)


@functools.cache
def phrases() -> dict[str, dict[str, Any]]:
    """data/revise_phrases.json: the reviser's plan text and answers, per language."""
    text = resources.files("studyplan.data").joinpath("revise_phrases.json").read_text(encoding="utf-8")
    return json.loads(text)


# --- editing the plan ----------------------------------------------------------------------------------


class Refusal(Exception):
    """The request cannot be done on this plan; the message is the answer for the learner."""


@dataclass
class _Entry:
    phase: Phase  # the (original or new) phase the week belongs to; identity groups weeks into phases
    week: Week


@dataclass
class _Edit:
    plan: PlanDoc
    entries: list[_Entry]
    frozen: int  # weeks 1..frozen are done (or before a done week) and never change
    change: str = ""  # what was done, in the request's language
    notes: list[str] = field(default_factory=list)  # revision notes for the plan's time note


class PlanEditor:
    """Applies one request to a parsed plan, leaving the first `frozen` weeks exactly as they are."""

    def __init__(self, plan: PlanDoc, done: set[int], catalog: Catalog, answer_lang: Lang) -> None:
        self.original = plan
        self.done = done
        self.catalog = catalog
        self.words = phrases()[plan.lang]  # text written into the plan
        self.answer_lang = answer_lang
        self.answers = phrases()[answer_lang]  # text the learner reads in the answer
        self.frozen = max(done, default=0)

    # helpers

    def _refuse(self, key: str, **values: object) -> Refusal:
        return Refusal(self.answers[key].format(**values))

    def _done_text(self) -> str:
        return ", ".join(map(str, sorted(self.done))) or self.answers["done_none"]

    def _start(self) -> _Edit:
        plan = copy.deepcopy(self.original)
        entries = [_Entry(phase, week) for phase in plan.phases for week in phase.weeks]
        if self.frozen >= len(entries):
            raise self._refuse("nothing_free", done=self._done_text())
        return _Edit(plan, entries, self.frozen)

    def _free_week_index(self, edit: _Edit, number: int) -> int:
        if not 1 <= number <= len(edit.entries):
            raise self._refuse("week_missing", weeks=len(edit.entries), week=number)
        if number <= edit.frozen:
            raise self._refuse("week_frozen", week=number, done=self._done_text(), first=edit.frozen + 1)
        return number - 1

    def _course(self, ref: str) -> Course | None:
        return self.catalog.find(ref)

    def _topic_label(self, topic: str, lang: Lang) -> str:
        return vocabulary.topic_label(topic, lang)

    @staticmethod
    def _blank_week(courses: list[str], content: str, tasks: list[str], deliverable: str, anchor: Week) -> Week:
        # Number and dates are placeholders: _finish renumbers and re-dates every week.
        return Week(0, anchor.start, anchor.end, courses, content, tasks, deliverable)

    # the requests

    def apply(self, request: Request, found: list[Course] | None = None) -> _Edit:
        """The edited plan; `found` is what a search for an added topic returned, in order. Raises Refusal
        (with the answer) when the request cannot be done."""
        edit = self._start()
        if request.kind == "lighten":
            self._lighten(edit, request.week or 1)
        elif request.kind == "postpone":
            self._postpone(edit, request.week or 1, request.weeks or 1)
        elif request.kind == "resize":
            free = len(edit.entries) - edit.frozen
            total = request.weeks if request.weeks is not None else len(edit.entries) + request.relative
            self._resize(edit, total - edit.frozen, free)
        elif request.kind == "hours":
            self._change_hours(edit, request.hours or edit.plan.hours_per_week)
        elif request.kind == "drop":
            self._drop(edit, request.topic or "")
        elif request.kind == "add":
            self._add(edit, request.topic or "", found or [])
        elif request.kind == "swap":
            self._swap(edit, request.week or 1, request.other_week or 1)
        elif request.kind == "drop_course":
            self._drop_course(edit, request.words)
        elif request.kind == "projects":
            self._more_projects(edit)
        else:
            self._replan(edit, request)
        return self._finish(edit)

    def _lighten(self, edit: _Edit, number: int) -> None:
        """Half of the week's work moves to a new week right after it: tasks that state their hours keep
        half of them (the other half moves); the other tasks are shared out, the first half staying."""
        index = self._free_week_index(edit, number)
        entry = edit.entries[index]
        week, words = entry.week, self.words
        tasks = week.tasks or [week.content]
        timed = [task for task in tasks if _HOURS_IN_TASK.search(task)]
        if timed:
            untimed = [task for task in tasks if task not in timed]
            middle = math.ceil(len(untimed) / 2)
            kept = [_with_hours(task, 0.5) for task in timed] + untimed[:middle]
            moved = [_with_hours(task, 0.5) for task in timed] + untimed[middle:]
        elif len(tasks) == 1:
            kept = [words["task_first_half"].format(task=tasks[0])]
            moved = [words["task_second_half"].format(task=tasks[0])]
        else:
            middle = math.ceil(len(tasks) / 2)
            kept, moved = tasks[:middle], tasks[middle:]
        rest = self._blank_week(
            list(week.courses),
            words["moved_content"].format(content=week.content, week=number),
            moved,
            week.deliverable,
            week,
        )
        week.tasks = kept
        week.deliverable = words["lightened_deliverable"].format(content=week.content)
        edit.entries.insert(index + 1, _Entry(entry.phase, rest))
        study = sum(_task_hours(task) for task in timed)
        if study:
            edit.change = self.answers["change_lighten_hours"].format(
                week=number, next=number + 1, kept=f"{study / 2:g}", total=f"{study:g}", weeks=len(edit.entries)
            )
        else:
            edit.change = self.answers["change_lighten"].format(week=number, next=number + 1)

    def _swap(self, edit: _Edit, first: int, second: int) -> None:
        """Two free weeks exchange what they study; dates and phases stay with the week positions."""
        a, b = self._free_week_index(edit, first), self._free_week_index(edit, second)
        if a == b:
            raise self._refuse("swap_same", week=first)
        week_a, week_b = edit.entries[a].week, edit.entries[b].week
        for name in ("courses", "content", "tasks", "deliverable"):
            value_a, value_b = getattr(week_a, name), getattr(week_b, name)
            setattr(week_a, name, value_b)
            setattr(week_b, name, value_a)
        edit.change = self.answers["change_swap"].format(first=first, second=second)

    def _drop_course(self, edit: _Edit, words: tuple[str, ...]) -> None:
        """Drop the plan's course the words name ("drop the visualization course")."""
        used = [course for ref in edit.plan.resources if (course := self._course(ref))]
        named = [
            course for course in used
            if any(len(word) >= 3 and (word in course.name.lower() or word in (course.name_zh or "")
                                       or word == course.id) for word in words)
        ]  # fmt: skip
        if len(named) != 1:
            names = self.answers["list_separator"].join(f"[{c.id}] {c.name}" for c in used)
            raise self._refuse("course_unclear", courses=names)
        course = named[0]
        topic = course.topics[0] if course.topics else ""
        self._drop(edit, topic, only={course.id})

    def _more_projects(self, edit: _Edit) -> None:
        """Each free week of study builds a small project with what it teaches, instead of one practice task."""
        words = self.words
        changed = 0
        for entry in edit.entries[edit.frozen :]:
            week = entry.week
            if not week.courses or not week.tasks:
                continue
            practice = [i for i, task in enumerate(week.tasks) if not _HOURS_IN_TASK.search(task)]
            project = words["project_task"].format(content=week.content)
            if practice:
                week.tasks[practice[0]] = project
            elif len(week.tasks) < 4:
                week.tasks.append(project)
            week.deliverable = words["project_deliverable"]
            changed += 1
        if not changed:
            raise self._refuse("nothing_free", done=self._done_text())
        edit.change = self.answers["change_projects"].format(count=changed, first=edit.frozen + 1)

    def _buffer_week(self, anchor: Week) -> Week:
        words = self.words
        return self._blank_week([], words["buffer_content"], list(words["buffer_tasks"]),
                                words["buffer_deliverable"], anchor)

    def _postpone(self, edit: _Edit, number: int, count: int) -> None:
        index = self._free_week_index(edit, number)
        if index == 0:  # nothing comes before week 1: the whole plan starts later
            edit.plan.start += timedelta(days=7 * count)
            edit.change = self.answers["change_start"].format(count=count, start=edit.plan.start.isoformat())
            return
        phase = edit.entries[index - 1].phase  # catching up on what came before
        for _ in range(count):
            edit.entries.insert(index, _Entry(phase, self._buffer_week(edit.entries[index].week)))
        edit.change = self.answers["change_postpone"].format(week=number, count=count)

    def _free_groups(self, edit: _Edit) -> list[tuple[Phase, list[Week]]]:
        groups: list[tuple[Phase, list[Week]]] = []
        for entry in edit.entries[edit.frozen :]:
            if groups and groups[-1][0] is entry.phase:
                groups[-1][1].append(entry.week)
            else:
                groups.append((entry.phase, [entry.week]))
        return groups

    def _resize(self, edit: _Edit, target_free: int, free: int, note: bool = True) -> None:
        groups = self._free_groups(edit)
        minimum = len(groups)
        if target_free < minimum:
            raise self._refuse("too_few_weeks", minimum=edit.frozen + minimum, weeks=edit.frozen + target_free)
        if target_free == free:
            raise self._refuse("same_length", weeks=free)
        sizes = [len(weeks) for _, weeks in groups]
        resized = [
            _Entry(phase, week)
            for (phase, weeks), count in zip(groups, _allocate(sizes, target_free), strict=True)
            for week in self._redistribute(weeks, count)
        ]
        edit.entries[edit.frozen :] = resized
        first = edit.frozen + 1
        edit.change = self.answers["change_resize"].format(first=first, old=free, new=target_free)
        if note:
            direction = self.words["more"] if target_free < free else self.words["less"]
            edit.notes.append(self.words["note_resize"].format(first=first, old=free, new=target_free,
                                                               direction=direction))

    def _redistribute(self, weeks: list[Week], count: int) -> list[Week]:
        """`weeks` spread over `count` weeks: neighbours merged when fewer, each week split when more."""
        total = len(weeks)
        if count == total:
            return weeks
        if count < total:
            buckets: list[list[Week]] = [[] for _ in range(count)]
            for index, week in enumerate(weeks):
                buckets[index * count // total].append(week)
            return [bucket[0] if len(bucket) == 1 else self._merge(bucket) for bucket in buckets]
        parts = [0] * total
        for index in range(count):
            parts[index * total // count] += 1
        return [piece for week, count_of in zip(weeks, parts, strict=True) for piece in self._split(week, count_of)]

    def _merge(self, weeks: list[Week]) -> Week:
        separator = self.words["content_separator"]
        courses = list(dict.fromkeys(ref for week in weeks for ref in week.courses))
        return self._blank_week(
            courses,
            separator.join(week.content for week in weeks),
            [task for week in weeks for task in week.tasks],
            separator.join(dict.fromkeys(week.deliverable for week in weeks)),
            weeks[0],
        )

    def _split(self, week: Week, count: int) -> list[Week]:
        if count == 1:
            return [week]
        words, tasks = self.words, week.tasks
        pieces = []
        for part in range(1, count + 1):
            chunk = tasks[(part - 1) * len(tasks) // count : part * len(tasks) // count]
            pieces.append(
                self._blank_week(
                    list(week.courses),
                    words["part_content"].format(content=week.content, part=part, parts=count),
                    chunk or [words["part_review_task"].format(content=week.content)],
                    week.deliverable if part == count else words["part_deliverable"].format(content=week.content),
                    week,
                )
            )
        return pieces

    def _change_hours(self, edit: _Edit, hours: float) -> None:
        old = edit.plan.hours_per_week
        if hours == old:
            raise self._refuse("same_hours", hours=f"{hours:g}")
        free = len(edit.entries) - edit.frozen
        target = max(len(self._free_groups(edit)), math.ceil(free * old / hours - 1e-9))
        if target != free:
            self._resize(edit, target, free, note=False)
        edit.plan.hours_per_week = hours
        values = {"old": f"{old:g}", "new": f"{hours:g}", "first": edit.frozen + 1, "old_weeks": free,
                  "new_weeks": target}  # fmt: skip
        edit.change = self.answers["change_hours"].format(**values)
        edit.notes.append(self.words["note_hours"].format(**values))

    def _primary_courses(self, weeks: list[Week], topic: str) -> list[Course]:
        """The courses of `weeks` that are mainly about `topic` (its first topic), in order."""
        found = [course for week in weeks for ref in week.courses if (course := self._course(ref))]
        return list(dict.fromkeys(course for course in found if course.topics and course.topics[0] == topic))

    def _drop(self, edit: _Edit, topic: str, only: set[str] | None = None) -> None:
        free_weeks = [entry.week for entry in edit.entries[edit.frozen :]]
        dropped = self._primary_courses(free_weeks, topic)
        if only is not None:
            dropped = [course for course in dropped if course.id in only]
        label = self._topic_label(topic, self.answer_lang)
        if not dropped:
            raise self._refuse("topic_missing", topic=label)
        dropped_ids = {course.id for course in dropped}
        mentions = [name for course in dropped for name in (course.name, course.name_zh, course.id) if name]
        kept_entries = edit.entries[: edit.frozen]
        removed = 0
        for entry in edit.entries[edit.frozen :]:
            week = entry.week
            remaining = [ref for ref in week.courses if self._course_id(ref) not in dropped_ids]
            if week.courses and not remaining:
                removed += 1
                continue
            if len(remaining) < len(week.courses):
                self._strip_mentions(week, remaining, mentions)
            kept_entries.append(entry)
        edit.entries = kept_entries
        self._tidy_phases_after_drop(edit, topic, label)
        still_used = {self._course_id(ref) for entry in edit.entries for ref in entry.week.courses}
        edit.plan.resources = [ref for ref in edit.plan.resources if self._course_id(ref) in still_used
                               or self._course_id(ref) not in dropped_ids]
        courses = self.answers["list_separator"].join(f"[{course.id}] {course.name}" for course in dropped)
        edit.change = self.answers["change_drop"].format(topic=label, courses=courses, removed=removed)
        if edit.plan.time_note:  # it may name the dropped courses: say they are gone
            plan_label = self._topic_label(topic, self.original.lang)
            edit.notes.append(self.words["note_drop"].format(topic=plan_label, courses=courses))

    def _course_id(self, ref: str) -> str:
        course = self._course(ref)
        return course.id if course else ref

    def _strip_mentions(self, week: Week, remaining: list[str], mentions: list[str]) -> None:
        """Take a dropped course out of a week that also studies another course."""

        def mentioned(text: str) -> bool:
            return any(name.lower() in text.lower() for name in mentions)

        separator = self.words["content_separator"]
        parts = [part for part in re.split(r"\s*[；;]\s*", week.content) if part and not mentioned(part)]
        week.courses = remaining
        week.content = separator.join(parts) or week.content
        week.tasks = [task for task in week.tasks if not mentioned(task)] or [self.words["review_task"]]
        if mentioned(week.deliverable):
            week.deliverable = self.words["notes_deliverable"]

    def _tidy_phases_after_drop(self, edit: _Edit, topic: str, label_in_answer: str) -> None:
        """Phases that no longer study the topic lose its title word and self-checks; keep three phases."""
        plan_label = self._topic_label(topic, self.original.lang)
        topic_checks = set(_planner_topic(self.original.lang, topic).get("self_check", []))
        generic = self.words["added_self_check"][-1]
        for phase in _distinct_phases(edit.entries[edit.frozen :]):
            weeks = [entry.week for entry in edit.entries if entry.phase is phase]
            if self._primary_courses(weeks, topic):
                continue
            phase.title = _without_label(phase.title, plan_label)
            phase.self_check = [item for item in phase.self_check if item not in topic_checks] or [generic]
        if not self._ensure_phases(edit):
            raise self._refuse("too_few_phases", topic=label_in_answer)

    def _ensure_phases(self, edit: _Edit) -> bool:
        """Split the longest free phase until there are three phases; False when the weeks are too few."""
        while len(_distinct_phases(edit.entries)) < MIN_PHASES:
            groups = self._free_groups(edit)
            phase, weeks = max(groups, key=lambda group: len(group[1]), default=(None, []))
            if phase is None or len(weeks) < 2:
                return False
            second = Phase(0, self.words["phase_continued"].format(title=phase.title), [], list(phase.self_check))
            moved = {id(week) for week in weeks[(len(weeks) + 1) // 2 :]}
            for entry in edit.entries:
                if id(entry.week) in moved:
                    entry.phase = second
        return True

    def _add(self, edit: _Edit, topic: str, found: list[Course]) -> None:
        label = self._topic_label(topic, self.answer_lang)
        present = self._primary_courses([entry.week for entry in edit.entries], topic)
        if present:
            names = self.answers["list_separator"].join(course.name for course in present)
            raise self._refuse("topic_present", topic=label, courses=names)
        used = {self._course_id(ref) for entry in edit.entries for ref in entry.week.courses}
        candidates = [course for course in found if course.id not in used]
        if not candidates:
            raise self._refuse("no_course", topic=label)
        course = candidates[0]
        plan_lang, words = self.original.lang, self.words
        topic_words = _planner_topic(plan_lang, topic)
        plan_label = self._topic_label(topic, plan_lang)
        checks = list(topic_words.get("self_check", []))[:3] or [words["added_self_check"][0].format(topic=plan_label)]
        phase = Phase(0, words["added_phase_title"].format(topic=plan_label), [],
                      [*checks, words["added_self_check"][-1]])
        count = max(1, math.ceil(course.total_hours / edit.plan.hours_per_week - 1e-9))
        anchor = edit.entries[-1].week
        new_weeks = [self._added_week(course, part, count, topic_words, anchor) for part in range(count)]
        position = self._before_capstone(edit)
        edit.entries[position:position] = [_Entry(phase, week) for week in new_weeks]
        edit.plan.resources.append(course.id)
        edit.change = self.answers["change_add"].format(
            topic=label, course=course.name, phase=phase.title, count=count, first=position + 1,
            last=position + count,
        )  # fmt: skip

    def _added_week(self, course: Course, part: int, count: int, topic_words: dict[str, Any], anchor: Week) -> Week:
        words = self.words
        first = part * course.weeks // count + 1
        last = max(first, (part + 1) * course.weeks // count)
        unit_key = "added_unit" if first == last else "added_units"
        content = words[unit_key].format(name=course.name, first=first, last=last)
        practice = topic_words.get("practice") or [words["added_task_practice"]]
        tasks = [
            words["added_task_study"].format(content=content, hours=round(course.total_hours / count, 1)),
            practice[part % len(practice)],
        ]
        deliverables = topic_words.get("deliverables") or [words["added_deliverable"]]
        deliverable = deliverables[part % len(deliverables)]
        if part == count - 1:
            tasks.append(words["added_task_finish"].format(name=course.name))
            deliverable = words["added_deliverable_finish"].format(name=course.name)
        return self._blank_week([course.id], content, tasks, deliverable, anchor)

    def _before_capstone(self, edit: _Edit) -> int:
        """Where new study weeks go: before a closing project phase (weeks without courses), else at the end."""
        last_phase = edit.entries[-1].phase
        closing = [index for index, entry in enumerate(edit.entries) if entry.phase is last_phase]
        is_project = all(not edit.entries[index].week.courses for index in closing)
        if is_project and closing[0] >= edit.frozen and len(_distinct_phases(edit.entries)) > 1:
            return closing[0]
        return len(edit.entries)

    def _replan(self, edit: _Edit, request: Request) -> None:
        if request.measured_weeks == 0:
            raise self._refuse("replan_too_early")
        changes = []
        # Re-pace first, then shift: a buffer week inserted for lost time stays one week long.
        if request.hours is not None and request.hours > 0 and request.hours != edit.plan.hours_per_week:
            self._change_hours(edit, request.hours)
            changes.append(edit.change)
        shift = round(abs(request.days_ahead) / 7)
        free = len(edit.entries) - edit.frozen
        if request.days_ahead < 0:
            self._postpone(edit, edit.frozen + 1, max(1, shift))
            changes.append(edit.change)
        elif shift and free - shift >= len(self._free_groups(edit)):
            self._resize(edit, free - shift, free)
            changes.append(edit.change)
        if not changes:
            raise self._refuse("on_pace")
        key = "change_replan_behind" if request.days_ahead < 0 else "change_replan_ahead"
        prefix = self.answers[key].format(days=abs(request.days_ahead)) if request.days_ahead else ""
        if request.hours is not None and request.measured_weeks:
            prefix += self.answers["measured_pace"].format(
                hours=request.hours, weeks=request.measured_weeks, planned=self.original.hours_per_week
            )
        edit.change = prefix + (" " if self.answer_lang == "en" else "").join(changes)

    # the result

    def _finish(self, edit: _Edit) -> _Edit:
        """Regroup the weeks into phases, renumber and re-date every week from the start, update the header."""
        plan = edit.plan
        old_count = len(self.original.weeks)
        phases: list[Phase] = []
        for entry in edit.entries:
            if not phases or phases[-1] is not entry.phase:
                entry.phase.weeks = []
                phases.append(entry.phase)
            entry.phase.weeks.append(entry.week)
        for number, phase in enumerate(phases, start=1):
            phase.number = number
        for number, week in enumerate((entry.week for entry in edit.entries), start=1):
            week.number = number
            week.start = plan.start + timedelta(days=7 * (number - 1))
            week.end = week.start + timedelta(days=6)
        plan.phases = phases
        plan.end = plan.weeks[-1].end
        plan.title = _retitle(plan.title, old_count, len(plan.weeks))
        if edit.notes:
            plan.time_note = "\n\n".join([*([plan.time_note] if plan.time_note else []), *edit.notes])
        return edit


def _distinct_phases(entries: list[_Entry]) -> list[Phase]:
    """The phases of `entries` in order, each once (phases are compared by identity: two may look alike)."""
    phases: dict[int, Phase] = {}
    for entry in entries:
        phases.setdefault(id(entry.phase), entry.phase)
    return list(phases.values())


def _allocate(sizes: list[int], total: int) -> list[int]:
    """Split `total` weeks among groups in proportion to their sizes, at least one each (largest remainder)."""
    whole = sum(sizes)
    shares = [size * total / whole for size in sizes]
    allocation = [max(1, math.floor(share)) for share in shares]
    while sum(allocation) < total:
        allocation[max(range(len(sizes)), key=lambda i: shares[i] - allocation[i])] += 1
    while sum(allocation) > total:
        shrinkable = [i for i in range(len(sizes)) if allocation[i] > 1]
        allocation[max(shrinkable, key=lambda i: allocation[i] - shares[i])] -= 1
    return allocation


def _retitle(title: str, old_count: int, new_count: int) -> str:
    """"机器学习（入门 · 13 周）" → "… 14 周" when the title states the plan's length."""
    pattern = re.compile(rf"(?<!\d){old_count}(\s*周|[\s-]weeks?\b)", re.IGNORECASE)
    return pattern.sub(lambda match: f"{new_count}{match[1]}", title, count=1)


def _without_label(title: str, label: str) -> str:
    escaped = re.escape(label)
    for pattern in (rf"{escaped}\s*[、,，]\s*", rf"\s*[、,，]\s*{escaped}"):
        shortened = re.sub(pattern, "", title, count=1)
        if shortened != title:
            return shortened
    return title


def _planner_topic(lang: Lang, topic: str) -> dict[str, Any]:
    """The offline planner's wording for a topic (practice tasks, deliverables, self-checks), if it has some."""
    topics = load_phrases()["planner"][lang].get("topics", {})
    return topics.get(topic, {})
