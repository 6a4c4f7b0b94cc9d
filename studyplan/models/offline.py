"""The offline planner: a rule-based stand-in for the model, behind the same ChatModel interface.

With no endpoint configured, this takes the model's place in the real loop with the real tools and plays the
first article's trajectory: date → search the topic at the learner's level → notice that a beginner needs
prerequisites and search them (parallel calls) → get the calendar → compose and save the plan → summarize.

Like a real model it keeps no state of its own: every reply is derived from the messages (the goal is the
first user message, the facts are the tool observations), so the same conversation gives the same reply.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any, Literal

from studyplan import vocabulary
from studyplan.catalog import LEVELS, Catalog, Course, Level
from studyplan.goal import Goal, load_phrases, parse_goal
from studyplan.models.base import ModelReply, ToolCall
from studyplan.plan_doc import Phase, PlanDoc, Week, parse_plan, render_plan

MAX_SAVE_ATTEMPTS = 2
MIN_PLAN_WEEKS = 3  # three phases, each with at least one week
MAX_PHASE_WEEKS = 16
COMPRESSION_LIMIT = 1.5
SIDE_TOPIC_PENALTY = 0.3  # beyond needing 1.5× the time available, drop courses rather than compress further
# Until get_current_date has answered, the goal is read against a placeholder day: only its topic, level and
# duration are used then (and its errors raised), never a date.
_PLACEHOLDER_TODAY = date(2000, 1, 3)
_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_CALENDAR_LINE = re.compile(r"Week\s+(\d+):\s*(\d{4}-\d{2}-\d{2}).*?(\d{4}-\d{2}-\d{2})")
_RESULT_LINE = re.compile(r"^\s*-\s*(?:\[(?P<bracketed>[^\]]+)\]|(?P<plain>[\w.\-]+):)")
_SAVED = re.compile(r"^Saved plan to (?P<path>.+?)(?: \(.*\))?$", re.MULTILINE)
_BUNDLE = re.compile(r"specialization|专项", re.IGNORECASE)

Role = Literal["foundation", "core", "advanced"]
Stage = Literal["foundation", "core", "advanced", "capstone"]
SearchKey = tuple[str, str | None]  # (topic, level)


def _phrases(lang: str) -> dict[str, Any]:
    return load_phrases()["planner"][lang]


def _level_rank(level: str) -> int:
    return LEVELS.index(level) if level in LEVELS else 0


# --- reading the conversation --------------------------------------------------------------------------


@dataclass
class _Exchange:
    call_id: str
    name: str
    arguments: dict[str, Any]
    observation: str | None = None


@dataclass
class _Conversation:
    goal_text: str
    exchanges: list[_Exchange]

    @classmethod
    def read(cls, messages: list[dict[str, Any]]) -> _Conversation:
        goal = next((_text(m.get("content")) for m in messages if m.get("role") == "user"), "")
        exchanges: list[_Exchange] = []
        by_id: dict[str, _Exchange] = {}
        for message in messages:
            if message.get("role") == "assistant":
                for call in message.get("tool_calls") or []:
                    function = call.get("function", {})
                    try:
                        arguments = json.loads(function.get("arguments") or "{}")
                    except json.JSONDecodeError:
                        arguments = {}
                    exchange = _Exchange(call.get("id", ""), function.get("name", ""), arguments)
                    exchanges.append(exchange)
                    by_id[exchange.call_id] = exchange
            elif message.get("role") == "tool" and message.get("tool_call_id") in by_id:
                by_id[message["tool_call_id"]].observation = _text(message.get("content"))
        return cls(goal, exchanges)

    def of(self, name: str) -> list[_Exchange]:
        return [exchange for exchange in self.exchanges if exchange.name == name]

    def today(self) -> date | None:
        for exchange in self.of("get_current_date"):
            if exchange.observation and (found := _ISO_DAY.search(exchange.observation)):
                return date.fromisoformat(found.group(0))
        return None

    def searches(self) -> dict[SearchKey, str]:
        """Observation text of every search made so far, by (topic, level)."""
        return {
            (str(exchange.arguments.get("topic", "")), exchange.arguments.get("level")): exchange.observation or ""
            for exchange in self.of("search_courses")
        }

    def calendar(self) -> list[tuple[date, date]]:
        for exchange in self.of("plan_calendar"):
            weeks = [
                (date.fromisoformat(m.group(2)), date.fromisoformat(m.group(3)))
                for m in _CALENDAR_LINE.finditer(exchange.observation or "")
            ]
            if weeks:
                return weeks
        return []


def _text(content: Any) -> str:
    """Message content as text: a string, or the text parts of a list of content parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


