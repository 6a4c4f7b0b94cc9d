"""Tool schemas come from signatures and docstrings; the registry turns misuse into ToolError."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Literal

import pytest
from pydantic import ValidationError

from studyplan.core.tools import RunContext, ToolRegistry, ToolResult, parse_docstring, tool_from_function
from studyplan.errors import ToolError


@dataclass
class Context(RunContext):
    today: date


def lookup(
    ctx: Context, topic: str, level: Literal["beginner", "advanced"] | None = None, limit: int = 5
) -> str:
    """Find things about a topic.

    Args:
        topic: What to look up,
            over two lines.
        level: How hard.
        limit: How many.
    """
    return f"{ctx.today} {topic} {level} {limit}"


def test_schema_is_derived_from_signature_and_docstring() -> None:
    tool = tool_from_function(lookup)
    assert tool.name == "lookup"
    assert tool.description == "Find things about a topic."
    props = tool.parameters["properties"]
    assert list(props) == ["topic", "level", "limit"]  # the context parameter is hidden from the model
    assert props["topic"] == {"type": "string", "description": "What to look up, over two lines."}
    assert props["level"]["enum"] == ["beginner", "advanced"]
    assert props["limit"] == {"type": "integer", "description": "How many.", "default": 5}
    assert tool.parameters["required"] == ["topic"]
    assert tool.openai_schema()["function"]["name"] == "lookup"


def test_registry_injects_context_and_reports_unknown_tools() -> None:
    registry = ToolRegistry([tool_from_function(lookup)], Context(date(2026, 11, 30)))
    assert registry.call("lookup", {"topic": "sql"}) == ToolResult("2026-11-30 sql None 5")
    with pytest.raises(ToolError, match=r"no tool named 'delete_everything'.*lookup"):
        registry.call("delete_everything", {})


def test_docstring_without_args_section() -> None:
    assert parse_docstring("Just a line.\n\nAnd more text.") == ("Just a line. And more text.", {})


# --- docstring styles (read by docstring_parser) -------------------------------------------------------------


def google(topic: str, weeks: int = 4) -> str:
    """Plan a topic.

    More words.

    Args:
        topic: The subject,
            on two lines.
        weeks (int): How long.

    Returns:
        Nothing useful.
    """
    return topic


def numpy_style(topic: str, weeks: int = 4) -> str:
    """Plan a topic.

    More words.

    Parameters
    ----------
    topic : str
        The subject,
        on two lines.
    weeks : int
        How long.

    Returns
    -------
    str
    """
    return topic


def rest_style(topic: str, weeks: int = 4) -> str:
    """Plan a topic.

    More words.

    :param topic: The subject,
        on two lines.
    :param int weeks: How long.
    :returns: nothing useful
    """
    return topic


@pytest.mark.parametrize("function", [google, numpy_style, rest_style], ids=["google", "numpy", "rest"])
def test_every_docstring_style_gives_the_same_schema(function) -> None:
    tool = tool_from_function(function)
    assert tool.description == "Plan a topic. More words."
    assert tool.parameters["properties"] == {
        "topic": {"type": "string", "description": "The subject, on two lines."},
        "weeks": {"type": "integer", "description": "How long.", "default": 4},
    }


def test_schema_and_checks_come_from_one_model() -> None:
    tool = tool_from_function(lookup)
    assert tool.arguments_model is not None
    assert set(tool.arguments_model.model_fields) == set(tool.parameters["properties"])
    # The model refuses what the schema does not allow: an unknown name, a value outside the enum.
    with pytest.raises(ValidationError):
        tool.arguments_model.model_validate({"topic": "sql", "colour": "red"})
    with pytest.raises(ValidationError):
        tool.arguments_model.model_validate({"topic": "sql", "level": "expert"})
    assert tool.arguments_model.model_validate({"topic": "sql", "limit": "7"}).model_dump()["limit"] == 7
