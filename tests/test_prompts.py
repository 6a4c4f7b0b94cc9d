"""Prompts sized for small models, and few-shot examples that cannot be copied into today's run."""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

import pytest
from scripted_model import ScriptedModel

from studyplan.app.plan import make_agent
from studyplan.core.memory import estimate_tokens
from studyplan.core.model import ModelReply
from studyplan.core.react_parser import parse_react
from studyplan.domain.catalog import Catalog
from studyplan.errors import ToolError
from studyplan.planner.context import ToolContext
from studyplan.planner.tools import build_registry
from studyplan.prompts import load_text

TODAY = date(2026, 11, 30)
FEWSHOTS = ["fewshot_en.md", "fewshot_zh.md"]
GOALS = ["零基础3个月学机器学习", "Learn machine learning from scratch in 3 months"]
# The first request's size, in the project's estimate (system prompt, goal and, with tools, their schemas).
LIMITS = {"tools": 900, "text": 1800}


def first_request_tokens(protocol: str, goal: str, tmp_path: Path) -> tuple[int, str]:
    context = ToolContext(today=TODAY, catalog=Catalog.load(), plans_dir=tmp_path, goal=goal)
    model = ScriptedModel([ModelReply("Final Answer: -"), ModelReply("Final Answer: -")])
    list(make_agent(model, context, 8, protocol).run(goal))
    request = model.requests[0]
    tools = request["tools"] or []
    schemas = estimate_tokens([{"role": "system", "content": json.dumps(tools, ensure_ascii=False)}]) if tools else 0
    return estimate_tokens(request["messages"]) + schemas, request["messages"][0]["content"]


@pytest.mark.parametrize("protocol", ["tools", "text"])
@pytest.mark.parametrize("goal", GOALS)
def test_the_first_request_fits_a_small_model(protocol: str, goal: str, tmp_path: Path) -> None:
    tokens, system = first_request_tokens(protocol, goal, tmp_path)
    assert tokens <= LIMITS[protocol]
    # The plan template reaches the model only when it writes Markdown itself (save_plan's refusal).
    assert "<YYYY-MM-DD>" not in system and "## Phase 1" not in system and "## 阶段 1" not in system
    assert "compose_plan" in system and "save_draft" in system


@pytest.mark.parametrize("name", FEWSHOTS)
def test_fewshot_steps_parse_to_the_shortest_run(name: str) -> None:
    text = load_text(name)
    tools = ["get_current_date", "search_courses", "compose_plan", "save_draft", "save_plan"]
    steps = [chunk.split("\nObservation:")[0] for chunk in text.split("\nThought:")[1:]]
    names = []
    for step in steps:
        parsed = parse_react("Thought:" + step, tools)
        assert parsed.error is None, (step, parsed)
        names.append(parsed.action.name if parsed.action else "final")
    assert names == ["get_current_date", "search_courses", "compose_plan", "save_draft", "final"]
    assert "save_plan" not in text  # no stub to copy


@pytest.mark.parametrize("name", FEWSHOTS)
def test_a_fewshot_compose_call_copied_into_todays_run_is_refused(name: str, tmp_path: Path) -> None:
    call = next(line for line in load_text(name).splitlines() if line.startswith("Action: compose_plan("))
    parsed = parse_react(call, ["compose_plan"])
    assert parsed.action is not None
    context = ToolContext(today=TODAY, catalog=Catalog.load(), plans_dir=tmp_path, goal=GOALS[0])
    with pytest.raises(ToolError) as refused:
        build_registry(context).call("compose_plan", dict(parsed.action.kwargs))
    text = str(refused.value)
    assert "is not a catalog course id" in text  # the example's ids
    assert "today is 2026-11-30" in text  # the example's date, far ahead of today
    assert re.search(r"weeks: you gave \d+, the goal asks for 13", text)  # the example's weeks


def test_fewshots_are_in_the_goals_language() -> None:
    assert not re.search(r"[\u4e00-\u9fff]", load_text("fewshot_en.md").split("Final Answer")[0])
    assert "计划已保存到" in load_text("fewshot_zh.md")


@pytest.mark.parametrize(("goal", "example"), [(GOALS[0], "目标：10周学会 Rust"), (GOALS[1], "Goal: Learn Rust")])
def test_the_text_protocol_shows_the_example_in_the_goals_language(goal: str, example: str, tmp_path: Path) -> None:
    _, system = first_request_tokens("text", goal, tmp_path)
    assert example in system
