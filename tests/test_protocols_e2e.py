"""Text protocol and `auto` runs end to end through the scripted OpenAI-compatible server (issue 3)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from plan_samples import valid_plan
from scripted_server import ScriptedServer, error, reply

from studyplan.cli.exit_codes import EXIT_OK
from studyplan.cli.main import run_cli
from studyplan.domain.catalog import Catalog

TODAY = date(2026, 11, 30)


@pytest.fixture
def run(scripted_server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.chdir(tmp_path)

    def invoke(*args: str) -> tuple[int, str]:
        code = run_cli([*args, "--model", "m", "--base-url", scripted_server.base_url, "--today", "2026-11-30"])
        captured = capsys.readouterr()
        return code, captured.out + captured.err

    return invoke


def save_action(plan: str) -> str:
    return "Thought: 计划完成，保存。\nAction: save_plan\nAction Input: " + json.dumps(
        {"content": plan, "filename": "py.md"}, ensure_ascii=False
    )


def test_text_protocol_recovers_from_two_unparseable_replies(run, scripted_server: ScriptedServer, tmp_path: Path):
    plan = valid_plan(Catalog.load(), TODAY)
    scripted_server.add(
        reply("I think the learner should study Python a lot."),  # no Action, no Final Answer
        reply("Thought: hmm\nAction:"),  # an empty action
        reply("Thought: 先查日期。\nAction: get_current_date()\nObservation: 2025-06-10"),  # invents an observation
        reply("我先查一下课程Action: search_courses('python', '初级')"),
        reply(save_action(plan)),
        reply("Thought: 已保存。\nFinal Answer: 计划已保存到 plans/py.md。"),
    )
    code, out = run("零基础学Python", "--protocol", "text")
    assert code == EXIT_OK
    assert (tmp_path / "plans" / "py.md").exists()
    bodies = scripted_server.bodies
    assert all("tools" not in body for body in bodies)
    assert "Observation:" in bodies[0]["stop"]
    system = bodies[0]["messages"][0]["content"]
    assert "search_courses(topic: string" in system and "Final Answer" in system
    # The format errors went back to the model as reminders and counted as steps.
    assert "could not be used" in bodies[1]["messages"][-1]["content"]
    # The invented observation was dropped: the model sees the real date, not 2025-06-10.
    fourth = bodies[3]["messages"]
    assert fourth[-1]["content"].startswith("Observation: 2026-11-30 (Monday")
    assert "invented Observation dropped" in fourth[-1]["content"]
    assert "2025-06-10" not in fourth[-2]["content"]
    # Positional Chinese arguments were bound and the level alias normalized.
    assert "[py4e]" in bodies[4]["messages"][-1]["content"]
    assert "计划已保存到 plans/py.md。" in out


def test_auto_executes_tool_calls_written_into_content(run, scripted_server: ScriptedServer, tmp_path: Path):
    plan = valid_plan(Catalog.load(), TODAY)
    call = {"name": "save_plan", "arguments": {"content": plan, "filename": "qwen.md"}}
    scripted_server.add(
        reply('<tool_call>\n{"name": "get_current_date", "arguments": {}}\n</tool_call>'),
        reply("Saving now.\n<tool_call>\n" + json.dumps(call, ensure_ascii=False) + "\n</tool_call>"),
        reply("Done: the plan is in plans/qwen.md."),
    )
    code, _ = run("learn python")
    assert code == EXIT_OK
    assert (tmp_path / "plans" / "qwen.md").exists()
    second = scripted_server.bodies[1]["messages"]
    assert second[-2]["tool_calls"][0]["function"]["name"] == "get_current_date"
    assert second[-1]["role"] == "tool" and second[-1]["content"].startswith("2026-11-30")


def test_auto_switches_to_text_when_the_endpoint_rejects_tools(run, scripted_server: ScriptedServer, tmp_path: Path):
    plan = valid_plan(Catalog.load(), TODAY)
    scripted_server.add(
        error(400, "tools is not supported for this model"),
        reply("Thought: need the date\nAction: get_current_date"),
        reply(save_action(plan)),
        reply("Final Answer: saved"),
    )
    code, out = run("learn python")
    assert code == EXIT_OK
    assert "text protocol" in out
    bodies = scripted_server.bodies
    assert "tools" in bodies[0] and all("tools" not in body for body in bodies[1:])
    assert "Action Input" in bodies[1]["messages"][0]["content"]  # the text rules are in the system prompt
    assert (tmp_path / "plans" / "py.md").exists()
