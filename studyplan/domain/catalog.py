"""The course catalog: loading, validation, and topic/level search with Chinese and English aliases.

A catalog is a JSON file {"version": 1, "courses": [...]}. The packaged one ships as studyplan/courses.json;
$STUDYPLAN_CATALOG or an explicit path replaces it. Every problem is reported as one CatalogError line that
names the file and the course, so a user can fix a custom catalog without reading code.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from rapidfuzz import fuzz, process, utils

from studyplan.domain import vocabulary
from studyplan.domain.vocabulary import LEVELS, Level
from studyplan.errors import CatalogError
from studyplan.paths import read_user_file
from studyplan.safe_text import clean_line, printable

CATALOG_ENV_VAR = "STUDYPLAN_CATALOG"
CATALOG_FILE_NAME = "courses.json"
CATALOG_VERSION = 1
_MAX_HOURS_PER_WEEK = 168  # hours in a week
_UNIT_TITLE_SEPARATORS = (";", "；")
_MAX_UNIT_HOURS = 500  # more than any one week, chapter or lesson of a real course; catches typos
_CLOSEST_CUTOFF = 60  # rapidfuzz WRatio below this is noise, not a suggestion

# What kind of resource a course is, so a plan's tasks fit it (no "watch the videos" for a book).
CourseFormat = Literal[
    "video_course", "interactive_course", "book", "website", "srs_app", "exam_prep", "project"
]
COURSE_FORMATS: tuple[CourseFormat, ...] = (
    "video_course",  # recorded lectures, usually with quizzes or assignments (Coursera, edX, OCW, YouTube)
    "interactive_course",  # lessons done in the browser with checked exercises (freeCodeCamp, Kaggle Learn)
    "book",  # a book or book-like tutorial read chapter by chapter (Py4E book, d2l, Tae Kim)
    "website",  # a documentation site or article series (MDN, web.dev, javascript.info)
    "srs_app",  # a spaced-repetition app with daily lessons and reviews (WaniKani)
    "exam_prep",  # a course preparing for one exam (IELTS, TOEFL)
    "project",  # a path built around projects the learner builds (The Odin Project, Zoomcamps)
)
# The kind of work a unit is.
UnitKind = Literal["videos", "reading", "exercises", "project", "quiz", "mock_exam", "srs"]
UNIT_KINDS: tuple[UnitKind, ...] = (
    "videos",  # watch lectures
    "reading",  # read chapters or articles
    "exercises",  # problem sets, coding exercises, labs
    "project",  # build something that exists at the end
    "quiz",  # a short graded check
    "mock_exam",  # a full or sectional practice test under exam conditions
    "srs",  # spaced-repetition lessons and daily reviews
)


@dataclass(frozen=True)
class Unit:
    """One step of a course's own public outline (a week, a chapter, a lesson), in the outline's order."""

    title: str  # as on the outline, e.g. "Algorithms", "Loops and Iteration"
    hours: float  # estimated study hours, > 0
    kind: UnitKind
    label: str | None = None  # the outline's own numbering, e.g. "Week 3", "Chapter 5"; None if it has none

    @property
    def display_title(self) -> str:
        """The title with the outline's numbering ("Week 3 · Algorithms"), or the title alone."""
        return f"{self.label} · {self.title}" if self.label else self.title


@dataclass(frozen=True)
class Course:
    """One catalog course. Hashed by its id (equal courses have equal ids): the engine keeps courses in sets
    and dict keys, and hashing every field, units included, was most of its time."""

    id: str  # stable, lowercase, e.g. "py4e", "mit-6-0001", "cs50x"
    name: str  # the course's own name
    name_zh: str | None  # Chinese name where one exists
    provider: str
    url: str
    topics: tuple[str, ...]  # topic keys, see studyplan/data/vocabulary.json
    level: Level
    weeks: int
    hours_per_week: float
    prerequisites: tuple[str, ...]  # course ids
    description: str  # one line
    format: CourseFormat | None = None  # None when the catalog does not say
    units: tuple[Unit, ...] = ()  # the public outline in order; () when the catalog does not know it
    syllabus_url: str | None = None  # where `units` come from; set whenever units are

    def __hash__(self) -> int:
        return hash(self.id)

    @property
    def total_hours(self) -> float:
        return self.weeks * self.hours_per_week

    @property
    def unit_hours(self) -> float:
        """The hours of all units (0 when the course has none)."""
        return sum(unit.hours for unit in self.units)


