"""Choosing courses for a goal: one per group (the main topic, each prerequisite and extra topic), sized to
the time, then more of the main topic and the topics that build on it while whole courses fit.

Plain functions over data: the searches' results come in as lists of catalog courses by (topic, level).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, replace
from typing import Literal

from studyplan.domain import vocabulary
from studyplan.domain.catalog import LEVELS, Catalog, Course, Level
from studyplan.engine.goal import Goal, load_phrases
from studyplan.lang import has_chinese

COMPRESSION_LIMIT = 1.5  # beyond needing 1.5× the time available, drop courses rather than compress further
SIDE_TOPIC_PENALTY = 0.3
_BUNDLE = re.compile(r"specialization|专项", re.IGNORECASE)

Role = Literal["foundation", "core", "advanced"]
SearchKey = tuple[str, str | None]  # (topic, level)
Pick = tuple[Course, str, Role]


def prerequisites_of(topic: str) -> list[str]:
    """A topic's prerequisites and theirs, the deepest first: deep learning needs machine learning, which
    needs Python, linear algebra and statistics (the math before deep learning)."""
    ordered: list[str] = []

    def visit(current: str, seen: frozenset[str]) -> None:
        for prerequisite in vocabulary.topic_prerequisites(current):
            if prerequisite in seen or prerequisite in ordered:
                continue
            visit(prerequisite, seen | {prerequisite})
            ordered.append(prerequisite)

    visit(topic, frozenset({topic}))
    return ordered


def level_rank(level: str) -> int:
    return LEVELS.index(level) if level in LEVELS else 0


@dataclass(frozen=True)
class ChosenCourse:
    course: Course
    topic: str  # the topic it was chosen for
    role: Role
    planned_hours: float  # hours at the learner's pace; below total_hours when compressed
    filler: bool = False  # added only to fill the time left, so the first to go when the weeks are full
    units_taken: int | None = None  # only the first units of a longer course in the learner's language

    @property
    def full_hours(self) -> float:
        """The published hours of what the plan takes: the whole course, or its first `units_taken` units."""
        course = self.course
        if self.units_taken is None or course.unit_hours <= 0:
            return course.total_hours
        share = sum(unit.hours for unit in course.units[: self.units_taken]) / course.unit_hours
        return course.total_hours * share

    @property
    def compressed(self) -> bool:
        return self.planned_hours < self.full_hours - 1e-6


@dataclass
class Selection:
    courses: list[ChosenCourse]
    dropped: list[Course] = field(default_factory=list)
    missing_topics: list[str] = field(default_factory=list)  # prerequisites the catalog had no course for

    @property
    def compressed(self) -> list[ChosenCourse]:
        return [chosen for chosen in self.courses if chosen.compressed]


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
        if prerequisite in chosen or level_rank(prerequisite.level) < level_rank(level):
            continue
        if not covered.intersection(prerequisite.topics):
            return False
    return True


def focus_words(goal_text: str) -> list[str]:
    """Words naming a specific aim ("雅思" → "ielts"): courses mentioning them are preferred."""
    lowered = goal_text.lower()
    terms: dict[str, str] = load_phrases()["planner"]["focus_terms"]
    return list(dict.fromkeys(word for key, word in terms.items() if key.lower() in lowered))


_TAUGHT_IN_CHINESE = re.compile(r"\bMandarin\b|\bin Chinese\b|\bChinese (?:Python )?(?:tutorial|course|lectures?)\b")
LANGUAGE_PENALTY = 0.2  # a course in English for a learner who writes Chinese, when a Chinese one would do


def teaches_in_chinese(course: Course) -> bool:
    """Taught in Chinese: its own name is Chinese, or its description or address says so."""
    return _taught_in_chinese(course.name, course.description, course.url)


@functools.lru_cache(maxsize=4096)  # asked for every candidate at every choice; strings hash once
def _taught_in_chinese(name: str, description: str, url: str) -> bool:
    return (
        has_chinese(name) or bool(_TAUGHT_IN_CHINESE.search(description)) or "icourse163.org" in url or "/zh" in url
    )


def mentions(course: Course, words: list[str]) -> bool:
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
    chooser = _Chooser(goal, prerequisite_topics, found, catalog, excluded, further_topics)
    chooser.budget_hours, chooser.hours_available = budget_hours, hours_available
    chooser.fillable_later, chooser.packing_hours = fillable_later, packing_hours
    return chooser.choose()


class _Chooser:
    """The state of one choice: what the searches found, the learner's topics and the time."""

    def __init__(
        self,
        goal: Goal,
        prerequisite_topics: list[str],
        found: dict[SearchKey, list[Course]],
        catalog: Catalog,
        excluded: frozenset[str],
        further_topics: tuple[str, ...],
    ) -> None:
        self.goal = goal
        self.found = found
        self.catalog = catalog
        self.excluded = excluded
        self.further_topics = further_topics
        self.focus = focus_words(goal.raw)
        extra = [t for t in goal.extra_topics if t not in prerequisite_topics]
        self.groups: list[tuple[str, Role]] = [(topic, "foundation") for topic in prerequisite_topics]
        self.groups += [(topic, "core") for topic in extra]
        self.known = set(goal.known_topics) | set(prerequisite_topics)
        self.fillers: set[str] = set()
        self.budget_hours = self.hours_available = self.packing_hours = 0.0
        self.fillable_later = False
        self.main_share = 0.0

    @staticmethod
    def mainly(course: Course, topic: str) -> bool:
        return bool(course.topics) and course.topics[0] == topic

    def candidates(self, topic: str) -> list[Course]:
        """Every course the searches for `topic` returned: the goal's focus first, then courses mainly
        about the topic, each in search order."""
        lists = [courses for (searched, _), courses in self.found.items() if searched == topic]
        seen = list(dict.fromkeys(c for courses in lists for c in courses if c.id not in self.excluded))
        return sorted(
            seen, key=lambda c: (not mentions(c, self.focus), not self.mainly(c, topic), self.foreign(c) > 0)
        )

    def foreign(self, course: Course) -> float:
        """A course not in the learner's language: one who writes Chinese gets Chinese-language courses first
        where the catalog has them, one who writes English gets English ones."""
        return LANGUAGE_PENALTY if (self.goal.lang == "zh") != teaches_in_chinese(course) else 0.0

    def side_topic(self, course: Course, topic: str) -> float:
        """A course only partly about the topic (a data-science course for "machine learning") fits less."""
        return 0.0 if self.mainly(course, topic) else SIDE_TOPIC_PENALTY

    def met(self, course: Course, covered: set[str], taken: list[Course]) -> bool:
        return _prerequisites_met(course, covered, taken, self.catalog, self.goal.level)

    def options_for(self, topic: str, taken: list[Course], covered: set[str]) -> list[Course]:
        goal = self.goal
        options = [c for c in self.candidates(topic) if c not in taken and not _overlaps(c, taken)]
        if topic == goal.topic:
            options = [c for c in options if level_rank(c.level) >= level_rank(goal.level)] or options
        else:
            options = [c for c in options if set(c.topics) & set(goal.known_topics)] or options
        options = [c for c in options if self.met(c, covered, taken)] or options
        return [c for c in options if mentions(c, self.focus)] or options

    def around(self, main: Course) -> tuple[list[Pick], list[str]]:
        """The rest of a selection built around one main course."""
        picks: list[Pick] = [(main, self.goal.topic, "core")]
        covered = self.known | set(main.topics)
        missing: list[str] = []
        remaining = self.budget_hours - main.total_hours
        for index, (topic, role) in enumerate(self.groups):
            taken = [course for course, _, _ in picks]
            if role == "foundation" and any(topic in course.topics for course in taken):
                continue  # an earlier pick already teaches it
            options = self.options_for(topic, taken, covered)
            if not options:
                missing += [topic] if role == "foundation" else []
                continue
            share = max(remaining, 0) / (len(self.groups) - index)
            best = min(
                options,
                key=lambda c: abs(c.total_hours - share) / max(share, 1) + self.side_topic(c, topic) + self.foreign(c),
            )
            picks.append((best, topic, role))
            covered.update(best.topics)
            remaining -= best.total_hours
        remaining += self.hours_available - self.budget_hours - self.packing_hours * len(picks)
        self._fill(picks, covered, remaining)
        return picks, missing

    def _fill(self, picks: list[Pick], covered: set[str], remaining: float) -> None:
        """More of the main topic while whole courses fit (into the time left with the shortest capstone), then
        the topics that build on it: the goal's focus first, then level by level, larger courses first so
        that the time is used well (the schedule puts them in order of level anyway)."""
        goal = self.goal
        for topic in [goal.topic, *self.further_topics]:
            added = True
            while added:  # again, as a course taken may be the prerequisite of one passed over
                added = False
                ordered = sorted(
                    self.candidates(topic),
                    key=lambda c: (not mentions(c, self.focus), self.foreign(c), level_rank(c.level), -c.total_hours),
                )
                for course in ordered:
                    taken = [c for c, _, _ in picks]
                    if course in taken or _overlaps(course, taken):
                        continue
                    if course.total_hours + self.packing_hours > remaining:
                        continue
                    if level_rank(course.level) < level_rank(goal.level) or self.side_topic(course, topic):
                        continue
                    if not self.met(course, covered, taken):
                        continue
                    further = topic != goal.topic or level_rank(course.level) > level_rank(goal.level)
                    role: Role = "advanced" if further else "core"
                    picks.append((course, topic, role))
                    self.fillers.add(course.id)
                    covered.update(course.topics)
                    remaining -= course.total_hours + self.packing_hours
                    added = True

    def misfit(self, picks: list[Pick]) -> float:
        """How badly a selection fits the budget. Needing more than there is counts double, or four times when
        time left over can go to further topics: compressing courses costs the learner depth."""
        budget = self.budget_hours
        use = sum(course.total_hours for course, _, _ in picks) / budget if budget > 0 else 1.0
        return (use - 1) * (4 if self.fillable_later else 2) if use > 1 else 1 - use

    def main_key(self, course: Course) -> tuple[float, float]:
        share = self.main_share
        too_small = max(0.0, 0.5 - course.total_hours / share) if share > 0 else 0.0
        score = self.misfit(self.around(course)[0]) + too_small + self.side_topic(course, self.goal.topic)
        score += self.foreign(course)
        return (round(score, 3), abs(course.total_hours - share))

    def choose(self) -> Selection:
        goal = self.goal
        main_options = self.options_for(goal.topic, [], self.known)
        main_options = [c for c in main_options if c.level == goal.level] or main_options
        if not main_options:
            return Selection([])
        # The main course is the one around which the whole selection fits the time best, as long as it keeps
        # at least half of its share (a 3-hour taster must not be the core of a three-month plan).
        self.main_share = self.budget_hours * (2 / (2 + len(self.groups)) if self.groups else 0.5)
        main = min(main_options, key=self.main_key)
        self.fillers.clear()
        picks, missing = self.around(main)

        # Too much for the time: drop the least essential picks while far over it, keeping the main course.
        dropped: list[Course] = []
        for pick in list(reversed(picks[1:])):
            if sum(course.total_hours for course, _, _ in picks) <= self.hours_available * COMPRESSION_LIMIT:
                break
            picks.remove(pick)
            dropped.append(pick[0])

        picks, units_taken = self.in_own_language(picks)
        full = [
            ChosenCourse(course, topic, role, 0.0, course.id in self.fillers, units_taken.get(course.id))
            for course, topic, role in in_prerequisite_order(picks, goal.topic)
        ]
        need = sum(chosen.full_hours for chosen in full)
        scale = min(1.0, self.hours_available / need) if need > 0 else 1.0
        chosen = [replace(c, planned_hours=c.full_hours * scale) for c in full]
        return Selection(chosen, dropped, missing)

    def own_language_stand_in(self, course: Course, topic: str, taken: list[Course]) -> Course | None:
        """A course on the same topic in the learner's language, with an outline to take units of."""
        if not self.foreign(course):
            return None
        others = [c for c in taken if c != course]
        # the catalog's own list, not only what was searched: the stand-in may be a level up (its first units)
        searched = self.candidates(topic)
        for other in searched + [c for c in self.catalog.search(topic) if c not in searched]:
            if other.id in self.excluded or self.foreign(other) or other in taken or other.unit_hours <= 0:
                continue
            if not self.mainly(other, topic):
                continue
            if level_rank(other.level) > level_rank(self.goal.level) + 1 or _overlaps(other, others):
                continue
            if other.units[0].hours <= course.total_hours and self.met(other, set(self.known), others):
                return other
        return None

    def in_own_language(self, picks: list[Pick]) -> tuple[list[Pick], dict[str, int]]:
        """Each pick not in the learner's language gives way to an equivalent one in it (same main topic, an
        outline): the whole of it, or its first units, in the hours of the pick it replaces (plus the time
        left over, for a foundation). Learning in one's own language beats a course that fits a little better.
        Returns the picks and, for a course taken in part, the number of its units taken."""
        picks = list(picks)
        slack = self.hours_available - sum(c.total_hours for c, _, _ in picks) - self.packing_hours * len(picks)
        counts: dict[str, int] = {}
        for index, (course, topic, role) in enumerate(picks):
            other = self.own_language_stand_in(course, topic, [c for c, _, _ in picks])
            if other is None:
                continue
            count = units_within(other, course.total_hours)
            if unit_span_hours(other, count) < course.total_hours / 2:
                continue  # too little of it to stand in for the course
            picks[index] = (other, topic, role)
            counts[other.id] = count
            slack += course.total_hours - unit_span_hours(other, count)
        for course, _, role in picks:  # time left over lets a foundation taken in part go on, unit by unit
            while role == "foundation" and course.id in counts and counts[course.id] < len(course.units):
                more = unit_span_hours(course, counts[course.id] + 1) - unit_span_hours(course, counts[course.id])
                if more > slack:
                    break
                counts[course.id] += 1
                slack -= more
        return picks, {key: count for key, count in counts.items() if count < len(self.catalog_units(key))}

    def catalog_units(self, course_id: str) -> tuple[object, ...]:
        course = self.catalog.get(course_id)
        return course.units if course is not None else ()


