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
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from fractions import Fraction
from typing import Any, Literal

from studyplan.core.model import ModelReply, ToolCall
from studyplan.core.transcript import Exchange, Transcript
from studyplan.domain import vocabulary
from studyplan.domain.catalog import LEVELS, Catalog, Course, Level
from studyplan.domain.document import Phase, PlanDoc, Week, render_plan
from studyplan.engine.goal import Goal, load_phrases, parse_goal

MAX_SAVE_ATTEMPTS = 2
MIN_PLAN_WEEKS = 3  # three phases, each with at least one week
MAX_PHASE_WEEKS = 16
COMPRESSION_LIMIT = 1.5  # beyond needing 1.5× the time available, drop courses rather than compress further
SIDE_TOPIC_PENALTY = 0.3
MAX_UNUSED_SHARE = 0.1  # split course weeks more finely when whole ones would leave over a tenth of a week unused
TIGHT_UNUSED_SHARE = 0.01
SLIVER_SHARE = 0.2
PACE_STEP = 0.25  # hours: the gentler pace of plans the catalog cannot fill is a multiple of this
REFIT_STEP = 0.01
PACKING_SHARE = 0.1  # of a week, kept free per course when filling the time: pieces rarely fill weeks exactly
MAX_PIECES = 4  # course weeks are split into halves, thirds or quarters at most: fractions a reader follows
MAX_ODD_PIECES = 6
MAX_FURTHER_TOPICS = 2
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


