"""The offline reviser: a rule-based stand-in for the model in `studyplan revise`, behind the ChatModel interface.

It plays the revision trajectory with the real tools: read_plan → (search_courses, to add a topic) → edit the
parsed plan → save_revision → a summary. It understands the common requests in Chinese and English: compress
or extend the schedule, lighten or postpone a week, drop or add a topic, change the hours per week, and the
sentence `studyplan replan` builds from the measured pace. Weeks checked in as done, and the weeks before
them, are never touched; every later week is renumbered and re-dated from the plan's start.

Like the offline planner it keeps no state: each reply is derived from the messages (the request is the first
user message, the facts are the tool observations), so the same conversation gives the same reply.
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
from typing import Any, Literal

from studyplan.app.revise import read_plan_parts, saved_revision
from studyplan.core.model import ModelReply, ToolCall
from studyplan.core.transcript import Exchange, Transcript
from studyplan.domain import vocabulary
from studyplan.domain.catalog import Catalog, Course
from studyplan.domain.document import Lang, Phase, PlanDoc, Week, parse_plan, render_plan
from studyplan.engine.goal import chinese_number, load_phrases
from studyplan.errors import PlanFileError

MAX_SAVE_ATTEMPTS = 2
MIN_PHASES = 3
_EN_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
               "ten": 10, "a": 1, "an": 1}  # fmt: skip
_EN_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
                "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12}  # fmt: skip
_ZH_NUMBER = r"\d+|[一二两三四五六七八九十]+"
_EN_NUMBER = r"\d+|" + "|".join(sorted(_EN_NUMBERS, key=len, reverse=True))
_WEEK_REFERENCE = re.compile(
    rf"第\s*(?P<zh>{_ZH_NUMBER})\s*(?:周|个?星期|个?礼拜)"
    rf"|\bweek\s*(?P<en>\d+)\b"
    rf"|\b(?P<ordinal>{'|'.join(_EN_ORDINALS)}|\d+(?:st|nd|rd|th))\s+week\b",
    re.IGNORECASE,
)
_WEEKS_AMOUNT = re.compile(rf"(?P<n>{_ZH_NUMBER}|{_EN_NUMBER})\s*(?:个)?\s*(?P<unit>周|星期|礼拜|weeks?\b)", re.I)
_MONTHS_AMOUNT = re.compile(rf"(?P<n>{_ZH_NUMBER}|{_EN_NUMBER})\s*(?:个月|months?\b)", re.IGNORECASE)
_ABSOLUTE = re.compile(rf"(?:到|至|为|成|\bto)\s*(?:{_ZH_NUMBER}|{_EN_NUMBER})", re.IGNORECASE)
_HOURS = re.compile(r"(?P<n>\d+(?:\.\d+)?|[一二两三四五六七八九十]+)\s*(?:个)?\s*(?:小时|hours?\b|hrs?\b|h\b)", re.I)
_PER_DAY = re.compile(r"每天|一天|每日|per day|a day|daily|each day", re.IGNORECASE)
_PER_WEEK = re.compile(r"每周|一周|每星期|每个星期|per week|a week|weekly|each week|/\s*week", re.IGNORECASE)

_REPLAN = re.compile(r"按实际进度|重新安排|replan|measured pace", re.IGNORECASE)
_BEHIND = re.compile(r"落后\s*(\d+)\s*天|(\d+)\s*days?\s+behind", re.IGNORECASE)
_AHEAD = re.compile(r"(?:领先|超前)\s*(\d+)\s*天|(\d+)\s*days?\s+ahead", re.IGNORECASE)
_MEASURED = re.compile(r"实际每周约?\s*(\d+(?:\.\d+)?)\s*小时|actually about\s+(\d+(?:\.\d+)?)\s*hours?", re.I)
_POSTPONE = re.compile(r"推迟|延后|往后推|后推|推后|顺延|postpone|push\b.*\bback|delay|move\b.*\blater", re.I)
_LIGHTEN = re.compile(
    r"太紧|太满|太多|太累|太重|减掉|减少|减半|减轻|砍掉|少一点|轻一点|一半"
    r"|too (?:much|tight|heavy|full|busy|packed)|lighten|lighter|halve|\bhalf\b|\bcut\b|reduce|\bless\b",
    re.IGNORECASE,
)
_LONGER = re.compile(r"延长|拉长|放慢|多|extend|stretch|lengthen|longer|more", re.IGNORECASE)
_SHORTER = re.compile(r"压缩|缩短|加快|缩到|compress|shorten|shorter|fewer|faster", re.IGNORECASE)
_RESIZE = re.compile(
    r"改成|改为|调整|变成|延到|make it|change (?:it )?to|in\s+\d+\s+weeks|" + _LONGER.pattern + "|" + _SHORTER.pattern,
    re.IGNORECASE,
)
_DROP = re.compile(r"去掉|删掉|删除|不学|不要|拿掉|跳过|取消|\b(?:drop|remove|skip|without|no more|get rid of)\b", re.I)
_ADD = re.compile(r"加上|加入|增加|添加|补充|再学|也学|加一?门|加点|\b(?:add|include|also learn|plus)\b", re.I)
_COURSE_LINE = re.compile(r"^\s*-\s*\[(?P<id>[^\]]+)\]", re.MULTILINE)


# --- understanding the request -------------------------------------------------------------------------

RequestKind = Literal["lighten", "postpone", "resize", "hours", "drop", "add", "replan"]


@dataclass(frozen=True)
class Request:
    kind: RequestKind
    week: int | None = None  # lighten / postpone: the week asked about
    weeks: int | None = None  # resize: total weeks; postpone: how many weeks later
    relative: int = 0  # resize by this many weeks when no total was given
    hours: float | None = None  # hours: the new weekly time; replan: the measured weekly time
    topic: str | None = None  # drop / add: a topic key
    days_ahead: int = 0  # replan: negative when behind


def _number(token: str) -> int:
    token = token.strip().lower()
    if token.isdigit():
        return int(token)
    if token in _EN_NUMBERS:
        return _EN_NUMBERS[token]
    return chinese_number(token)


def _week_reference(text: str) -> int | None:
    match = _WEEK_REFERENCE.search(text)
    if match is None:
        return None
    if match["zh"]:
        return _number(match["zh"])
    if match["en"]:
        return int(match["en"])
    ordinal = match["ordinal"].lower()
    return _EN_ORDINALS.get(ordinal) or int(re.sub(r"\D", "", ordinal))


def _weeks_amount(text: str) -> int | None:
    """A number of weeks (or months, as weeks) in the text once week references ("第5周") are taken out."""
    rest = _WEEK_REFERENCE.sub(" ", text)
    if match := _WEEKS_AMOUNT.search(rest):
        return _number(match["n"])
    if match := _MONTHS_AMOUNT.search(rest):
        return round(_number(match["n"]) * 52 / 12)
    return None


def _hours(text: str) -> float | None:
    match = _HOURS.search(text)
    if match is None or not (_PER_WEEK.search(text) or _PER_DAY.search(text)):
        return None
    token = match["n"]
    hours = float(token) if re.fullmatch(r"\d+(?:\.\d+)?", token) else float(chinese_number(token))
    return hours * 7 if _PER_DAY.search(text) and not _PER_WEEK.search(text) else hours


def _first_group(match: re.Match[str] | None) -> int:
    return int(next(group for group in match.groups() if group)) if match else 0


def parse_request(text: str) -> Request | None:
    """What the learner asks for, or None when the offline reviser does not understand it."""
    if _REPLAN.search(text):
        measured = _MEASURED.search(text)
        return Request(
            "replan",
            days_ahead=_first_group(_AHEAD.search(text)) - _first_group(_BEHIND.search(text)),
            hours=float(next(g for g in measured.groups() if g)) if measured else None,
        )
    if (hours := _hours(text)) is not None:
        return Request("hours", hours=hours)
    week = _week_reference(text)
    amount = _weeks_amount(text)
    if _POSTPONE.search(text) and (week is not None or amount is not None):
        return Request("postpone", week=week or 1, weeks=amount or 1)
    if week is not None and _LIGHTEN.search(text):
        return Request("lighten", week=week)
    if amount is not None and _RESIZE.search(text):
        if _ABSOLUTE.search(text) or not (_LONGER.search(text) or _SHORTER.search(text)):
            return Request("resize", weeks=amount)
        return Request("resize", relative=-amount if _SHORTER.search(text) else amount)
    topics = vocabulary.find_topics(text)
    if topics and _DROP.search(text):
        return Request("drop", topic=topics[0])
    if topics and _ADD.search(text):
        return Request("add", topic=topics[0])
    return None


def _request_lang(text: str) -> Lang:
    return "zh" if re.search(r"[\u4e00-\u9fff]", text) else "en"


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

    def apply(self, request: Request, searched: str | None = None) -> _Edit:
        """The edited plan. Raises Refusal (with the answer) when the request cannot be done."""
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
            self._add(edit, request.topic or "", searched or "")
        else:
            self._replan(edit, request)
        return self._finish(edit)

    def _lighten(self, edit: _Edit, number: int) -> None:
        index = self._free_week_index(edit, number)
        entry = edit.entries[index]
        week, words = entry.week, self.words
        tasks = week.tasks or [week.content]
        if len(tasks) == 1:
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
        edit.change = self.answers["change_lighten"].format(week=number, next=number + 1)

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

    def _drop(self, edit: _Edit, topic: str) -> None:
        free_weeks = [entry.week for entry in edit.entries[edit.frozen :]]
        dropped = self._primary_courses(free_weeks, topic)
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

    def _add(self, edit: _Edit, topic: str, searched: str) -> None:
        label = self._topic_label(topic, self.answer_lang)
        present = self._primary_courses([entry.week for entry in edit.entries], topic)
        if present:
            names = self.answers["list_separator"].join(course.name for course in present)
            raise self._refuse("topic_present", topic=label, courses=names)
        used = {self._course_id(ref) for entry in edit.entries for ref in entry.week.courses}
        candidates = [course for match in _COURSE_LINE.finditer(searched)
                      if (course := self.catalog.get(match["id"].strip())) and course.id not in used]
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


# --- the model -----------------------------------------------------------------------------------------


class OfflineReviser:
    """A ChatModel that revises a saved plan with rules instead of a network call."""

    name = "offline"
    offline = True

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog

    def complete(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        stop: list[str] | None = None,
    ) -> ModelReply:
        transcript = Transcript.read(messages)
        turn = _Turn(transcript.first_user_text, transcript.exchanges, self.catalog)
        return turn.reply()


class _Turn:
    """One reply: where the conversation stands and what to do next."""

    def __init__(self, request_text: str, exchanges: list[Exchange], catalog: Catalog) -> None:
        self.request_text = request_text
        self.exchanges = exchanges
        self.catalog = catalog
        self.lang: Lang = _request_lang(request_text)
        self.answers = phrases()[self.lang]

    def _of(self, name: str) -> list[Exchange]:
        return [exchange for exchange in self.exchanges if exchange.name == name]

    def _call(self, thought: str, name: str, arguments: dict[str, Any]) -> ModelReply:
        call = ToolCall(f"call_{len(self.exchanges) + 1}", name, json.dumps(arguments, ensure_ascii=False))
        return ModelReply(content=thought, tool_calls=[call])

    def reply(self) -> ModelReply:
        request = parse_request(self.request_text)
        if request is None:
            return ModelReply(content=self.answers["help"])
        reads = [parts for e in self._of("read_plan") if e.observation and (parts := read_plan_parts(e.observation))]
        if not reads:
            return self._call(self.answers["thought_read"], "read_plan", {})
        done, markdown = reads[-1]
        try:
            plan = parse_plan(markdown)
        except PlanFileError as error:
            return ModelReply(content=self.answers["give_up"].format(problems=error))
        searched = self._search_result(request)
        if request.kind == "add" and searched is None:
            label = vocabulary.topic_label(request.topic or "", self.lang)
            return self._call(self.answers["thought_search"].format(topic=label), "search_courses",
                              {"topic": request.topic or ""})
        saves = self._of("save_revision")
        if saves and saves[-1].observation and (saved := saved_revision(saves[-1].observation)):
            return self._final(plan, done, request, searched, saved)
        if len(saves) >= MAX_SAVE_ATTEMPTS:
            return self._give_up(saves)
        try:
            edit = PlanEditor(plan, done, self.catalog, self.lang).apply(request, searched)
        except Refusal as refusal:
            return ModelReply(content=str(refusal))
        content = render_plan(edit.plan, self.catalog)
        if saves and saves[-1].arguments.get("content") == content:
            return self._give_up(saves)  # the same plan again would be refused again
        done_text = ", ".join(map(str, sorted(done))) or self.answers["done_none"]
        thought = self.answers["thought_save"].format(change=edit.change, done=done_text)
        if saves:
            problems = (saves[-1].observation or "").strip().replace("\n", " ")
            thought = self.answers["thought_retry"].format(problems=problems) + " " + thought
        return self._call(thought, "save_revision", {"content": content})

    def _search_result(self, request: Request) -> str | None:
        if request.kind != "add":
            return None
        searches = [e for e in self._of("search_courses") if e.arguments.get("topic") == request.topic]
        return searches[-1].observation or "" if searches else None

    def _give_up(self, saves: list[Exchange]) -> ModelReply:
        problems = (saves[-1].observation or "").strip().replace("\n", " ")
        return ModelReply(content=self.answers["give_up"].format(problems=problems))

    def _final(
        self, plan: PlanDoc, done: set[int], request: Request, searched: str | None, saved: tuple[str, str]
    ) -> ModelReply:
        # The edit is worked out again from the same facts (it is deterministic), so the answer describes the
        # saved plan without reading the plan back from the history, where it is stubbed once saved.
        try:
            edit = PlanEditor(plan, done, self.catalog, self.lang).apply(request, searched)
            revised, change = edit.plan, edit.change
        except Refusal:
            revised, change = plan, ""
        path, version = saved
        text = self.answers["final"].format(
            path=path, change=change, weeks=len(revised.weeks), start=revised.start.isoformat(),
            end=revised.end.isoformat(), hours=f"{revised.hours_per_week:g}", version=version,
        )  # fmt: skip
        return ModelReply(content=text)


__all__ = ["OfflineReviser", "PlanEditor", "Refusal", "Request", "parse_request"]

