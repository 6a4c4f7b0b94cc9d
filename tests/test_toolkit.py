"""Tool schemas come from signatures and docstrings; the registry turns misuse into ToolError."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Literal

import pytest

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