def _found_courses(observation: str, catalog: Catalog) -> list[Course]:
    """The catalog courses a search observation lists, in its order."""
    courses = []
    for line in observation.splitlines():
        match = _RESULT_LINE.match(line)
        course = catalog.get((match.group("bracketed") or match.group("plain")).strip()) if match else None
        if course is not None and course not in courses:
            courses.append(course)
    return courses


# --- choosing courses ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChosenCourse:
    course: Course
    topic: str  # the topic it was chosen for
    role: Role
    planned_hours: float  # hours at the learner's pace; below total_hours when compressed


@dataclass
class Selection:
    courses: list[ChosenCourse]
    dropped: list[Course] = field(default_factory=list)
    missing_topics: list[str] = field(default_factory=list)  # prerequisites the catalog had no course for

    @property
    def compressed(self) -> list[ChosenCourse]:
        return [chosen for chosen in self.courses if chosen.planned_hours < chosen.course.total_hours - 1e-6]


def _is_bundle(course: Course) -> bool:
    return bool(_BUNDLE.search(course.name))


def _overlaps(candidate: Course, chosen: list[Course]) -> bool:
    """A specialization and one of its own courses (same provider) should not both be taken."""
    return any(
        other.provider == candidate.provider and (_is_bundle(other) or _is_bundle(candidate)) for other in chosen
    )


def _prerequisites_met(
    course: Course, covered: set[str], chosen: list[Course], catalog: Catalog, level: Level
) -> bool:
    """A course's prerequisite courses count as met when taken, when their topics are covered, or when they
    are below the learner's level (someone "with some background" has done the beginner course)."""
    for prerequisite_id in course.prerequisites:
        prerequisite = catalog.get(prerequisite_id)
        if prerequisite is None:
            return False
        if prerequisite in chosen or _level_rank(prerequisite.level) < _level_rank(level):
            continue
        if not covered.intersection(prerequisite.topics):
            return False
    return True


def focus_words(goal_text: str) -> list[str]:
    """Words naming a specific aim ("雅思" → "ielts"): courses mentioning them are preferred."""
    lowered = goal_text.lower()
    terms: dict[str, str] = load_phrases()["planner"]["focus_terms"]
    return list(dict.fromkeys(word for key, word in terms.items() if key.lower() in lowered))


def _mentions(course: Course, words: list[str]) -> bool:
    text = f"{course.name} {course.name_zh or ''} {course.description}".lower()
    return any(word in text for word in words)


