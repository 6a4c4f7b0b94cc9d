"""The course catalog and its vocabulary: the shipped data, alias search, validation messages, overrides."""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from studyplan.app.batch import BatchSettings, run_goal
from studyplan.app.evaluate import default_goals
from studyplan.domain import vocabulary
from studyplan.domain.catalog import LEVELS, Catalog, Course
from studyplan.domain.document import parse_plan
from studyplan.errors import CatalogError
from studyplan.llm.settings import OFFLINE_MODEL, ModelSettings

REQUIRED_TOPICS = (
    "programming", "python", "algorithms", "linear_algebra", "calculus", "probability_statistics",
    "machine_learning", "deep_learning", "data_analysis", "sql_databases", "web_frontend", "web_backend",
    "english", "japanese",
)  # fmt: skip
TOPICS_WITH_EVERY_LEVEL = ("machine_learning", "python", "web_frontend", "english")
KEBAB_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


@pytest.fixture(scope="module")
def shipped() -> Catalog:
    return Catalog.load()


def course_entry(course_id: str = "intro-python", **overrides: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "id": course_id,
        "name": f"Course {course_id}",
        "name_zh": None,
        "provider": "Example University",
        "url": f"https://example.org/{course_id}",
        "topics": ["python"],
        "level": "beginner",
        "weeks": 4,
        "hours_per_week": 5,
        "prerequisites": [],
        "description": "A test course.",
    }
    entry.update(overrides)
    return entry


def write_catalog(directory: Path, courses: list[dict[str, Any]], name: str = "my-courses.json") -> Path:
    path = directory / name
    path.write_text(json.dumps({"version": 1, "courses": courses}, ensure_ascii=False), encoding="utf-8")
    return path


# --- the shipped catalog ----------------------------------------------------------------------------------


def test_shipped_catalog_is_large_and_covers_many_topics(shipped: Catalog) -> None:
    assert len(shipped) >= 100
    assert len(shipped.topics()) >= 16
    assert set(REQUIRED_TOPICS) <= set(shipped.topics())


def test_every_topic_has_a_beginner_course(shipped: Catalog) -> None:
    missing = [topic for topic in shipped.topics() if not shipped.search(topic, "beginner")]
    assert missing == []


def test_core_topics_have_every_level(shipped: Catalog) -> None:
    for topic in TOPICS_WITH_EVERY_LEVEL:
        levels = {course.level for course in shipped.search(topic)}
        assert levels == set(LEVELS), topic


def test_shipped_courses_are_well_formed(shipped: Catalog) -> None:
    ids = [course.id for course in shipped]
    assert len(ids) == len(set(ids))
    known_topics = set(vocabulary.all_topics())
    for course in shipped:
        assert KEBAB_ID.match(course.id), course.id
        assert course.url.startswith("https://"), course.id
        assert set(course.topics) <= known_topics, course.id
        assert all(shipped.get(prerequisite) for prerequisite in course.prerequisites), course.id
        assert 1 <= course.weeks <= 52 and 0.5 <= course.hours_per_week <= 20, course.id
        assert course.description and "\n" not in course.description, course.id


def test_shipped_catalog_includes_well_known_courses(shipped: Catalog) -> None:
    well_known = (
        "CS50's Introduction to Computer Science",
        "Python语言程序设计",
        "Practical Deep Learning for Coders",
    )
    for name in well_known:
        assert shipped.find(name) is not None, name
    assert shipped.get("mit-18-06") is not None


# --- vocabulary -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["machine_learning", "机器学习", "ML", "ml", "Machine Learning", "machine-learning", " 机器学习入门 "],
)
def test_machine_learning_aliases_resolve(text: str) -> None:
    assert vocabulary.resolve_topic(text) == "machine_learning"


@pytest.mark.parametrize(
    ("text", "expected"),
    [("Python", "python"), ("前端", "web_frontend"), ("后端开发", "web_backend"), ("雅思", "english"),
     ("日语", "japanese"), ("大模型", "llm"), ("Git", "git_tools"), ("线性代数", "linear_algebra"),
     ("pyhton", "python")],
)  # fmt: skip
def test_other_topics_resolve(text: str, expected: str) -> None:
    assert vocabulary.resolve_topic(text) == expected


def test_html_is_not_machine_learning() -> None:
    assert vocabulary.resolve_topic("HTML") != "machine_learning"
    assert vocabulary.find_topics("HTML and CSS for my homepage") == ["web_frontend"]