class Catalog:
    """An indexed, validated list of courses."""

    def __init__(self, courses: list[Course], source: str = "<memory>") -> None:
        self.source = source
        self._courses = tuple(courses)
        self._by_id: dict[str, Course] = {}
        first_position: dict[str, int] = {}
        for position, course in enumerate(self._courses, start=1):
            if course.id in self._by_id:
                raise CatalogError(
                    f"{source}: course #{position} ('{course.id}'): duplicate id "
                    f"(already used by course #{first_position[course.id]})"
                )
            self._by_id[course.id] = course
            first_position[course.id] = position
        for position, course in enumerate(self._courses, start=1):
            for prerequisite in course.prerequisites:
                if prerequisite not in self._by_id:
                    raise CatalogError(
                        f"{source}: course #{position} ('{course.id}'): "
                        f"unknown prerequisite id '{prerequisite}'"
                    )
        cycle = _prerequisite_cycle(self._by_id)
        if cycle:
            raise CatalogError(f"{source}: prerequisites form a cycle: {' -> '.join(cycle)}")

        # Indexes built once, so search() costs O(results) even for very large catalogs.
        self._by_name: dict[str, Course] = {}
        for course in self._courses:  # ids first: an id wins over another course's identical name
            self._by_name.setdefault(_name_key(course.id), course)
        for course in self._courses:
            for name in (course.name, course.name_zh):
                if name:
                    self._by_name.setdefault(_name_key(name), course)
        # Within a level: courses whose main (first) topic is the one searched for, then the rest, each in
        # file order, so the catalog's curator decides which courses a truncated result shows first.
        by_topic_level: dict[str, dict[Level, tuple[list[Course], list[Course]]]] = {}
        for course in self._courses:
            for rank, topic in enumerate(course.topics):
                levels = by_topic_level.setdefault(topic, {level: ([], []) for level in LEVELS})
                main, secondary = levels[course.level]
                (main if rank == 0 else secondary).append(course)
        self._by_topic_level = {
            topic: {level: (*main, *secondary) for level, (main, secondary) in levels.items()}
            for topic, levels in by_topic_level.items()
        }
        self._by_topic = {
            topic: tuple(course for level in LEVELS for course in levels[level])
            for topic, levels in self._by_topic_level.items()
        }
        self._fuzzy_choices: list[str] = []
        self._fuzzy_owners: list[Course] = []
        for course in self._courses:
            for name in (course.id, course.name, course.name_zh):
                if name:
                    self._fuzzy_choices.append(name)
                    self._fuzzy_owners.append(course)

    @classmethod
    def load(cls, path: Path | None = None) -> Catalog:
        """Load from `path`, else $STUDYPLAN_CATALOG, else the packaged courses.json. Raises CatalogError."""
        if path is not None:
            return cls._load_file(Path(path))
        configured = os.environ.get(CATALOG_ENV_VAR, "").strip()
        if configured:
            return cls._load_file(Path(configured).expanduser())
        packaged = resources.files("studyplan").joinpath(CATALOG_FILE_NAME)
        if packaged.is_file():
            with resources.as_file(packaged) as packaged_path:
                return cls._load_file(packaged_path)
        # An editable install or a source checkout keeps courses.json at the repository root.
        checkout_file = Path(__file__).resolve().parents[2] / CATALOG_FILE_NAME
        if checkout_file.is_file():
            return cls._load_file(checkout_file)
        raise CatalogError(
            f"{CATALOG_FILE_NAME}: the built-in course catalog is missing from this installation; "
            f"reinstall studyplan or set {CATALOG_ENV_VAR} to a catalog file"
        )

    @classmethod
    def _load_file(cls, path: Path) -> Catalog:
        source = str(path)
        text = read_user_file(path, CatalogError)
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise CatalogError(
                f"{source}: invalid JSON at line {error.lineno}, column {error.colno}: {error.msg}"
            ) from None
        except RecursionError:
            raise CatalogError(f"{source}: JSON nested too deeply to be a catalog") from None
        return cls(_parse_catalog(data, source), source)

    @property
    def courses(self) -> tuple[Course, ...]:
        """All courses in file order."""
        return self._courses

    def __len__(self) -> int:
        return len(self._courses)

    def __iter__(self) -> Iterator[Course]:
        return iter(self._courses)

    def get(self, course_id: str) -> Course | None:
        return self._by_id.get(course_id)

    def find(self, id_or_name: str) -> Course | None:
        """Exact match by id, name or Chinese name, ignoring case and spacing."""
        return self._by_name.get(_name_key(id_or_name))

    def closest(self, text: str, limit: int = 3) -> list[Course]:
        """The catalog courses whose id/name is closest to `text` (fuzzy), for suggestions."""
        if not text.strip() or limit <= 0:
            return []
        # A course has up to three choices (id, name, name_zh): ask for more to fill `limit` distinct courses.
        matches = process.extract(
            text,
            self._fuzzy_choices,
            scorer=fuzz.WRatio,
            processor=utils.default_process,
            limit=limit * 3,
            score_cutoff=_CLOSEST_CUTOFF,
        )
        suggestions: list[Course] = []
        for _choice, _score, index in matches:
            course = self._fuzzy_owners[index]
            if course not in suggestions:
                suggestions.append(course)
        return suggestions[:limit]

    def topics(self) -> list[str]:
        """Topic keys that have at least one course."""
        return sorted(self._by_topic)

    def topic_key(self, topic: str) -> str | None:
        """The catalog topic key `topic` refers to (a key, or a Chinese/English alias), or None."""
        direct = _topic_form(topic)
        if direct in self._by_topic:  # also covers custom-catalog keys the vocabulary does not know
            return direct
        resolved = vocabulary.resolve_topic(topic)
        return resolved if resolved in self._by_topic else None

    def search(self, topic: str, level: str | None = None) -> list[Course]:
        """Courses for a topic given in Chinese or English (aliases), optionally at one level (aliases).

        Ordered beginner -> intermediate -> advanced; within a level, courses mainly about the topic first, in
        catalog order. An unknown topic or an unrecognized level gives []; no (or a blank) level means all.
        """
        key = self.topic_key(topic)
        if key is None:
            return []
        if level is None or not level.strip():
            return list(self._by_topic[key])
        normalized = vocabulary.normalize_level(level)
        if normalized is None:
            return []
        return list(self._by_topic_level[key][normalized])


