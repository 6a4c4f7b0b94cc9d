"""Binding, coercion and validation of tool arguments against schemas built from tool functions."""

from __future__ import annotations

import doctest
from typing import Any, Literal

import pytest

from studyplan.core import arguments
from studyplan.core.arguments import (
    EXTRA_POSITIONAL,
    bind_arguments,
    coerce_arguments,
    describe_parameters,
    parse_json_arguments,
    validate_arguments,
)
from studyplan.core.react_parser import parse_react
from studyplan.core.tools import RunContext, Tool, tool_from_function


class ToolContext(RunContext):
    """Stands for a task's context: hidden from the schema."""


def search_courses(
    ctx: ToolContext, topic: str, level: Literal["beginner", "intermediate", "advanced"] | None = None
) -> str:
    """Search the catalog.

    Args:
        topic: The subject.
        level: Optional difficulty.
    """
    return ""


def plan_calendar(start_date: str, weeks: int) -> str:
    """List the weeks of a plan."""
    return ""


def get_current_date(ctx: ToolContext) -> str:
    """Today's date."""
    return ""


def tag_plan(tags: list[str], public: bool = False, ratio: float = 1.0, extra: dict | None = None) -> str:
    """Tag a plan."""
    return ""


SEARCH = tool_from_function(search_courses)
CALENDAR = tool_from_function(plan_calendar)
DATE = tool_from_function(get_current_date)
TAGS = tool_from_function(tag_plan)

LEVEL_ALIASES = {
    "初级": "beginner",
    "零基础": "beginner",
    "入门": "beginner",
    "中级": "intermediate",
    "高级": "advanced",
}


def level_alias(value: str, allowed: list[str]) -> str | None:
    alias = LEVEL_ALIASES.get(value.strip())
    return alias if alias in allowed else None