def test_unknown_topic_resolves_to_nothing() -> None:
    assert vocabulary.resolve_topic("underwater basket weaving") is None
    assert vocabulary.resolve_topic("   ") is None


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [("零基础3个月学机器学习", ["machine_learning"]),
     ("I know Python; 8 weeks of web development", ["python", "web_frontend"]),
     ("想学ML和深度学习", ["machine_learning", "deep_learning"]),
     ("JavaScript, then Java", ["javascript", "java"]),
     ("生成式AI入门", ["llm"])],
)  # fmt: skip
def test_find_topics_in_free_sentences(sentence: str, expected: list[str]) -> None:
    assert vocabulary.find_topics(sentence) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [("零基础", "beginner"), ("入门", "beginner"), ("初级", "beginner"), ("小白", "beginner"),
     ("From Scratch", "beginner"), ("没有基础", "beginner"), ("进阶", "intermediate"),
     ("中级", "intermediate"),
     ("高级", "advanced"), ("精通", "advanced"), ("Expert", "advanced"), ("whatever", None)],
)  # fmt: skip
def test_level_aliases_normalize(text: str, expected: str | None) -> None:
    assert vocabulary.normalize_level(text) == expected


def test_no_alias_belongs_to_two_topics() -> None:
    data_file = Path(vocabulary.__file__).parents[1] / "data" / "vocabulary.json"
    topics = json.loads(data_file.read_text(encoding="utf-8"))["topics"]
    owners: dict[str, set[str]] = {}
    for key, entry in topics.items():
        for alias in [key, entry["zh"], entry["en"], *entry["aliases"]]:
            owners.setdefault(re.sub(r"[\s\-_.]+", "", alias.casefold()), set()).add(key)
    assert {alias: keys for alias, keys in owners.items() if len(keys) > 1} == {}


def test_topic_labels_and_prerequisites() -> None:
    assert vocabulary.topic_label("machine_learning", "zh") == "机器学习"
    assert vocabulary.topic_label("machine_learning", "en") == "Machine learning"
    assert vocabulary.topic_label("rust", "en") == "rust"
    ml_first = ["python", "linear_algebra", "probability_statistics"]
    assert vocabulary.topic_prerequisites("machine_learning") == ml_first
    assert vocabulary.topic_prerequisites("python") == []
    every_topic = set(vocabulary.all_topics())
    assert all(set(vocabulary.topic_prerequisites(topic)) <= every_topic for topic in every_topic)


# --- search -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("topic", ["机器学习", "ML", "machine learning", "Machine_Learning"])
@pytest.mark.parametrize("level", ["零基础", "入门", "初级", "beginner"])
def test_search_with_chinese_and_english_aliases(shipped: Catalog, topic: str, level: str) -> None:
    results = shipped.search(topic, level)
    assert results == shipped.search("machine_learning", "beginner")
    assert results and all(c.level == "beginner" and "machine_learning" in c.topics for c in results)


def test_search_orders_beginner_first_and_is_stable(shipped: Catalog) -> None:
    results = shipped.search("python")
    ranks = [LEVELS.index(course.level) for course in results]
    assert ranks == sorted(ranks)
    assert [c.id for c in results] == [c.id for c in shipped.search("Python")]


def test_search_unknown_topic_or_level_finds_nothing(shipped: Catalog) -> None:
    assert shipped.search("underwater basket weaving") == []
    assert shipped.search("python", "grandmaster of the universe") == []


def test_closest_suggests_a_near_name(shipped: Catalog) -> None:
    suggestions = shipped.closest("Machine Learning Specialisation")
    assert suggestions and suggestions[0].id == "ml-specialization"
    assert shipped.closest("") == []


def test_find_ignores_case_and_spacing(shipped: Catalog) -> None:
    cs50x = shipped.get("cs50x")
    assert cs50x is not None
    assert shipped.find("  CS50X ") is cs50x
    assert shipped.find("cs50's introduction to   computer science") is cs50x
    assert shipped.find("no such course") is None


# --- custom catalogs and validation -----------------------------------------------------------------------