def choose_courses(
    goal: Goal,
    prerequisite_topics: list[str],
    found: dict[SearchKey, list[Course]],
    budget_hours: float,
    hours_available: float,
    catalog: Catalog,
    excluded: frozenset[str] = frozenset(),
) -> Selection:
    """Pick the courses and their planned hours.

    `budget_hours` is the time for courses when the full capstone is kept; `hours_available` when only the
    shortest one is (courses that need it take it before anything is compressed).

    One course per group (the main topic, then each prerequisite and extra topic), each the one whose length
    is closest to its share of what is left of the budget; then more main-topic courses while whole courses
    fit. The main course is the one whose whole selection fits the budget best. Courses mainly about the
    group's topic, and those naming the goal's focus (IELTS, React...), are preferred. When even the picks
    need far more than the time, the least essential are dropped (extras, then prerequisites from the last)
    down to COMPRESSION_LIMIT, and the rest is compressed.
    """
    focus = focus_words(goal.raw)

    def mainly(course: Course, topic: str) -> bool:
        return bool(course.topics) and course.topics[0] == topic

    def candidates(topic: str) -> list[Course]:
        """Every course the searches for `topic` returned: the goal's focus first, then courses mainly
        about the topic, each in search order."""
        lists = [courses for (searched, _), courses in found.items() if searched == topic]
        seen = list(dict.fromkeys(c for courses in lists for c in courses if c.id not in excluded))
        return sorted(seen, key=lambda c: (not _mentions(c, focus), not mainly(c, topic)))

    def side_topic(course: Course, topic: str) -> float:
        """A course only partly about the topic (a data-science course for "machine learning") fits less."""
        return 0.0 if mainly(course, topic) else SIDE_TOPIC_PENALTY

    extra = [t for t in goal.extra_topics if t not in prerequisite_topics]
    groups: list[tuple[str, Role]] = [(topic, "foundation") for topic in prerequisite_topics]
    groups += [(topic, "core") for topic in extra]
    known = set(goal.known_topics) | set(prerequisite_topics)

    def met(course: Course, covered: set[str], taken: list[Course]) -> bool:
        return _prerequisites_met(course, covered, taken, catalog, goal.level)

    def options_for(topic: str, taken: list[Course], covered: set[str]) -> list[Course]:
        options = [c for c in candidates(topic) if c not in taken and not _overlaps(c, taken)]
        if topic == goal.topic:
            options = [c for c in options if _level_rank(c.level) >= _level_rank(goal.level)] or options
        options = [c for c in options if met(c, covered, taken)] or options
        return [c for c in options if _mentions(c, focus)] or options

    def around(main: Course) -> tuple[list[tuple[Course, str, Role]], list[str]]:
        """The rest of a selection built around one main course."""
        picks: list[tuple[Course, str, Role]] = [(main, goal.topic, "core")]
        covered = known | set(main.topics)
        missing: list[str] = []
        remaining = budget_hours - main.total_hours
        for index, (topic, role) in enumerate(groups):
            taken = [course for course, _, _ in picks]
            if role == "foundation" and any(topic in course.topics for course in taken):
                continue  # an earlier pick already teaches it
            options = options_for(topic, taken, covered)
            if not options:
                missing += [topic] if role == "foundation" else []
                continue
            share = max(remaining, 0) / (len(groups) - index)
            best = min(options, key=lambda c: abs(c.total_hours - share) / max(share, 1) + side_topic(c, topic))
            picks.append((best, topic, role))
            covered.update(best.topics)
            remaining -= best.total_hours
        # More of the main topic while whole courses fit (into the time left with the shortest capstone),
        # larger first so that the time is used well; the schedule puts them in order of level anyway.
        remaining += hours_available - budget_hours
        for course in sorted(candidates(goal.topic), key=lambda c: -c.total_hours):
            taken = [c for c, _, _ in picks]
            if course in taken or _overlaps(course, taken) or course.total_hours > remaining:
                continue
            if _level_rank(course.level) < _level_rank(goal.level) or side_topic(course, goal.topic):
                continue
            if not met(course, covered, taken):
                continue
            role: Role = "advanced" if _level_rank(course.level) > _level_rank(goal.level) else "core"
            picks.append((course, goal.topic, role))
            covered.update(course.topics)
            remaining -= course.total_hours
        return picks, missing

    def misfit(picks: list[tuple[Course, str, Role]]) -> float:
        """How badly a selection fits the budget; needing more than there is counts double."""
        use = sum(course.total_hours for course, _, _ in picks) / budget_hours if budget_hours > 0 else 1.0
        return (use - 1) * 2 if use > 1 else 1 - use

    main_options = options_for(goal.topic, [], known)
    main_options = [c for c in main_options if c.level == goal.level] or main_options
    if not main_options:
        return Selection([])
    # The main course is the one around which the whole selection fits the time best, as long as it keeps at
    # least half of its share (a 3-hour taster must not be the core of a three-month plan).
    main_share = budget_hours * (2 / (2 + len(groups)) if groups else 0.5)

    def main_key(course: Course) -> tuple[float, float]:
        too_small = max(0.0, 0.5 - course.total_hours / main_share) if main_share > 0 else 0.0
        score = misfit(around(course)[0]) + too_small + side_topic(course, goal.topic)
        return (round(score, 3), abs(course.total_hours - main_share))

    main = min(main_options, key=main_key)
    picks, missing = around(main)

    # Too much for the time: drop the least essential picks while far over it, keeping the main course.
    dropped: list[Course] = []
    for pick in list(reversed(picks[1:])):
        if sum(course.total_hours for course, _, _ in picks) <= hours_available * COMPRESSION_LIMIT:
            break
        picks.remove(pick)
        dropped.append(pick[0])

    need = sum(course.total_hours for course, _, _ in picks)
    scale = min(1.0, hours_available / need) if need > 0 else 1.0
    ordered = _in_prerequisite_order(picks)
    chosen = [ChosenCourse(course, topic, role, course.total_hours * scale) for course, topic, role in ordered]
    return Selection(chosen, dropped, missing)


def _in_prerequisite_order(picks: list[tuple[Course, str, Role]]) -> list[tuple[Course, str, Role]]:
    """Foundations, core, then further courses; by level and shorter first within each (short intros lead
    into longer courses); and never a course before one of its prerequisites."""
    stage_rank = {"foundation": 0, "core": 1, "advanced": 2}
    ordered = sorted(
        picks,
        key=lambda p: (stage_rank[p[2]], _level_rank(p[0].level), p[0].total_hours if p[2] != "foundation" else 0),
    )
    result: list[tuple[Course, str, Role]] = []

    def place(pick: tuple[Course, str, Role]) -> None:
        if pick in result:
            return
        for other in ordered:
            if other[0].id in pick[0].prerequisites:
                place(other)
        result.append(pick)

    for pick in ordered:
        place(pick)
    return result


# --- scheduling ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Slot:
    """One course's share of one week."""

    chosen: ChosenCourse
    hours: float
    first_unit: int  # course weeks covered, 1-based
    last_unit: int
    finishes: bool


def capstone_weeks(weeks: int) -> int:
    """Weeks kept for the capstone project and review when there is room."""
    return 2 if weeks >= 10 else 1 if weeks >= 4 else 0