class _Conversation(Transcript):
    """The transcript, with what the planner looks up in it."""

    @property
    def goal_text(self) -> str:
        return self.first_user_text

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
    filler: bool = False  # added only to fill the time left, so the first to go when the weeks are full


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
    further_topics: tuple[str, ...] = (),
    fillable_later: bool = False,
    packing_hours: float = 0.0,
) -> Selection:
    """Pick the courses and their planned hours.

    `budget_hours` is the time for courses when the full capstone is kept; `hours_available` when only the
    shortest one is (courses that need it take it before anything is compressed).

    One course per group (the main topic, then each prerequisite and extra topic), each the one whose length
    is closest to its share of what is left of the budget; then more main-topic courses while whole courses
    fit. The main course is the one whose whole selection fits the budget best. Courses mainly about the
    group's topic, and those naming the goal's focus (IELTS, React...), are preferred; for a prerequisite or
    extra topic, so are courses in a language the learner knows (a Python back end for a Python programmer).
    Time still left goes to `further_topics`, the topics that build on the main one; when such topics exist
    (`fillable_later`), leaving time over is preferred to compressing courses. Each course added to fill the
    time keeps `packing_hours` free, as whole pieces rarely fill every week to the hour. When even the picks
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
        else:
            options = [c for c in options if set(c.topics) & set(goal.known_topics)] or options
        options = [c for c in options if met(c, covered, taken)] or options
        return [c for c in options if _mentions(c, focus)] or options

    fillers: set[str] = set()

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
        # More of the main topic while whole courses fit (into the time left with the shortest capstone), then
        # the topics that build on it: the goal's focus first, then level by level, larger courses first so
        # that the time is used well (the schedule puts them in order of level anyway).
        remaining += hours_available - budget_hours - packing_hours * len(picks)
        for topic in [goal.topic, *further_topics]:
            added = True
            while added:  # again, as a course taken may be the prerequisite of one passed over
                added = False
                ordered = sorted(
                    candidates(topic), key=lambda c: (not _mentions(c, focus), _level_rank(c.level), -c.total_hours)
                )
                for course in ordered:
                    taken = [c for c, _, _ in picks]
                    if course in taken or _overlaps(course, taken) or course.total_hours + packing_hours > remaining:
                        continue
                    if _level_rank(course.level) < _level_rank(goal.level) or side_topic(course, topic):
                        continue
                    if not met(course, covered, taken):
                        continue
                    further = topic != goal.topic or _level_rank(course.level) > _level_rank(goal.level)
                    picks.append((course, topic, "advanced" if further else "core"))
                    fillers.add(course.id)
                    covered.update(course.topics)
                    remaining -= course.total_hours + packing_hours
                    added = True
        return picks, missing

    def misfit(picks: list[tuple[Course, str, Role]]) -> float:
        """How badly a selection fits the budget. Needing more than there is counts double, or four times when
        time left over can go to further topics: compressing courses costs the learner depth."""
        use = sum(course.total_hours for course, _, _ in picks) / budget_hours if budget_hours > 0 else 1.0
        return (use - 1) * (4 if fillable_later else 2) if use > 1 else 1 - use

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
    fillers.clear()
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
    ordered = _in_prerequisite_order(picks, goal.topic)
    chosen = [
        ChosenCourse(course, topic, role, course.total_hours * scale, course.id in fillers)
        for course, topic, role in ordered
    ]
    return Selection(chosen, dropped, missing)


def _in_prerequisite_order(
    picks: list[tuple[Course, str, Role]], main_topic: str
) -> list[tuple[Course, str, Role]]:
    """Foundations, core, then further courses, the main topic's before other topics' within each stage (the
    front end before the back end, more machine learning before deep learning); by level and shorter first
    (short intros lead into longer courses); and never a course before one of its prerequisites."""
    stage_rank = {"foundation": 0, "core": 1, "advanced": 2}
    ordered = sorted(
        picks,
        key=lambda p: (
            stage_rank[p[2]],
            p[2] != "foundation" and p[1] != main_topic,
            _level_rank(p[0].level),
            p[0].total_hours if p[2] != "foundation" else 0,
        ),
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
                padding: list[list[Any]] = [[] for _ in range(weeks - shortest_course_weeks)]
                return Timetable(scaled, hours_per_week, slots + padding)
        return None

    if (fitted := attempt(1.0)) is not None:
        return fitted
    # Whole pieces leave a little of some weeks unused: compress as little as that needs.
    factor = 1.0
    while (fitted := attempt(factor)) is None:
        factor -= REFIT_STEP
    return fitted


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


def _weeks_into_main_course(slots: list[list[Slot]], index: int) -> int:
    """How many earlier weeks hold the course that takes most of week `index`."""
    main = max(slots[index], key=lambda slot: slot.hours).chosen.course
    return sum(1 for week_slots in slots[:index] if any(slot.chosen.course == main for slot in week_slots))


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
        """The project of the main topic, or of the last topic the goal adds to it ("web development" ends
        with a back end, so its project is a web app rather than a static site)."""
        goal = self.goal
        added = [t for t in goal.extra_topics if t not in vocabulary.topic_prerequisites(goal.topic)]
        topic = added[-1] if added else goal.topic
        return self._topic_words(topic)["project"].format(topic=vocabulary.topic_label(topic, self.lang))

    def _capstone_words(self) -> dict[str, Any]:
        """Language goals end with a mock test rather than a software project."""
        if self.goal.topic in load_phrases()["planner"]["language_topics"]:
            return self.words["capstone_language"]
        return self.words["capstone_project"]

    def _share(self, share: Fraction, which: Literal["first", "last"]) -> str:
        words = self.words
        if share == Fraction(1, 2):
            return words[f"half_{which}"]
        return words[f"share_{which}"].format(share=f"{share.numerator}/{share.denominator}")

    def _week_label(self, week: int, share: str | None = None) -> str:
        if share is None:
            return self.words["week_label"].format(week=week)
        return self.words["week_label_share"].format(week=week, share=share)

    def _range(self, start: Fraction, end: Fraction) -> str:
        """Where a stretch of a course starts and stops, in its own weeks, so that a learner knows exactly
        what to do: "weeks 1–3", "week 4 (second half) – week 7", "week 2 (first 3/4)"."""
        words = self.words
        first, last = math.floor(start) + 1, math.ceil(end)  # the course weeks it starts and ends in
        done_before = start - (first - 1)  # of the first of them
        done_after = end - (last - 1)  # of the last of them
        if first == last:
            if done_before == 0 and done_after == 1:
                return self._week_label(first)
            if done_before == 0:
                return self._week_label(first, self._share(done_after, "first"))
            if done_after == 1:
                return self._week_label(first, self._share(1 - done_before, "last"))
            middle = words["share_middle"].format(
                start=f"{done_before.numerator}/{done_before.denominator}",
                end=f"{done_after.numerator}/{done_after.denominator}",
            )
            return self._week_label(first, middle)
        if done_before == 0 and done_after == 1:
            return words["range_whole"].format(first=first, last=last)
        start_label = self._week_label(first, self._share(1 - done_before, "last") if done_before else None)
        end_label = self._week_label(last, self._share(done_after, "first") if done_after != 1 else None)
        return words["range_mixed"].format(start=start_label, end=end_label)

    def _part(self, slot: Slot) -> str:
        return self.words["course_range"].format(
            name=slot.chosen.course.name, range=self._range(slot.start, slot.end)
        )

    def _study_task(self, week_slots: list[Slot]) -> str:
        words = self.words
        compressed = any(slot.chosen.planned_hours < slot.chosen.course.total_hours - 1e-6 for slot in week_slots)
        return words["task_study_compressed" if compressed else "task_study"].format(
            part=words["content_separator"].join(self._part(slot) for slot in week_slots),
            hours=round(sum(slot.hours for slot in week_slots), 1),
        )

    # weeks

    def _course_week(self, number: int, dates: tuple[date, date], week_slots: list[Slot], into_course: int) -> Week:
        """A week of courses; `into_course` counts the earlier weeks of its main course, so that practice and
        deliverables follow the course from its first week (set-up and basics) on."""
        words = self.words
        main = max(week_slots, key=lambda slot: slot.hours)
        topic_words = self._topic_words(main.chosen.topic)
        # one study task per course, the courses after the first together when there are three or more
        groups = [week_slots[:1], week_slots[1:]] if len(week_slots) > 1 else [week_slots]
        tasks = [self._study_task(group) for group in groups]
        tasks.append(topic_words["practice"][into_course % len(topic_words["practice"])])
        finished = [slot.chosen.course for slot in week_slots if slot.finishes]
        if finished:
            names = self._join([self._course_name(course) for course in finished])
            tasks.append(words["task_finish"].format(course=names))
        spare = self.goal.hours_per_week - sum(slot.hours for slot in week_slots)
        if len(tasks) < 4 and spare >= max(1.0, SLIVER_SHARE * self.goal.hours_per_week):
            tasks.append(words["task_spare"].format(hours=round(spare, 1)))
        if finished:
            done = next(slot for slot in reversed(week_slots) if slot.finishes)
            deliverable = words["deliverable_finish"].format(
                course=self._course_name(done.chosen.course),
                deliverable=self._topic_words(done.chosen.topic)["finish"],
            )
        else:
            deliverable = topic_words["deliverables"][into_course % len(topic_words["deliverables"])]
        return Week(
            number=number,
            start=dates[0],
            end=dates[1],
            courses=list(dict.fromkeys(slot.chosen.course.id for slot in week_slots)),
            content=words["content_separator"].join(self._part(slot) for slot in week_slots),
            tasks=tasks[:4],
            deliverable=deliverable,
        )

    def _capstone_week(self, number: int, dates: tuple[date, date], position: int, count: int) -> Week:
        capstone = self._capstone_words()
        templates, deliverables = capstone["tasks"], capstone["deliverables"]
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
            content=self.words["capstone_content"].format(project=project),
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

    def _phase_courses(self, draft: _PhaseDraft, slots: list[list[Slot]], topics: list[str]) -> str:
        """What the phase covers in its topics: whole courses by name, others by the course weeks done in it."""
        stretches: dict[str, tuple[Course, Fraction, Fraction]] = {}
        for slot in (slot for i in draft.weeks for slot in slots[i] if slot.chosen.topic in topics):
            course = slot.chosen.course
            start, end = stretches[course.id][1:] if course.id in stretches else (slot.start, slot.end)
            stretches[course.id] = (course, min(start, slot.start), max(end, slot.end))
        parts = [
            self._course_name(course)
            if start == 0 and end >= course.weeks
            else self.words["course_range"].format(name=course.name, range=self._range(start, end))
            for course, start, end in stretches.values()
        ]
        return self._join(parts)

    def _self_check(
        self, draft: _PhaseDraft, slots: list[list[Slot]], drafts: list[_PhaseDraft], part: int, parts: int
    ) -> list[str]:
        """Checks for the phase's topics, then one on the phase's own course weeks. The parts of a split phase
        share out a topic's checks, which run from first skills to later ones."""
        if draft.stage == "capstone":
            return list(self._capstone_words()["self_check"])
        topics = self._stage_topics(draft, slots, drafts)
        items: list[str] = []
        for topic in topics[:3]:
            checks = self._topic_words(topic)["self_check"]
            if parts > 1:
                low = part * len(checks) // parts
                high = max(low + 1, (part + 1) * len(checks) // parts)
                items += checks[low:high]
            else:
                items += checks[: 3 if len(topics) == 1 else 2]
        items.append(self.words["phase_courses_check"].format(courses=self._phase_courses(draft, slots, topics)))
        items.append(self.words["generic_self_check"])
        return list(dict.fromkeys(items))

    def _phases(self, slots: list[list[Slot]], calendar: list[tuple[date, date]]) -> list[Phase]:
        drafts = _phase_drafts(slots)
        capstone = [i for i, week_slots in enumerate(slots) if not week_slots]
        titles = [self._phase_title(draft, slots, drafts) for draft in drafts]
        phases = []
        for number, (draft, title) in enumerate(zip(drafts, titles, strict=True), start=1):
            weeks = [
                self._course_week(i + 1, calendar[i], slots[i], _weeks_into_main_course(slots, i))
                if slots[i]
                else self._capstone_week(i + 1, calendar[i], capstone.index(i), len(capstone))
                for i in draft.weeks
            ]
            part, parts = titles[:number].count(title), titles.count(title)  # 1, 2, ... among same-titled phases
            checks = self._self_check(draft, slots, drafts, part - 1, parts)
            if parts > 1:
                names = self.words["part_names"]
                title = self.words["phase_part"].format(
                    title=title, part=names[part - 1] if part <= len(names) else str(part)
                )
            phases.append(Phase(number, title, weeks, checks))
        return phases

    # the document

    def compose(self, selection: Selection, calendar: list[tuple[date, date]]) -> tuple[PlanDoc, Timetable]:
        goal, words = self.goal, self.words
        weeks = self.weeks
        if len(calendar) != weeks:  # the calendar tool failed: the dates follow from the start
            starts = [goal.start + timedelta(days=7 * i) for i in range(weeks)]
            calendar = [(first, first + timedelta(days=6)) for first in starts]
        timetable = fit_timetable(selection.courses, weeks, goal.hours_per_week)
        phases = self._phases(timetable.slots, calendar)
        topics = self._join([vocabulary.topic_label(topic, self.lang) for topic in (goal.topic, *goal.extra_topics)])
        level = words["level_labels"][goal.level]
        plan = PlanDoc(
            title=words["title"].format(topic=topics, level=level, weeks=weeks),
            goal=goal.raw,
            lang=goal.lang,
            start=calendar[0][0],
            end=calendar[-1][1],
            hours_per_week=goal.hours_per_week,
            phases=phases,
            resources=[chosen.course.id for chosen in timetable.courses],
            time_note=self.time_note(selection, timetable),
            assumptions=self.assumptions(selection),
        )
        return plan, timetable

    def time_note(self, selection: Selection, timetable: Timetable) -> str | None:
        words, hours = self.words, self.goal.hours_per_week
        need = sum(chosen.course.total_hours for chosen in timetable.courses)
        have = self.weeks * hours
        compressed = [c for c in timetable.courses if c.planned_hours < c.course.total_hours - 1e-6]
        parts = []
        if compressed or selection.dropped or need > have:
            count = timetable.capstone_count
            capstone = words["time_note_capstone"].format(count=count) if count else ""
            parts.append(
                words["time_note_need"].format(
                    need=round(need, 1), weeks=self.weeks, hours=hours, have=round(have, 1), capstone=capstone
                )
            )
        if compressed:
            courses = [
                words["time_note_compressed_course"].format(
                    course=self._course_name(c.course), planned=round(c.planned_hours, 1), total=c.course.total_hours
                )
                for c in compressed
            ]
            parts.append(words["time_note_compressed"].format(courses=self._join(courses)))
        if selection.dropped:
            dropped = self._join([f"[{c.id}] {c.name}" for c in selection.dropped])
            parts.append(words["time_note_dropped"].format(courses=dropped))
        if timetable.pace < hours:
            parts.append(
                words["time_note_pace"].format(
                    need=round(need, 1), weeks=self.weeks - timetable.capstone_count, hours=hours,
                    pace=timetable.pace, spare=round(hours - timetable.pace, 1),
                )
            )
        if not parts:
            return None
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
        further = [key for key in self._further_searches() if key not in searches]
        if further and not self.conversation.of("plan_calendar"):
            return self._search_further(further)
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
        # Too little at the learner's level for the time, or nothing for the goal's focus (a TOEFL course):
        # look at the higher levels too.
        fitting = sum(c.total_hours for c in found if c.total_hours <= self._budget_hours())
        focus = focus_words(goal.raw)
        if found and (fitting < self._budget_hours() or (focus and not any(_mentions(c, focus) for c in found))):
            keys += [(goal.topic, level) for level in LEVELS[_level_rank(goal.level) + 1 :]]
        return list(dict.fromkeys(keys))

    def _first_round(self) -> list[SearchKey]:
        main_key: SearchKey = (self.goal.topic, self.goal.level)
        return [main_key, *self._follow_ups(self.conversation.searches().get(main_key, ""))]

    def _further_topics(self) -> list[str]:
        """Topics that build on the main one and that the learner is ready for: where the plan goes next when
        the main topic's courses leave time over."""
        goal = self.goal
        ready = set(goal.known_topics) | {goal.topic, *goal.extra_topics, *self._prerequisite_topics()}
        if goal.level != "beginner":  # with a background in a topic, its prerequisites are known too
            ready.update(vocabulary.topic_prerequisites(goal.topic))
        following = [
            topic
            for topic in vocabulary.all_topics()
            if goal.topic in vocabulary.topic_prerequisites(topic)
            and topic not in ready
            and set(vocabulary.topic_prerequisites(topic)) <= ready
        ]
        return following[:MAX_FURTHER_TOPICS]

    def _further_searches(self) -> list[SearchKey]:
        """Searches for the topics that build on the main one, when the first round of searches leaves more
        than a week beyond the capstone unfilled. Decided on the first round only, so it is asked once."""
        first_round = set(self._first_round())
        found = {key: courses for key, courses in self._found().items() if key in first_round}
        selection = self._selection(frozenset(), found)
        planned = sum(chosen.planned_hours for chosen in selection.courses)
        if not selection.courses or planned >= self._budget_hours() - self.goal.hours_per_week:
            return []
        levels = LEVELS[_level_rank(self.goal.level) : _level_rank(self.goal.level) + 2]
        return [(topic, level) for topic in self._further_topics() for level in levels]

    def _search_further(self, keys: list[SearchKey]) -> ModelReply:
        topics = list(dict.fromkeys(topic for topic, _ in keys))
        thought = self.words["thought_further"].format(
            topic=self._label(self.goal.topic), further=self._join([self._label(t) for t in topics])
        )
        return self._reply(thought, [self._search(topic, level) for topic, level in keys])

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

    def _excluded(self, saves: list[Exchange]) -> frozenset[str]:
        """Courses a rejected save complained about: the next attempt leaves them out."""
        excluded: set[str] = set()
        for exchange in saves:
            for course_id in re.findall(r"\[([^\]]+)\]", exchange.observation or ""):
                excluded.add(course_id.strip())
        return frozenset(excluded)

    def _save(self, saves: list[Exchange]) -> ModelReply:
        goal, words = self.goal, self.words
        if len(saves) >= MAX_SAVE_ATTEMPTS:
            return self._give_up(saves)
        selection = self._selection(self._excluded(saves))
        if not selection.courses:
            return self._give_up(saves)
        if saves and _ids(selection) == _ids(self._selection(self._excluded(saves[:-1]))):
            return self._give_up(saves)  # the rejection named nothing this planner can leave out
        plan, timetable = self._compose(selection)
        content = render_plan(plan, self.catalog)
        filename = f"{goal.topic.replace('_', '-')}-{self.weeks}w.md"
        capstone = timetable.capstone_count
        ending = (words["thought_ending_capstone"].format(count=capstone) if capstone
                  else words["thought_ending_none"])
        time_status = words["thought_time_short"] if plan.time_note else words["thought_time_ok"]
        courses = self._join([self._course_span(chosen.course, timetable.slots) for chosen in timetable.courses])
        thought = words["thought_save"].format(
            hours=goal.hours_per_week, courses=courses, phases=len(plan.phases), ending=ending, time_status=time_status
        )
        if saves:
            problems = (saves[-1].observation or "").strip().replace("\n", " ")
            dropped = self._join(sorted(self._excluded(saves))) or "-"
            thought = words["thought_retry"].format(problems=problems, dropped=dropped) + " " + thought
        return self._reply(thought, [("save_plan", {"content": content, "filename": filename})])

    def _compose(self, selection: Selection) -> tuple[PlanDoc, Timetable]:
        """The plan. When the courses, split into whole pieces, need compressing to fit the weeks, a course
        added only to fill the time goes instead, if one is small enough not to leave a hole in the plan
        (one about the size of the squeeze, at most two weeks' time or four times the squeeze)."""
        composer = PlanComposer(self.goal, self.weeks, self.catalog)
        while True:
            plan, timetable = composer.compose(selection, self.conversation.calendar())
            squeezed = sum(c.planned_hours for c in selection.courses) - sum(c.planned_hours for c in timetable.courses)
            limit = max(2 * self.goal.hours_per_week, 4 * squeezed)
            fillers = [c for c in selection.courses if c.filler and c.planned_hours <= limit]
            if squeezed < 1e-6 or not fillers:
                return plan, timetable
            dropped = min(fillers, key=lambda c: (c.planned_hours < squeezed, abs(c.planned_hours - squeezed)))
            selection = replace(selection, courses=[c for c in selection.courses if c is not dropped])

    def _selection(self, excluded: frozenset[str], found: dict[SearchKey, list[Course]] | None = None) -> Selection:
        weeks, hours = self.weeks, self.goal.hours_per_week
        hours_available = (weeks - min(capstone_weeks(weeks), 1)) * hours
        found = self._found() if found is None else found
        further = tuple(topic for topic in self._further_topics() if any(key[0] == topic for key in found))
        return choose_courses(
            self.goal, self._prerequisite_topics(), found, self._budget_hours(), hours_available,
            self.catalog, excluded, further, fillable_later=bool(self._further_topics()),
            packing_hours=hours * PACKING_SHARE,
        )

    def _course_span(self, course: Course, slots: list[list[Slot]]) -> str:
        numbers = [i + 1 for i, week_slots in enumerate(slots) if any(s.chosen.course == course for s in week_slots)]
        span = f"{numbers[0]}–{numbers[-1]}" if numbers and numbers[0] != numbers[-1] else str(numbers[0])
        return self.words["course_span"].format(name=course.name, span=span)

    def _give_up(self, saves: list[Exchange]) -> ModelReply:
        problems = (saves[-1].observation or "").strip().replace("\n", " ") if saves else ""
        return ModelReply(content=self.words["give_up"].format(problems=problems))

    def _final(self, path: str) -> ModelReply:
        goal, words = self.goal, self.words
        # The saved text may be left out of the history (long arguments are stubbed once a call succeeds), so
        # the plan is composed again: the same conversation gives the same plan.
        saves = self.conversation.of("save_plan")
        plan, _ = self._compose(self._selection(self._excluded(saves[:-1])))
        phases = "\n".join(
            words["final_phase" if phase.weeks[0] != phase.weeks[-1] else "final_phase_single"].format(
                number=phase.number, title=phase.title, first=phase.weeks[0].number, last=phase.weeks[-1].number
            )
            for phase in plan.phases
            if phase.weeks
        )
        courses = self._join([_course_name(self.catalog, ref) for ref in plan.resources])
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


def _course_name(catalog: Catalog, course_id: str) -> str:
    course = catalog.get(course_id)
    return f"[{course_id}]" if course is None else course.name
