"""Each tool on its own: what the model reads back (the text), what code reads (the data), what save_plan refuses."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from plan_samples import valid_plan

from studyplan.domain.catalog import Catalog
from studyplan.errors import ToolError
from studyplan.planner.context import ToolContext
from studyplan.planner.observations import course_line, search_result
from studyplan.planner.tools import (
    build_registry,
    get_current_date,
    plan_calendar,
    save_plan,
    search_courses,
    write_new_file,
)

TODAY = date(2026, 11, 30)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load()


@pytest.fixture
def ctx(catalog: Catalog, tmp_path: Path) -> ToolContext:
    return ToolContext(today=TODAY, catalog=catalog, plans_dir=tmp_path / "plans")


def test_current_date_has_weekday_and_iso_week(ctx: ToolContext) -> None:
    assert get_current_date(ctx).text == "2026-11-30 (Monday, ISO week 49)"
    assert get_current_date(ctx).data == {"today": "2026-11-30"}
    ctx.today = date(2027, 1, 1)
    assert get_current_date(ctx).text == "2027-01-01 (Friday, ISO week 53)"


def test_calendar_lists_exact_weeks_with_weekdays() -> None:
    result = plan_calendar("2026-12-30", 3)
    assert result.data == {
        "weeks": [["2026-12-30", "2027-01-05"], ["2027-01-06", "2027-01-12"], ["2027-01-13", "2027-01-19"]]
    }
    assert result.text.splitlines() == [
        "Week 1: 2026-12-30 (Wed) – 2027-01-05 (Tue)",
        "Week 2: 2027-01-06 (Wed) – 2027-01-12 (Tue)",
        "Week 3: 2027-01-13 (Wed) – 2027-01-19 (Tue)",
        "The plan runs from 2026-12-30 (Wednesday) to 2027-01-19 (Tuesday).",
    ]
    with pytest.raises(ToolError, match="not a date"):
        plan_calendar("next monday", 3)
    with pytest.raises(ToolError, match="between 1 and"):
        plan_calendar("2026-12-30", 0)


def test_search_matches_chinese_and_english_aliases_and_caps_results(ctx: ToolContext) -> None:
    chinese = search_courses(ctx, "机器学习", "初级")
    english = search_courses(ctx, "machine learning", "beginner")
    assert chinese.text.splitlines()[1:] == english.text.splitlines()[1:]
    assert chinese.data["course_ids"] == english.data["course_ids"]
    assert "[ml-supervised]" in chinese.text and "ml-supervised" in chinese.data["course_ids"]
    python = search_courses(ctx, "python", "beginner")
    assert "showing 8 of 20" in python.text and len(python.data["course_ids"]) == 8 and python.data["total"] == 20
    missing = search_courses(ctx, "量子烹饪")
    assert missing.text.startswith("No course matches topic '量子烹饪'") and "machine_learning" in missing.text
    assert missing.data["course_ids"] == []


@pytest.mark.parametrize(
    ("filename", "reason"),
    [
        ("plan.txt", "must end with .md"),
        ("../plan.md", "plain file name"),
        ("/etc/passwd.md", "plain file name"),
        ("sub/plan.md", "plain file name"),
        (".hidden.md", "plain file name"),
        ("CON.md", "not allowed"),
        ("nul.md", "not allowed"),
        ("a" * 130 + ".md", "too long"),
        ("bad|name.md", "not allowed"),
    ],
)
def test_save_plan_refuses_unsafe_names(ctx: ToolContext, catalog: Catalog, filename: str, reason: str) -> None:
    with pytest.raises(ToolError, match=reason):
        save_plan(ctx, valid_plan(catalog, TODAY), filename)
    assert not ctx.plans_dir.exists() or not any(ctx.plans_dir.iterdir())


def test_save_plan_writes_chinese_names_and_never_overwrites(ctx: ToolContext, catalog: Catalog) -> None:
    plan = valid_plan(catalog, TODAY)
    first = save_plan(ctx, plan, "机器学习计划.md")
    assert first.text == f"Saved plan to {ctx.plans_dir / '机器学习计划.md'}"
    assert first.data == {"path": str((ctx.plans_dir / "机器学习计划.md").resolve())}
    second = save_plan(ctx, plan, "机器学习计划.md")
    assert "机器学习计划-2.md" in second.text and "already existed" in second.text
    assert second.data["path"].endswith("机器学习计划-2.md")
    assert [p.name for p in ctx.saved_plans] == ["机器学习计划.md", "机器学习计划-2.md"]
    assert not list(ctx.plans_dir.glob(".studyplan-*"))  # no temporary file left behind


def test_write_new_file_keeps_existing_content(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("mine")
    path = write_new_file(tmp_path, "a.md", "new")
    assert path.name == "a-2.md" and (tmp_path / "a.md").read_text() == "mine"


def test_schemas_come_from_the_functions(ctx: ToolContext) -> None:
    schemas = {s["function"]["name"]: s["function"] for s in build_registry(ctx).schemas()}
    assert list(schemas) == [
        "get_current_date", "search_courses", "compose_plan", "save_draft", "save_plan"
    ]
    search = schemas["search_courses"]["parameters"]
    assert search["required"] == ["topic"]
    assert search["properties"]["level"]["enum"] == ["beginner", "intermediate", "advanced"]
    assert "ctx" not in search["properties"]
    assert schemas["get_current_date"]["parameters"]["properties"] == {}


# --- observation text -------------------------------------------------------------------------------------


def test_course_line_is_compact_and_complete(catalog: Catalog) -> None:
    course = catalog.get("py4e-data-structures")
    assert course is not None
    line = course_line(course)
    assert "\n" not in line
    for part in ("py4e-data-structures", "Python Data Structures", "beginner", "7 weeks × 2.5 h/week"):
        assert part in line
    assert line.endswith("prerequisites: py4e")


def test_search_result_text_truncates_and_counts(catalog: Catalog) -> None:
    courses = catalog.search("machine_learning", "beginner")
    result = search_result(courses, len(courses), 3, "machine_learning", "beginner", catalog.topics())
    lines = result.text.splitlines()
    total = len(courses)
    assert lines[0] == f"Found {total} courses for 'machine_learning' (beginner); showing 3 of {total}:"
    assert sum(line.startswith("- ") for line in lines) == 3
    assert result.data["course_ids"] == [course.id for course in courses[:3]]  # what code reads, in order
    assert all(f"[{course_id}]" in result.text for course_id in result.data["course_ids"])


def test_search_result_text_when_nothing_matches() -> None:
    result = search_result([], 0, 5, "rust", "beginner", ["python", "english"])
    text = result.text
    assert result.data == {"topic": "rust", "level": "beginner", "total": 0, "course_ids": []}
    assert text.startswith("No course matches topic 'rust' (level beginner).")
    assert "Topics in the catalog: python, english." in text


def test_a_refused_plan_names_its_problems_and_courses_in_data(ctx: ToolContext, catalog: Catalog) -> None:
    invented = valid_plan(catalog, TODAY).replace("[ml-supervised] Supervised", "[deep-magic-101] Magic")
    with pytest.raises(ToolError) as refused:
        save_plan(ctx, invented, "ml.md")
    assert str(refused.value).startswith("plan rejected, nothing was saved")
    problems = refused.value.data["problems"]
    assert problems and all(f"- {problem}" in str(refused.value) for problem in problems)
    # The course each problem is about; the checker's suggestions ([ml-supervised] instead) are not among them.
    assert refused.value.data["course_ids"][0] == "deep-magic-101"
    assert "mit-6-046" not in refused.value.data["course_ids"]