def schedule(courses: list[ChosenCourse], weeks: int, hours_per_week: float) -> list[list[Slot]]:
    """Lay the courses end to end at the learner's pace; week n holds hours [(n-1)·H, n·H) of the sequence.

    Slivers are avoided: a course starts on a fresh week rather than in the last hour of one (when the plan
    has slack for it), and a last piece under an hour or so joins the week before.
    """
    epsilon = 1e-6
    hours = hours_per_week
    min_piece = min(hours, max(1.0, 0.2 * hours))
    slack = weeks * hours - sum(chosen.planned_hours for chosen in courses)
    slots: list[list[Slot]] = [[] for _ in range(weeks)]
    offset = 0.0
    for chosen in courses:
        used = offset % hours
        room = hours - used
        if used > epsilon and room < min_piece and room <= slack + epsilon:
            slack -= room
            offset += room
        start, end = offset, offset + chosen.planned_hours
        offset = end
        course = chosen.course
        # Course units per planned hour: compressed courses cover their units faster.
        units_per_hour = course.weeks / chosen.planned_hours if chosen.planned_hours > 0 else 0
        pieces: list[tuple[int, Slot]] = []
        for index in range(int(start // hours), weeks):
            low, high = max(start, index * hours), min(end, (index + 1) * hours)
            if high - low <= epsilon:
                if index * hours >= end:
                    break
                continue
            first_unit = min(course.weeks, int((low - start) * units_per_hour + epsilon) + 1)
            last_unit = min(course.weeks, max(first_unit, math.ceil((high - start) * units_per_hour - epsilon)))
            finishes = end <= (index + 1) * hours + epsilon
            pieces.append((index, Slot(chosen, high - low, first_unit, last_unit, finishes)))
        if len(pieces) > 1 and pieces[-1][1].hours < min_piece:
            (index, previous), (_, tail) = pieces[-2], pieces.pop()
            merged = Slot(chosen, previous.hours + tail.hours, previous.first_unit, tail.last_unit, tail.finishes)
            pieces[-1] = (index, merged)
        for index, slot in pieces:
            slots[index].append(slot)
    return slots


# --- composing the plan ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _PhaseDraft:
    stage: Stage
    weeks: list[int]  # 0-based week indexes


def _stage_of(week_slots: list[Slot]) -> Stage:
    if not week_slots:
        return "capstone"
    return max(week_slots, key=lambda slot: slot.hours).chosen.role


def _cut(weeks: list[int], slots: list[list[Slot]]) -> int:
    """Where to halve a phase: at a course's end near the middle, else in the middle."""
    length = len(weeks)
    ends = [k + 1 for k, index in enumerate(weeks[:-1]) if any(slot.finishes for slot in slots[index])]
    near_middle = [k for k in ends if length / 4 <= k <= 3 * length / 4]
    return min(near_middle, key=lambda k: (abs(k - length / 2), k)) if near_middle else (length + 1) // 2


def _phase_drafts(slots: list[list[Slot]]) -> list[_PhaseDraft]:
    """Consecutive weeks of one stage form a phase; the longest is halved while there are fewer than three
    phases or one is longer than MAX_PHASE_WEEKS."""
    segments: list[tuple[Stage, list[int]]] = []
    for index, week_slots in enumerate(slots):
        stage = _stage_of(week_slots)
        if segments and segments[-1][0] == stage:
            segments[-1][1].append(index)
        else:
            segments.append((stage, [index]))
    while len(segments) < 3 or any(len(weeks) > MAX_PHASE_WEEKS for _, weeks in segments):
        longest = max(range(len(segments)), key=lambda i: len(segments[i][1]))
        stage, weeks = segments[longest]
        if len(weeks) < 2:
            break
        cut = _cut(weeks, slots)
        segments[longest : longest + 1] = [(stage, weeks[:cut]), (stage, weeks[cut:])]
    return [_PhaseDraft(stage, weeks) for stage, weeks in segments]


class PlanComposer:
    """Turns a goal, the chosen courses and the calendar into a PlanDoc in the goal's language."""

    def __init__(self, goal: Goal, weeks: int, catalog: Catalog) -> None:
        self.goal = goal
        self.weeks = weeks
        self.catalog = catalog
        self.words = _phrases(goal.lang)
        self.lang = goal.lang

    # wording helpers

    def _topic_words(self, topic: str) -> dict[str, Any]:
        topics = self.words["topics"]
        return topics.get(topic, topics["generic"])

    def _course_name(self, course: Course) -> str:
        return self.words["course_ref"].format(name=course.name)

    def _join(self, items: list[str]) -> str:
        return self.words["list_separator"].join(items)

    def _project(self) -> str:
        label = vocabulary.topic_label(self.goal.topic, self.lang)
        return self._topic_words(self.goal.topic)["project"].format(topic=label)

    def _part(self, slot: Slot) -> str:
        key = "course_week" if slot.first_unit == slot.last_unit else "course_weeks"
        return self.words[key].format(name=slot.chosen.course.name, first=slot.first_unit, last=slot.last_unit)

    # weeks

    def _course_week(self, number: int, dates: tuple[date, date], week_slots: list[Slot]) -> Week:
        words = self.words
        main = max(week_slots, key=lambda slot: slot.hours)
        topic_words = self._topic_words(main.chosen.topic)
        tasks = [words["task_study"].format(part=self._part(s), hours=round(s.hours, 1)) for s in week_slots[:2]]
        tasks.append(topic_words["practice"][(number - 1) % len(topic_words["practice"])])
        finished = [slot for slot in week_slots if slot.finishes]
        if finished and len(tasks) < 4:
            tasks.append(words["task_finish"].format(course=self._course_name(finished[-1].chosen.course)))
        compressed = main.chosen.planned_hours < main.chosen.course.total_hours - 1e-6
        if compressed and len(tasks) < 4:
            tasks.append(words["task_compressed"])
        if finished:
            done = finished[-1]
            deliverable = words["deliverable_finish"].format(
                course=self._course_name(done.chosen.course),
                deliverable=self._topic_words(done.chosen.topic)["finish"],
            )
        else:
            deliverable = topic_words["deliverables"][(number - 1) % len(topic_words["deliverables"])]
        return Week(
            number=number,
            start=dates[0],
            end=dates[1],
            courses=list(dict.fromkeys(slot.chosen.course.id for slot in week_slots)),
            content=words["content_separator"].join(self._part(slot) for slot in week_slots),
            tasks=tasks,
            deliverable=deliverable,
        )

    def _capstone_week(self, number: int, dates: tuple[date, date], position: int, count: int) -> Week:
        words = self.words
        templates, deliverables = words["capstone_tasks"], words["capstone_deliverables"]
        if count == 1:
            tasks = [templates[0][0], templates[1][0], templates[2][0]]
            deliverable = deliverables[-1]
        else:
            # first week starts the project, last week finishes it, the weeks between build it
            which = 0 if position == 0 else 2 if position == count - 1 else 1
            tasks, deliverable = list(templates[which]), deliverables[which]
        project = self._project()
        return Week(
            number=number,
            start=dates[0],
            end=dates[1],
            courses=[],
            content=words["capstone_content"].format(project=project),
            tasks=[task.format(project=project) for task in tasks],
            deliverable=deliverable,
        )

    # phases

    @staticmethod
    def _stage_topics(draft: _PhaseDraft, slots: list[list[Slot]], drafts: list[_PhaseDraft]) -> list[str]:
        """The topics of the phase's own courses, and of courses whose stage has no phase of its own."""
        with_phase = {d.stage for d in drafts}
        pieces = [slot for i in draft.weeks for slot in slots[i]]
        own = [s.chosen.topic for s in pieces if s.chosen.role == draft.stage or s.chosen.role not in with_phase]
        return list(dict.fromkeys(own or [slot.chosen.topic for slot in pieces]))

    def _phase_title(self, draft: _PhaseDraft, slots: list[list[Slot]], drafts: list[_PhaseDraft]) -> str:
        words = self.words
        if draft.stage == "capstone":
            return words["phase_capstone"]
        topics = self._stage_topics(draft, slots, drafts)
        labels = self._join([vocabulary.topic_label(topic, self.lang) for topic in topics])
        return words[f"phase_{draft.stage}"].format(topics=labels)

    def _self_check(
        self, draft: _PhaseDraft, slots: list[list[Slot]], drafts: list[_PhaseDraft], part: int
    ) -> list[str]:
        """Checks for the phase's topics; the parts of a split phase start at different checks."""
        if draft.stage == "capstone":
            return list(self.words["capstone_self_check"])
        topics = self._stage_topics(draft, slots, drafts)
        per_topic = 3 if len(topics) == 1 else 2
        items: list[str] = []
        for topic in topics[:3]:
            checks = self._topic_words(topic)["self_check"]
            items += [checks[(part + k) % len(checks)] for k in range(min(per_topic, len(checks)))]
        items.append(self.words["generic_self_check"])
        return list(dict.fromkeys(items))

    def _phases(self, slots: list[list[Slot]], calendar: list[tuple[date, date]]) -> list[Phase]:
        drafts = _phase_drafts(slots)
        capstone = [i for i, week_slots in enumerate(slots) if not week_slots]
        titles = [self._phase_title(draft, slots, drafts) for draft in drafts]
        phases = []
        for number, (draft, title) in enumerate(zip(drafts, titles, strict=True), start=1):
            weeks = [
                self._course_week(i + 1, calendar[i], slots[i])
                if slots[i]
                else self._capstone_week(i + 1, calendar[i], capstone.index(i), len(capstone))
                for i in draft.weeks
            ]
            part = titles[:number].count(title)  # 1, 2, ... among phases with the same title
            if titles.count(title) > 1:
                names = self.words["part_names"]
                title = self.words["phase_part"].format(
                    title=title, part=names[part - 1] if part <= len(names) else str(part)
                )
            phases.append(Phase(number, title, weeks, self._self_check(draft, slots, drafts, part - 1)))
        return phases

    # the document

    def compose(self, selection: Selection, calendar: list[tuple[date, date]]) -> tuple[PlanDoc, list[list[Slot]]]:
        goal, words = self.goal, self.words
        weeks = self.weeks
        if len(calendar) != weeks:  # the calendar tool failed: the dates follow from the start
            starts = [goal.start + timedelta(days=7 * i) for i in range(weeks)]
            calendar = [(first, first + timedelta(days=6)) for first in starts]
        slots = schedule(selection.courses, weeks, goal.hours_per_week)
        phases = self._phases(slots, calendar)
        capstone_count = sum(1 for week_slots in slots if not week_slots)
        label = vocabulary.topic_label(goal.topic, self.lang)
        level = words["level_labels"][goal.level]
        plan = PlanDoc(
            title=words["title"].format(topic=label, level=level, weeks=weeks),
            goal=goal.raw,
            lang=goal.lang,
            start=calendar[0][0],
            end=calendar[-1][1],
            hours_per_week=goal.hours_per_week,
            phases=phases,
            resources=[chosen.course.id for chosen in selection.courses],
            time_note=self.time_note(selection, capstone_count),
            assumptions=self.assumptions(selection),
        )
        return plan, slots

    def time_note(self, selection: Selection, capstone_count: int) -> str | None:
        need = sum(chosen.course.total_hours for chosen in selection.courses)
        have = self.weeks * self.goal.hours_per_week
        if not (selection.compressed or selection.dropped or need > have):
            return None
        words = self.words
        capstone = words["time_note_capstone"].format(count=capstone_count) if capstone_count else ""
        parts = [
            words["time_note_need"].format(
                need=round(need, 1), weeks=self.weeks, hours=self.goal.hours_per_week, have=round(have, 1),
                capstone=capstone,
            )
        ]
        if selection.compressed:
            courses = [
                words["time_note_compressed_course"].format(
                    course=self._course_name(c.course), planned=round(c.planned_hours, 1), total=c.course.total_hours
                )
                for c in selection.compressed
            ]
            parts.append(words["time_note_compressed"].format(courses=self._join(courses)))
        if selection.dropped:
            dropped = self._join([f"[{c.id}] {c.name}" for c in selection.dropped])
            parts.append(words["time_note_dropped"].format(courses=dropped))
        return " ".join(parts) if self.lang == "en" else "".join(parts)

    def assumptions(self, selection: Selection) -> list[str]:
        words, goal = self.words, self.goal
        items = list(goal.assumptions)
        if goal.weeks < self.weeks:
            items.append(words["assumption_min_weeks"].format(weeks=goal.weeks))
        if goal.known_topics:
            known = self._join([vocabulary.topic_label(t, self.lang) for t in goal.known_topics])
            items.append(words["assumption_known"].format(topics=known))
        for topic in selection.missing_topics:
            label = vocabulary.topic_label(topic, self.lang)
            items.append(words["assumption_no_prerequisite_course"].format(topic=label))
        return items


# --- the model -----------------------------------------------------------------------------------------


class OfflinePlanner:
    """A ChatModel that plans with rules instead of a network call."""

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
        """The next step of the trajectory. Raises UsageError when the goal itself cannot be planned."""
        conversation = _Conversation.read(messages)
        today = conversation.today()
        goal = parse_goal(conversation.goal_text, today or _PLACEHOLDER_TODAY)
        turn = _Turn(goal, self.catalog, conversation)
        if today is None:
            return turn.ask_date()
        return turn.next_step(today)


class _Turn:
    """One reply: works out where the conversation stands and what to do next."""

    def __init__(self, goal: Goal, catalog: Catalog, conversation: _Conversation) -> None:
        self.goal = goal
        self.catalog = catalog
        self.conversation = conversation
        self.words = _phrases(goal.lang)
        self.weeks = max(goal.weeks, MIN_PLAN_WEEKS)

    # replies

    def _reply(self, thought: str, calls: list[tuple[str, dict[str, Any]]]) -> ModelReply:
        numbered = len(self.conversation.exchanges)
        tool_calls = [
            ToolCall(f"call_{numbered + i}", name, json.dumps(arguments, ensure_ascii=False))
            for i, (name, arguments) in enumerate(calls, start=1)
        ]
        return ModelReply(content=thought, tool_calls=tool_calls)

    def _label(self, topic: str) -> str:
        return vocabulary.topic_label(topic, self.goal.lang)

    def _join(self, items: list[str]) -> str:
        return self.words["list_separator"].join(items)

    def _level_label(self, level: str) -> str:
        return self.words["level_labels"][level]

    @staticmethod
    def _search(topic: str, level: str | None) -> tuple[str, dict[str, Any]]:
        return ("search_courses", {"topic": topic, "level": level} if level else {"topic": topic})

    def ask_date(self) -> ModelReply:
        goal = self.goal
        thought = self.words["thought_date"].format(
            topic=self._label(goal.topic),
            level=self.words["level_names"][goal.level],
            weeks=self.weeks,
            hours=goal.hours_per_week,
        )
        return self._reply(thought, [("get_current_date", {})])

    def next_step(self, today: date) -> ModelReply:
        goal = self.goal
        searches = self.conversation.searches()
        main_key: SearchKey = (goal.topic, goal.level)
        if main_key not in searches:
            return self._search_main(today)
        follow_ups = [key for key in self._follow_ups(searches[main_key]) if key not in searches]
        if follow_ups:
            return self._search_more(searches[main_key], follow_ups)
        if not self.conversation.of("plan_calendar"):
            thought = self.words["thought_calendar"].format(start=goal.start.isoformat(), weeks=self.weeks)
            arguments = {"start_date": goal.start.isoformat(), "weeks": self.weeks}
            return self._reply(thought, [("plan_calendar", arguments)])
        saves = self.conversation.of("save_plan")
        if saves and saves[-1].observation and (saved := _SAVED.search(saves[-1].observation)):
            return self._final(saved.group("path").strip())
        return self._save(saves)

    def _search_main(self, today: date) -> ModelReply:
        goal = self.goal
        end = goal.start + timedelta(days=7 * self.weeks - 1)
        thought = self.words["thought_search_main"].format(
            today=today.isoformat(),
            start=goal.start.isoformat(),
            weeks=self.weeks,
            end=end.isoformat(),
            level_label=self._level_label(goal.level),
            topic=self._label(goal.topic),
        )
        return self._reply(thought, [self._search(goal.topic, goal.level)])

    def _prerequisite_topics(self) -> list[str]:
        goal = self.goal
        if goal.level != "beginner":
            return []
        return [t for t in vocabulary.topic_prerequisites(goal.topic) if t not in goal.known_topics and t != goal.topic]

    def _budget_hours(self) -> float:
        return (self.weeks - capstone_weeks(self.weeks)) * self.goal.hours_per_week

    def _follow_ups(self, main_observation: str) -> list[SearchKey]:
        """What to search after the main topic: prerequisites, other topics named, more of the main topic."""
        goal = self.goal
        found = _found_courses(main_observation, self.catalog)
        keys: list[SearchKey] = []
        if not found:
            keys.append((goal.topic, None))
        keys += [(topic, "beginner") for topic in self._prerequisite_topics()]
        keys += [(topic, goal.level) for topic in goal.extra_topics if (topic, "beginner") not in keys]
        # Too little at the learner's level for the time: look at the higher levels too.
        fitting = sum(c.total_hours for c in found if c.total_hours <= self._budget_hours())
        if found and fitting < self._budget_hours():
            keys += [(goal.topic, level) for level in LEVELS[_level_rank(goal.level) + 1 :]]
        return list(dict.fromkeys(keys))

    def _search_more(self, main_observation: str, keys: list[SearchKey]) -> ModelReply:
        goal, words = self.goal, self.words
        found = _found_courses(main_observation, self.catalog)
        topic, level_label = self._label(goal.topic), self._level_label(goal.level)
        parts = []
        if found:
            names = self._join([c.name for c in found[:3]])
            parts.append(
                words["thought_found"].format(count=len(found), level_label=level_label, topic=topic, names=names)
            )
        else:
            parts.append(words["thought_none_at_level"].format(level_label=level_label, topic=topic))
        prerequisites = [t for t, _ in keys if t in self._prerequisite_topics()]
        if prerequisites:
            parts.append(words["thought_prerequisites"].format(
                topic=topic, prerequisites=self._join([self._label(t) for t in prerequisites])))
        if goal.known_topics:
            parts.append(words["thought_known"].format(known=self._join([self._label(t) for t in goal.known_topics])))
        extra = [t for t, _ in keys if t in goal.extra_topics and t not in prerequisites]
        if extra:
            parts.append(words["thought_extra"].format(extra=self._join([self._label(t) for t in extra])))
        higher = [self._level_label(level) for t, level in keys if t == goal.topic and level and level != goal.level]
        if higher:
            parts.append(words["thought_next_level"].format(level_label=self._join(higher), topic=topic))
        separator = " " if goal.lang == "en" else ""
        return self._reply(separator.join(parts), [self._search(t, level) for t, level in keys])

    # composing and saving

    def _found(self) -> dict[SearchKey, list[Course]]:
        return {key: _found_courses(text, self.catalog) for key, text in self.conversation.searches().items()}

    def _excluded(self, saves: list[_Exchange]) -> frozenset[str]:
        """Courses a rejected save complained about: the next attempt leaves them out."""
        excluded: set[str] = set()
        for exchange in saves:
            for course_id in re.findall(r"\[([^\]]+)\]", exchange.observation or ""):
                excluded.add(course_id.strip())
        return frozenset(excluded)

    def _save(self, saves: list[_Exchange]) -> ModelReply:
        goal, words = self.goal, self.words
        if len(saves) >= MAX_SAVE_ATTEMPTS:
            return self._give_up(saves)
        selection = self._selection(self._excluded(saves))
        if not selection.courses:
            return self._give_up(saves)
        if saves and _ids(selection) == _ids(self._selection(self._excluded(saves[:-1]))):
            return self._give_up(saves)  # the rejection named nothing this planner can leave out
        composer = PlanComposer(goal, self.weeks, self.catalog)
        plan, slots = composer.compose(selection, self.conversation.calendar())
        content = render_plan(plan, self.catalog)
        filename = f"{goal.topic.replace('_', '-')}-{self.weeks}w.md"
        capstone = sum(1 for week_slots in slots if not week_slots)
        ending = (words["thought_ending_capstone"].format(count=capstone) if capstone
                  else words["thought_ending_none"])
        time_status = words["thought_time_short"] if plan.time_note else words["thought_time_ok"]
        courses = self._join([self._course_span(chosen, slots) for chosen in selection.courses])
        thought = words["thought_save"].format(
            hours=goal.hours_per_week, courses=courses, phases=len(plan.phases), ending=ending, time_status=time_status
        )
        if saves:
            problems = (saves[-1].observation or "").strip().replace("\n", " ")
            dropped = self._join(sorted(self._excluded(saves))) or "-"
            thought = words["thought_retry"].format(problems=problems, dropped=dropped) + " " + thought
        return self._reply(thought, [("save_plan", {"content": content, "filename": filename})])

    def _selection(self, excluded: frozenset[str]) -> Selection:
        weeks, hours = self.weeks, self.goal.hours_per_week
        hours_available = (weeks - min(capstone_weeks(weeks), 1)) * hours
        return choose_courses(
            self.goal, self._prerequisite_topics(), self._found(), self._budget_hours(), hours_available,
            self.catalog, excluded,
        )

    def _course_span(self, chosen: ChosenCourse, slots: list[list[Slot]]) -> str:
        numbers = [i + 1 for i, week_slots in enumerate(slots) if any(s.chosen == chosen for s in week_slots)]
        span = f"{numbers[0]}–{numbers[-1]}" if numbers and numbers[0] != numbers[-1] else str(numbers[0])
        if self.goal.lang == "zh":
            return f"{chosen.course.name}（第 {span} 周）"
        return f"{chosen.course.name} (weeks {span})"

    def _give_up(self, saves: list[_Exchange]) -> ModelReply:
        problems = (saves[-1].observation or "").strip().replace("\n", " ") if saves else ""
        return ModelReply(content=self.words["give_up"].format(problems=problems))

    def _final(self, path: str) -> ModelReply:
        goal, words = self.goal, self.words
        content = str(self.conversation.of("save_plan")[-1].arguments.get("content", ""))
        plan = parse_plan(content)
        phases = "\n".join(
            words["final_phase" if phase.weeks[0] != phase.weeks[-1] else "final_phase_single"].format(
                number=phase.number, title=phase.title, first=phase.weeks[0].number, last=phase.weeks[-1].number
            )
            for phase in plan.phases
            if phase.weeks
        )
        courses = self._join([f"[{ref}]" if self.catalog.get(ref) is None else self.catalog.get(ref).name
                              for ref in plan.resources])
        time_note = words["final_time_note"].format(note=plan.time_note) if plan.time_note else ""
        separator = " " if goal.lang == "en" else ""
        assumptions = (
            words["final_assumptions"].format(items=separator.join(plan.assumptions)) if plan.assumptions else ""
        )
        text = words["final"].format(
            weeks=len(plan.weeks),
            topic=self._label(goal.topic),
            start=plan.start.isoformat(),
            end=plan.end.isoformat(),
            hours=plan.hours_per_week,
            path=path,
            phases=phases,
            courses=courses,
            time_note=time_note,
            assumptions=assumptions,
        )
        return ModelReply(content=text)


def _ids(selection: Selection) -> list[str]:
    return [chosen.course.id for chosen in selection.courses]