def _name_key(text: str) -> str:
    return re.sub(r"\s+", "", text).casefold()


def _topic_form(text: str) -> str:
    """Lowercase words joined by underscores ("Web Frontend" -> "web_frontend")."""
    return re.sub(r"[\s\-]+", "_", text.strip().casefold())


def _prerequisite_cycle(courses_by_id: dict[str, Course]) -> list[str] | None:
    """A prerequisite cycle as ids ending where it starts, or None. Iterative: chains can be very long."""
    visiting, done = 1, 2
    state: dict[str, int] = {}
    for start in courses_by_id:
        if start in state:
            continue
        state[start] = visiting
        path = [start]
        stack = [iter(courses_by_id[start].prerequisites)]
        while stack:
            following = next(stack[-1], None)
            if following is None:
                state[path.pop()] = done
                stack.pop()
            elif state.get(following) == visiting:
                return [*path[path.index(following) :], following]
            elif following not in state:
                state[following] = visiting
                path.append(following)
                stack.append(iter(courses_by_id[following].prerequisites))
    return None


def _parse_catalog(data: Any, source: str) -> list[Course]:
    if isinstance(data, list):  # a bare list of courses is the simplest custom catalog
        raw_courses: Any = data
    elif isinstance(data, dict):
        version = data.get("version", CATALOG_VERSION)
        if version != CATALOG_VERSION:
            raise CatalogError(
                f"{source}: unsupported catalog version {version!r} (expected {CATALOG_VERSION})"
            )
        if "courses" not in data:
            raise CatalogError(f"{source}: missing the 'courses' list")
        raw_courses = data["courses"]
        if not isinstance(raw_courses, list):
            raise CatalogError(f"{source}: 'courses' must be a list of course objects")
    else:
        raise CatalogError(f"{source}: expected a JSON object with a 'courses' list")
    if not raw_courses:
        raise CatalogError(f"{source}: the course list is empty; a catalog needs at least one course")
    return [_parse_course(raw, position, source) for position, raw in enumerate(raw_courses, start=1)]


