"""What the 0.5B model did against llama-cpp-python's server, and what now gets it to a saved plan: a search
result that names the next call (it searched again instead), and tool calls written as text in auto mode."""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

import pytest
from scripted_server import ScriptedServer, reply

from studyplan.cli.main import EXIT_OK, run_cli
from studyplan.core.embedded_calls import extract_embedded_calls
from studyplan.domain.document import parse_plan

TODAY = date(2026, 11, 30)  # a Monday
ML_GOAL = "零基础3个月学机器学习"


@pytest.fixture
def cli(scripted_server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.chdir(tmp_path)

    def run(goal: str, *args: str) -> tuple[int, str]:
        code = run_cli([goal, *args, "--model", "small", "--base-url", scripted_server.base_url,
                        "--today", TODAY.isoformat()])
        captured = capsys.readouterr()
        return code, captured.out + captured.err

    return run


def last_message(body: dict) -> str:
    return str(body["messages"][-1]["content"])


def suggested_call(tmp_path: Path) -> str:
    """The call a search for the ML goal suggests, read the way a model reads it: from the observation."""
    from studyplan.domain.catalog import Catalog
    from studyplan.planner.context import ToolContext
    from studyplan.planner.tools import build_registry

    tools = build_registry(ToolContext(today=TODAY, catalog=Catalog.load(), plans_dir=tmp_path / "p", goal=ML_GOAL))
    found = tools.call("search_courses", {"topic": "机器学习", "level": "beginner"}).text
    match = re.search(r"Next: choose ids from this list in study order \(prerequisites first\), e\.g\. "
                      r"(compose_plan\(.*\))$", found)
    assert match, found
    return match.group(1)


def test_a_model_that_searches_again_is_shown_the_compose_call_and_saves(
    cli, scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    suggested = suggested_call(tmp_path)
    assert "weeks=13" in suggested and 'start_date="2026-11-30"' in suggested  # the goal's 3 months, today
    search = 'Thought: 再按学习者的水平查这个主题的课程。\nAction: search_courses(topic="机器学习", level="beginner")'
    scripted_server.add(
        reply("Thought: 先查今天的日期。\nAction: get_current_date()"),
        reply(search),
        reply(search),  # what the 0.5B model did: the few-shot's search Thought, copied once more
        reply(f"Thought: 照提示组合。\nAction: {suggested}"),
        reply('Thought: 保存草稿。\nAction: save_draft(draft_id="draft-1", filename="ml.md")'),
        reply("Thought: 已保存。\nFinal Answer: 计划已保存到 plans/ml.md。"),
    )
    code, out = cli(ML_GOAL, "--protocol", "text")
    assert code == EXIT_OK, out
    assert f"e.g. {suggested}" in last_message(scripted_server.bodies[2])
    repeat = last_message(scripted_server.bodies[3])
    assert "You already called search_courses" in repeat
    assert f"call compose_plan with course ids from your searches, e.g. {suggested}" in repeat
    assert "Draft draft-1 is composed" in last_message(scripted_server.bodies[4])
    plan = parse_plan((tmp_path / "plans" / "ml.md").read_text(encoding="utf-8"))
    assert plan.start == TODAY and len(plan.weeks) == 13


def test_calls_written_as_text_by_a_server_without_function_calling_are_run_in_auto_mode(
    cli, scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    """llama-cpp-python's default chat format returns the model's tool calls as plain content."""

    def tagged(name: str, **arguments: object) -> str:
        payload = json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)
        return f"<tool_call>\n{payload}\n</tool_call>"

    scripted_server.add(
        reply("functions.get_current_date:"),  # what chatml-function-calling's grammar let the model write
        reply(tagged("search_courses", topic="SQL", level="beginner")),
        reply(tagged("compose_plan", course_ids=["cs50-sql"], weeks=9, hours_per_week=5, start_date="2026-11-30")),
        reply(tagged("save_draft", draft_id="draft-1", filename="sql.md")),
        reply("计划已保存到 plans/sql.md。"),
    )
    code, out = cli("两个月系统学习SQL和数据库", "--protocol", "auto")
    assert code == EXIT_OK, out
    assert "2026-11-30 (Monday" in json.dumps(scripted_server.bodies[1]["messages"], ensure_ascii=False)
    plan = parse_plan((tmp_path / "plans" / "sql.md").read_text(encoding="utf-8"))
    assert plan.start == TODAY and plan.resources == ["cs50-sql"]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("functions.get_current_date:", [("get_current_date", {})]),
        ("functions.get_current_date()\n", [("get_current_date", {})]),
        ("functions.get_current_date:\nfunctions.search_courses:", [("get_current_date", {}), ("search_courses", {})]),
        ('functions.search_courses:{"topic": "sql"}', [("search_courses", {"topic": "sql"})]),
        ("First call functions.get_current_date: then search.", []),  # prose mentioning a call is no call
    ],
)
def test_a_bare_functions_line_is_a_call_without_arguments(content: str, expected: list) -> None:
    assert extract_embedded_calls(content) == expected