def unit_span_hours(course: Course, count: int) -> float:
    """The published hours of a course's first `count` units."""
    if course.unit_hours <= 0:
        return course.total_hours
    return course.total_hours * sum(unit.hours for unit in course.units[:count]) / course.unit_hours


def units_within(course: Course, hours: float) -> int:
    """How many of the course's first units fit in `hours`."""
    count = 0
    while count < len(course.units) and unit_span_hours(course, count + 1) <= hours + 1e-6:
        count += 1
    return count


def in_prerequisite_order(
    picks: list[Pick], main_topic: str
) -> list[Pick]:
    """Foundations, core, then further courses, the main topic's before other topics' within each stage (the
    front end before the back end, more machine learning before deep learning); by level and shorter first
    (short intros lead into longer courses); and never a course before one of its prerequisites."""
    stage_rank = {"foundation": 0, "core": 1, "advanced": 2}
    ordered = sorted(
        picks,
        key=lambda p: (
            stage_rank[p[2]],
            p[2] != "foundation" and p[1] != main_topic,
            level_rank(p[0].level),
            p[0].total_hours if p[2] != "foundation" else 0,
        ),
    )
    result: list[Pick] = []

    def place(pick: Pick) -> None:
        if pick in result:
            return
        for other in ordered:
            if other[0].id in pick[0].prerequisites:
                place(other)
        result.append(pick)

    for pick in ordered:
        place(pick)
    return result