def _parse_course(raw: Any, position: int, source: str) -> Course:
    where = f"{source}: course #{position}"
    if not isinstance(raw, dict):
        raise CatalogError(f"{where}: expected a JSON object, got {type(raw).__name__}")
    raw_id = raw.get("id")
    if isinstance(raw_id, str) and raw_id.strip():
        where += f" ('{raw_id.strip()}')"

    def fail(problem: str) -> CatalogError:
        return CatalogError(f"{where}: {problem}")

    def required(field: str) -> Any:
        if field not in raw or raw[field] is None:
            raise fail(f"missing field '{field}'")
        return raw[field]

    def text(field: str, value: Any) -> str:
        if not isinstance(value, str) or not value.strip():
            raise fail(f"'{field}' must be a non-empty string")
        if clean_line(value) != value:  # it would reach the terminal and the plans as it is
            raise fail(f"'{field}' holds a control character or escape code: {printable(value.strip())}")
        return value.strip()

    def text_list(field: str, value: Any) -> list[str]:
        if not isinstance(value, list):
            raise fail(f"'{field}' must be a list of strings")
        return [text(field, item) for item in value]

    course_id = text("id", required("id"))
    if re.search(r"\s", course_id):
        raise fail("'id' must not contain spaces")
    url = text("url", required("url"))
    if not url.startswith(("https://", "http://")):
        raise fail("'url' must start with https:// or http://")
    topics = [_topic_form(topic) for topic in text_list("topics", required("topics"))]
    if not topics:
        raise fail("'topics' must list at least one topic")
    level = required("level")
    if level not in LEVELS:
        raise fail(f"unknown level {level!r} (expected one of: {', '.join(LEVELS)})")
    weeks = required("weeks")
    if isinstance(weeks, bool) or not isinstance(weeks, int) or weeks <= 0:
        raise fail("'weeks' must be a positive integer")
    hours = required("hours_per_week")
    if isinstance(hours, bool) or not isinstance(hours, int | float) or not 0 < hours <= _MAX_HOURS_PER_WEEK:
        raise fail(f"'hours_per_week' must be a number greater than 0 and at most {_MAX_HOURS_PER_WEEK}")
    name_zh = raw.get("name_zh")
    description = raw.get("description")
    course_format = raw.get("format")
    if course_format is not None and course_format not in COURSE_FORMATS:
        raise fail(f"unknown format {course_format!r} (expected one of: {', '.join(COURSE_FORMATS)})")
    units = _parse_units(raw.get("units"), fail)
    syllabus_url = raw.get("syllabus_url")
    if syllabus_url is not None:
        syllabus_url = text("syllabus_url", syllabus_url)
        if not syllabus_url.startswith(("https://", "http://")):
            raise fail("'syllabus_url' must start with https:// or http://")
    elif units:
        raise fail("'syllabus_url' is required when 'units' are given (the outline the units come from)")
    return Course(
        id=course_id,
        name=text("name", required("name")),
        name_zh=None if name_zh is None else text("name_zh", name_zh),
        provider=text("provider", required("provider")),
        url=url,
        topics=tuple(dict.fromkeys(topics)),
        level=level,
        weeks=weeks,
        hours_per_week=float(hours),
        prerequisites=tuple(text_list("prerequisites", raw.get("prerequisites", []))),
        description="" if description is None else text("description", description),
        format=course_format,
        units=units,
        syllabus_url=syllabus_url,
    )


def _parse_units(raw_units: Any, fail: Callable[[str], CatalogError]) -> tuple[Unit, ...]:
    """The 'units' list of one course; `fail` prefixes the file and course to a problem."""
    if raw_units is None:
        return ()
    if not isinstance(raw_units, list):
        raise fail("'units' must be a list of unit objects")
    units: list[Unit] = []
    for number, raw in enumerate(raw_units, start=1):
        if not isinstance(raw, dict):
            raise fail(f"unit #{number}: expected a JSON object, got {type(raw).__name__}")
        title = raw.get("title")
        where = f"unit #{number}"
        if isinstance(title, str) and title.strip():
            where += f" ('{title.strip()}')"
        else:
            raise fail(f"{where}: 'title' must be a non-empty string")
        if any(mark in title for mark in _UNIT_TITLE_SEPARATORS):
            raise fail(f"{where}: 'title' must not contain ';' (a plan's week line separates its courses with it)")
        hours = raw.get("hours")
        if isinstance(hours, bool) or not isinstance(hours, int | float) or not 0 < hours <= _MAX_UNIT_HOURS:
            raise fail(f"{where}: 'hours' must be a number greater than 0 and at most {_MAX_UNIT_HOURS}")
        kind = raw.get("kind")
        if kind not in UNIT_KINDS:
            raise fail(f"{where}: unknown kind {kind!r} (expected one of: {', '.join(UNIT_KINDS)})")
        label = raw.get("label")
        if label is not None and (not isinstance(label, str) or not label.strip()):
            raise fail(f"{where}: 'label' must be a non-empty string when given")
        unknown = sorted(set(raw) - {"title", "hours", "kind", "label"})
        if unknown:
            raise fail(f"{where}: unknown field '{unknown[0]}' (unit fields: title, hours, kind, label)")
        units.append(Unit(title.strip(), float(hours), kind, None if label is None else label.strip()))
    return tuple(units)
