"""The composing tool's check of a model's choices against the goal: each problem comes with its fix."""

from __future__ import annotations

from datetime import date

import pytest

from studyplan.domain.catalog import Catalog
from studyplan.planner.choice_review import Choices, read_goal, review_choices

TODAY = date(2026, 12, 1)  # a Tuesday


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load()


def review(catalog: Catalog, goal: str, ids: tuple[str, ...], weeks: int = 12, hours: float = 8,
           start: date = TODAY, lang: str | None = None):
    choices = Choices(ids, weeks, hours, start, lang)  # type: ignore[arg-type]
    return review_choices(choices, read_goal(goal, TODAY), catalog, TODAY)


def test_explicit_weeks_and_hours_win_over_copied_ones(catalog: Catalog) -> None:
    result = review(catalog, "零基础3个月学机器学习，每周6小时", ("py4e", "ml-specialization"), weeks=9, hours=4)
    assert result.ok
    assert (result.weeks, result.hours_per_week) == (13, 6)
    assert any("you gave 9, the goal asks for 13" in item for item in result.adjusted)
    assert any("you gave 4, the goal says 6" in item for item in result.adjusted)


def test_weeks_the_goal_leaves_open_are_the_models(catalog: Catalog) -> None:
    result = review(catalog, "learn SQL", ("cs50-sql",), weeks=8, hours=5)
    assert (result.weeks, result.hours_per_week, result.adjusted) == (8, 5, [])


def test_a_start_in_the_past_is_refused_with_todays_date(catalog: Catalog) -> None:
    result = review(catalog, "learn SQL", ("cs50-sql",), start=date(2024, 9, 2))
    assert not result.ok
    (problem,) = result.problems
    assert "2024-09-02 is in the past" in problem and "today is 2026-12-01 (Tuesday)" in problem
    assert result.start == TODAY  # the corrected call offers a start that is accepted


def test_a_start_copied_from_a_far_future_example_is_refused(catalog: Catalog) -> None:
    result = review(catalog, "learn SQL", ("cs50-sql",), start=date(2031, 3, 10))
    assert not result.ok and "today is 2026-12-01" in result.problems[0]


def test_a_start_the_goal_names_wins(catalog: Catalog) -> None:
    result = review(catalog, "下周一开始，8周学JavaScript", ("cs50-sql",), weeks=8, start=TODAY)
    assert result.start == date(2026, 12, 7)
    assert any("the goal says 2026-12-07" in item for item in result.adjusted)


def test_courses_for_what_the_learner_knows_are_named_with_the_fix(catalog: Catalog) -> None:
    goal = "I know some Python. Help me learn data analysis in 12 weeks, 6 hours a week."
    result = review(catalog, goal, ("py4e", "ms-data-science-for-beginners"), hours=6)
    assert not result.ok
    assert any("[py4e]" in p and "already knows" in p and "leave it out" in p for p in result.problems)
    assert result.suggested_ids == ["ms-data-science-for-beginners"]


def test_a_goal_topic_no_course_covers_names_the_ids_that_do(catalog: Catalog) -> None:
    result = review(catalog, "两个月系统学习SQL和数据库", ("py4e",))
    assert not result.ok
    (problem,) = [p for p in result.problems if "no chosen course covers" in p]
    assert "SQL" in problem and "[cs50-sql]" in problem
    assert "cs50-sql" in result.suggested_ids


def test_a_missing_prerequisite_course_is_added_before_it(catalog: Catalog) -> None:
    result = review(catalog, "零基础学Python", ("py4e-data-structures",))
    assert any("needs [py4e]" in p and "add [py4e] before [py4e-data-structures]" in p for p in result.problems)
    assert result.suggested_ids == ["py4e", "py4e-data-structures"]


def test_chosen_prerequisites_are_moved_before_what_needs_them(catalog: Catalog) -> None:
    result = review(catalog, "零基础学Python", ("py4e-data-structures", "py4e"))
    assert result.ok
    assert [course.id for course in result.courses] == ["py4e", "py4e-data-structures"]


def test_an_invented_id_is_refused_with_the_closest_real_ones(catalog: Catalog) -> None:
    result = review(catalog, "learn python", ("ML101", "ex-rust-1"))
    assert len([p for p in result.problems if "is not a catalog course id" in p]) == 2


def test_courses_far_beyond_the_time_are_composed_with_the_fix_named(catalog: Catalog) -> None:
    result = review(catalog, "零基础3个月学机器学习", ("ibm-data-science", "ml-specialization"))
    assert result.ok
    assert any("compressed" in note and "leave out the least needed course" in note for note in result.notes)


def test_a_beginner_hears_of_the_prerequisite_topics(catalog: Catalog) -> None:
    result = review(catalog, "零基础3个月学机器学习", ("ml-specialization",))
    assert result.ok
    assert any("Python first" in note for note in result.notes)