def normalize(tool: Tool, args: list[Any], kwargs: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """What the loop does with a text-protocol call."""
    values, problems = coerce_arguments(tool, bind_arguments(tool, args, kwargs), enum_aliases=level_alias)
    return values, problems + validate_arguments(tool, values)


# --- binding ---


def test_positional_values_follow_the_parameter_order() -> None:
    assert bind_arguments(SEARCH, ["机器学习", "初级"], {}) == {"topic": "机器学习", "level": "初级"}


def test_positional_fill_the_parameters_not_given_by_keyword() -> None:
    assert bind_arguments(SEARCH, ["python"], {"level": "beginner"}) == {
        "level": "beginner",
        "topic": "python",
    }


def test_keyword_names_match_ignoring_case_and_separators() -> None:
    assert bind_arguments(CALENDAR, [], {"Start-Date": "2025-03-03", "WEEKS": 4}) == {
        "start_date": "2025-03-03",
        "weeks": 4,
    }


def test_too_many_positional_values_are_kept_for_validation() -> None:
    values = bind_arguments(SEARCH, ["python", "beginner", "fast"], {})
    assert values[EXTRA_POSITIONAL] == ["fast"]
    problems = validate_arguments(SEARCH, values)
    assert len(problems) == 1 and "too many" in problems[0] and "topic: string" in problems[0]


def test_a_description_given_to_a_tool_without_parameters_is_ignored() -> None:
    assert bind_arguments(DATE, ["no input needed"], {}) == {}
    assert validate_arguments(DATE, {}) == []


# --- the example, end to end from the text reply ---


def test_search_courses_with_chinese_positional_level() -> None:
    parsed = parse_react("Action: search_courses('机器学习', '初级')")
    assert parsed.action is not None
    values, problems = normalize(SEARCH, parsed.action.args, parsed.action.kwargs)
    assert (values, problems) == ({"topic": "机器学习", "level": "beginner"}, [])


def test_plan_calendar_with_string_weeks() -> None:
    parsed = parse_react("Action: plan_calendar('2025-03-03', '12')")
    assert parsed.action is not None
    assert normalize(CALENDAR, parsed.action.args, parsed.action.kwargs) == (
        {"start_date": "2025-03-03", "weeks": 12},
        [],
    )


# --- coercion ---


@pytest.mark.parametrize(
    ("schema", "given", "expected"),
    [
        (CALENDAR, {"weeks": "3"}, {"weeks": 3}),
        (CALENDAR, {"weeks": " 12 "}, {"weeks": 12}),
        (CALENDAR, {"weeks": 8.0}, {"weeks": 8}),
        (CALENDAR, {"start_date": 20250303}, {"start_date": "20250303"}),
        (SEARCH, {"topic": 3}, {"topic": "3"}),
        (TAGS, {"public": "true"}, {"public": True}),
        (TAGS, {"public": "no"}, {"public": False}),
        (TAGS, {"public": 1}, {"public": True}),
        (TAGS, {"ratio": "0.5"}, {"ratio": 0.5}),
        (TAGS, {"ratio": 2}, {"ratio": 2}),
        (TAGS, {"tags": '["python", "sql"]'}, {"tags": ["python", "sql"]}),
        (TAGS, {"tags": ("a", 1)}, {"tags": ["a", "1"]}),
        (TAGS, {"extra": '{"a": 1}'}, {"extra": {"a": 1}}),
        (SEARCH, {"level": "Beginner"}, {"level": "beginner"}),
        (SEARCH, {"level": " ADVANCED "}, {"level": "advanced"}),
        (SEARCH, {"level": "零基础"}, {"level": "beginner"}),
        (SEARCH, {"topic": "sql", "level": None}, {"topic": "sql"}),
    ],
)
def test_coercion(schema: Tool, given: dict[str, Any], expected: dict[str, Any]) -> None:
    assert coerce_arguments(schema, given, enum_aliases=level_alias) == (expected, [])


@pytest.mark.parametrize(
    ("schema", "given", "mentions"),
    [
        (CALENDAR, {"weeks": "twelve"}, "argument 'weeks' must be an integer, not \"twelve\""),
        (CALENDAR, {"weeks": "2.5"}, "argument 'weeks' must be an integer"),
        (CALENDAR, {"weeks": True}, "argument 'weeks' must be an integer, not true"),
        (TAGS, {"public": "maybe"}, "argument 'public' must be a boolean"),
        (TAGS, {"tags": "python"}, "argument 'tags' must be a list of string"),
        (SEARCH, {"topic": ["a"]}, "argument 'topic' must be a string"),
        (
            SEARCH,
            {"level": "expert"},
            "argument 'level' must be one of beginner|intermediate|advanced, not \"expert\"",
        ),
    ],
)
def test_values_that_cannot_be_coerced_are_reported_and_kept(
    schema: Tool, given: dict[str, Any], mentions: str
) -> None:
    values, problems = coerce_arguments(schema, given, enum_aliases=level_alias)
    assert values == given
    assert len(problems) == 1 and mentions in problems[0]


def test_enum_without_alias_hook_only_matches_case() -> None:
    assert coerce_arguments(SEARCH, {"level": "初级"})[1] != []
    assert coerce_arguments(SEARCH, {"level": "Intermediate"}) == ({"level": "intermediate"}, [])


def test_alias_hook_answer_outside_the_enum_is_not_trusted() -> None:
    values, problems = coerce_arguments(
        SEARCH, {"level": "初级"}, enum_aliases=lambda value, allowed: "expert"
    )
    assert values == {"level": "初级"} and problems


def test_unknown_arguments_are_left_for_validation() -> None:
    assert coerce_arguments(SEARCH, {"topic": "sql", "lang": 3}) == ({"topic": "sql", "lang": 3}, [])


# --- validation messages ---


def test_missing_required_argument_names_the_field_and_the_parameters() -> None:
    assert validate_arguments(SEARCH, {"level": "beginner"}, tool_name="search_courses") == [
        "missing required argument 'topic'; search_courses expects "
        "(topic: string, level: one of beginner|intermediate|advanced = optional)"
    ]


def test_unknown_argument() -> None:
    problems = validate_arguments(SEARCH, {"topic": "sql", "language": "zh"})
    assert problems == [
        "unknown argument 'language'; "
        "expected (topic: string, level: one of beginner|intermediate|advanced = optional)"
    ]


def test_wrong_type_and_outside_enum() -> None:
    problems = validate_arguments(CALENDAR, {"start_date": "2025-03-03", "weeks": "12"})
    assert problems == [
        "argument 'weeks' must be an integer, not \"12\"; expected (start_date: string, weeks: integer)"
    ]
    assert (
        "must be one of beginner|intermediate|advanced"
        in validate_arguments(SEARCH, {"topic": "x", "level": "pro"})[0]
    )


def test_valid_arguments_have_no_problems() -> None:
    assert validate_arguments(SEARCH, {"topic": "sql", "level": "beginner"}) == []
    assert validate_arguments(TAGS, {"tags": ["a"], "public": True, "ratio": 2}) == []


def test_describe_parameters_shows_defaults_and_list_types() -> None:
    assert describe_parameters(TAGS.parameters) == (
        "(tags: list of string, public: boolean = false, ratio: number = 1.0, extra: object = optional)"
    )


# --- JSON arguments of native tool calls ---


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"topic": "python"}', {"topic": "python"}),
        ('{"topic": "python",}', {"topic": "python"}),
        ("{'topic': 'python'}", {"topic": "python"}),
        ('```json\n{"topic": "python"}\n```', {"topic": "python"}),
        ('{"topic": "python"} // search', {"topic": "python"}),
        ('"{\\"topic\\": \\"python\\"}"', {"topic": "python"}),
        ("{}", {}),
        ("", {}),
    ],
)
def test_parse_json_arguments_accepts_and_repairs(raw: str, expected: dict[str, Any]) -> None:
    assert parse_json_arguments(raw) == (expected, None)


@pytest.mark.parametrize("raw", ["garbage", "{", "topic=python", "[1, 2]", "42", '"python"'])
def test_parse_json_arguments_rejects_what_it_cannot_repair_unambiguously(raw: str) -> None:
    arguments, error = parse_json_arguments(raw)
    assert arguments is None
    assert error is not None and "JSON" in error


def test_docstring_examples_hold() -> None:
    results = doctest.testmod(arguments)
    assert results.failed == 0 and results.attempted >= 5