def test_env_var_selects_a_custom_catalog(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_catalog(tmp_path, [course_entry("rust-book", topics=["rust"], level="beginner")])
    monkeypatch.setenv("STUDYPLAN_CATALOG", str(path))
    catalog = Catalog.load()
    assert [course.id for course in catalog] == ["rust-book"]
    assert catalog.topics() == ["rust"]  # unknown topic keys are searchable by key
    assert [course.id for course in catalog.search("Rust")] == ["rust-book"]


def test_explicit_path_wins_over_env_var(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STUDYPLAN_CATALOG", str(tmp_path / "missing.json"))
    path = write_catalog(tmp_path, [course_entry()])
    assert len(Catalog.load(path)) == 1


def test_missing_env_catalog_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STUDYPLAN_CATALOG", str(tmp_path / "missing.json"))
    with pytest.raises(CatalogError, match=r"missing\.json: file not found"):
        Catalog.load()


def test_invalid_json_reports_file_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"version": 1,\n "courses": [\n  {"id": "a",,}\n ]}', encoding="utf-8")
    with pytest.raises(CatalogError) as caught:
        Catalog.load(path)
    message = str(caught.value)
    assert "broken.json" in message and "line 3" in message and "column" in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("entry", "problem"),
    [(course_entry("no-url", url=None), "course #2 ('no-url'): missing field 'url'"),
     (course_entry("bad-level", level="expert-ish"), "course #2 ('bad-level'): unknown level 'expert-ish'"),
     (course_entry("zero-weeks", weeks=0), "course #2 ('zero-weeks'): 'weeks' must be a positive integer"),
     (course_entry("float-weeks", weeks=2.5), "'weeks' must be a positive integer"),
     (course_entry("no-hours", hours_per_week="lots"), "'hours_per_week' must be a number"),
     (course_entry("no-topics", topics=[]), "'topics' must list at least one topic"),
     (course_entry("ftp", url="ftp://example.org"), "'url' must start with https://"),
     (course_entry("ghost-fan", prerequisites=["ghost"]), "('ghost-fan'): unknown prerequisite id 'ghost'"),
     (course_entry("intro-python"), "course #2 ('intro-python'): duplicate id (already used by course #1)"),
     ("not an object", "course #2: expected a JSON object")],
)  # fmt: skip
def test_malformed_course_is_reported_on_one_line(tmp_path: Path, entry: Any, problem: str) -> None:
    path = write_catalog(tmp_path, [course_entry(), entry])
    with pytest.raises(CatalogError) as caught:
        Catalog.load(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ")
    assert problem in message
    assert "\n" not in message


def test_prerequisite_cycle_is_reported(tmp_path: Path) -> None:
    courses = [course_entry("a", prerequisites=["b"]), course_entry("b", prerequisites=["a"])]
    path = write_catalog(tmp_path, courses)
    with pytest.raises(CatalogError, match=r"prerequisites form a cycle: a -> b -> a"):
        Catalog.load(path)


def test_top_level_must_hold_courses(tmp_path: Path) -> None:
    path = tmp_path / "empty.json"
    path.write_text('{"version": 1}', encoding="utf-8")
    with pytest.raises(CatalogError, match=r"empty\.json: missing the 'courses' list"):
        Catalog.load(path)


def test_catalog_built_in_memory_checks_duplicates() -> None:
    course = Course("x", "X", None, "P", "https://example.org", ("python",), "beginner", 1, 1.0, (), "")
    with pytest.raises(CatalogError, match=r"<memory>: course #2 \('x'\): duplicate id"):
        Catalog([course, course])


# --- formats and units (the course's own public outline) --------------------------------------------------

UNITS = [
    {"label": "Week 0", "title": "Scratch", "hours": 6, "kind": "videos"},
    {"label": "Week 1", "title": "C", "hours": 10.5, "kind": "exercises"},
    {"title": "Final Project", "hours": 20, "kind": "project"},
]


def test_units_format_and_syllabus_load_in_order(tmp_path: Path) -> None:
    entry = course_entry(format="video_course", units=UNITS, syllabus_url="https://example.org/syllabus")
    course = Catalog.load(write_catalog(tmp_path, [entry])).courses[0]
    assert course.format == "video_course"
    assert course.syllabus_url == "https://example.org/syllabus"
    assert [unit.display_title for unit in course.units] == ["Week 0 · Scratch", "Week 1 · C", "Final Project"]
    assert [unit.hours for unit in course.units] == [6.0, 10.5, 20.0]
    assert [unit.kind for unit in course.units] == ["videos", "exercises", "project"]
    assert course.unit_hours == 36.5


def test_a_course_without_units_or_format_still_loads(tmp_path: Path) -> None:
    course = Catalog.load(write_catalog(tmp_path, [course_entry()])).courses[0]
    assert (course.format, course.units, course.syllabus_url, course.unit_hours) == (None, (), None, 0)


def with_unit(**changes: Any) -> dict[str, Any]:
    unit = {"title": "Loops", "hours": 3, "kind": "reading", **changes}
    return course_entry("broken", units=[UNITS[0], {k: v for k, v in unit.items() if v is not None}],
                        syllabus_url="https://example.org/outline")  # fmt: skip


@pytest.mark.parametrize(
    ("entry", "problem"),
    [(with_unit(hours=0), "course #2 ('broken'): unit #2 ('Loops'): 'hours' must be a number greater than 0"),
     (with_unit(hours="3h"), "('broken'): unit #2 ('Loops'): 'hours' must be a number"),
     (with_unit(hours=True), "('broken'): unit #2 ('Loops'): 'hours' must be a number"),
     (with_unit(hours=None), "('broken'): unit #2 ('Loops'): 'hours' must be a number"),
     (with_unit(title=" "), "('broken'): unit #2: 'title' must be a non-empty string"),
     (with_unit(title=None), "('broken'): unit #2: 'title' must be a non-empty string"),
     (with_unit(kind="lecture"), "('broken'): unit #2 ('Loops'): unknown kind 'lecture' (expected one of: videos"),
     (with_unit(label=""), "('broken'): unit #2 ('Loops'): 'label' must be a non-empty string"),
     (with_unit(minutes=30), "('broken'): unit #2 ('Loops'): unknown field 'minutes'"),
     (with_unit(title="Loops; Strings"), "('broken'): unit #2 ('Loops; Strings'): 'title' must not contain ';'"),
     (course_entry("broken", units={"title": "x"}, syllabus_url="https://e.org"), "'units' must be a list"),
     (course_entry("broken", units=["Week 1"], syllabus_url="https://e.org"), "unit #1: expected a JSON object"),
     (course_entry("broken", units=UNITS), "('broken'): 'syllabus_url' is required when 'units' are given"),
     (course_entry("broken", units=UNITS, syllabus_url="www.e.org"), "'syllabus_url' must start with https://"),
     (course_entry("broken", format="mooc"), "('broken'): unknown format 'mooc' (expected one of: video_course")],
)  # fmt: skip
def test_malformed_unit_or_format_is_reported_on_one_line(tmp_path: Path, entry: Any, problem: str) -> None:
    path = write_catalog(tmp_path, [course_entry(), entry])
    with pytest.raises(CatalogError) as caught:
        Catalog.load(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ")
    assert problem in message
    assert "\n" not in message


def test_every_shipped_course_has_a_format(shipped: Catalog) -> None:
    assert [course.id for course in shipped if course.format is None] == []


def test_shipped_units_are_well_formed_and_sourced(shipped: Catalog) -> None:
    with_units = [course for course in shipped if course.units]
    assert len(with_units) >= 50
    for course in with_units:
        assert course.syllabus_url and course.syllabus_url.startswith("https://"), course.id
        titles = [unit.display_title for unit in course.units]
        assert len(titles) == len(set(titles)), f"{course.id}: a unit title repeats"
        # The catalog's weeks × hours and the outline's hours describe the same course: they must agree.
        assert 0.75 <= course.unit_hours / course.total_hours <= 1.25, (
            f"{course.id}: units sum to {course.unit_hours:g} h, weeks × hours_per_week is {course.total_hours:g} h"
        )


@pytest.fixture(scope="module")
def eval_goal_courses(shipped: Catalog, tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """The courses the offline engine puts into the plans of the built-in eval goals, each with its goals.

    Read from the plans it writes, so the list follows whatever the engine chooses."""
    offline = ModelSettings(OFFLINE_MODEL, None, None, 0.2, offline=True)
    settings = BatchSettings(today=date(2026, 12, 1), plans_dir=tmp_path_factory.mktemp("plans"), model=offline)
    courses: dict[str, list[str]] = {}
    for goal in default_goals():
        result = run_goal(goal, settings, shipped)
        if result.plan_path is None:
            continue  # the bad inputs get no plan
        plan = parse_plan(Path(result.plan_path).read_text(encoding="utf-8"))
        for course_id in (cid for phase in plan.phases for week in phase.weeks for cid in week.courses):
            courses.setdefault(course_id, [])
            if goal.goal not in courses[course_id]:
                courses[course_id].append(goal.goal)
    return courses


# Courses the offline engine picks for an eval goal whose public outline could not be verified, so they have no
# units (the plan schedules them by their own weeks and says so). Shrink this list; never add a course to it
# without trying to find its outline first.
OUTLINE_NOT_VERIFIED = {
    "ielts-academic-prep": "UQx's module list on edX",
    "upenn-english-career": "the Coursera module titles",
    "japanese-from-zero": "the lesson list of the books",
    "jf-minato-marugoto": "the Minato course's topic list",
}


def test_every_course_picked_for_the_eval_goals_has_units(
    shipped: Catalog, eval_goal_courses: dict[str, list[str]]
) -> None:
    assert len(eval_goal_courses) >= 20  # the goals really produced plans
    without_units = {
        course_id: goals for course_id, goals in eval_goal_courses.items()
        if (course := shipped.get(course_id)) is None or not course.units
    }  # fmt: skip
    assert {cid: goals for cid, goals in without_units.items() if cid not in OUTLINE_NOT_VERIFIED} == {}
    listed = [shipped.get(course_id) for course_id in OUTLINE_NOT_VERIFIED]
    assert [course.id for course in listed if course is not None and course.units] == []  # keep the list current
