"""Histories every OpenAI-compatible server accepts: the strict request schema the scripted server applies to
every request, and whole runs (tools, text, folded history, embedded calls) that keep to it."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from plan_samples import valid_plan
from request_schema import request_problems
from scripted_server import ScriptedServer, call, reply

from studyplan.core.agent import Agent, AgentConfig
from studyplan.core.encoding import NativeToolsProtocol
from studyplan.core.events import ContextFolded, RunFinished
from studyplan.core.model import ModelReply, ToolCall
from studyplan.core.text_encoding import TextProtocol
from studyplan.domain.catalog import Catalog
from studyplan.llm.openai_model import OpenAIChatModel
from studyplan.planner.context import ToolContext
from studyplan.planner.task import plan_task
from studyplan.planner.tools import build_registry

TODAY = date(2026, 11, 30)
SYSTEM = {"role": "system", "content": "plan"}
USER = {"role": "user", "content": "learn sql"}
CALLED = {
    "role": "assistant",
    "content": "",
    "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_current_date", "arguments": "{}"}}],
}
ANSWERED = {"role": "tool", "tool_call_id": "c1", "content": "2026-11-30"}


def body(*messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"model": "m", "messages": list(messages), **extra}


def test_a_valid_history_passes() -> None:
    assert request_problems(body(SYSTEM, USER, CALLED, ANSWERED, tools=[_tool("get_current_date")])) == []


@pytest.mark.parametrize(
    ("messages", "needle"),
    [
        ([SYSTEM, USER, {**CALLED, "content": None}, ANSWERED], "messages.2.assistant.content"),
        ([SYSTEM, USER, {"role": "assistant"}], "messages.2.assistant.content"),
        ([SYSTEM, {"role": "human", "content": "hi"}], "messages.1"),
        ([SYSTEM, USER, CALLED], "never answered"),
        ([SYSTEM, USER, CALLED, {**ANSWERED, "tool_call_id": "c9"}], "answers no open tool call"),
        ([SYSTEM, USER, _called := {**CALLED, "tool_calls": [{**CALLED["tool_calls"][0], "type": "fn"}]}, ANSWERED],
         "type"),
        ([SYSTEM, USER, {**CALLED, "tool_calls": [{"id": "c1", "type": "function",
                                                   "function": {"name": "f", "arguments": "not json"}}]}, ANSWERED],
         "JSON object"),
        ([SYSTEM, {"role": "user", "content": [{"type": "text", "text": "hi"}]}], "messages.1.user.content"),
    ],
)
def test_what_a_strict_server_refuses(messages: list[dict[str, Any]], needle: str) -> None:
    problems = request_problems(body(*messages, tools=[_tool("get_current_date"), _tool("f")]))
    assert problems and any(needle in problem for problem in problems), problems


def test_tool_calls_without_tools_are_refused() -> None:
    assert any("without tools" in p for p in request_problems(body(SYSTEM, USER, CALLED, ANSWERED)))


def test_a_reply_with_calls_only_is_remembered_with_an_empty_string() -> None:
    message = ModelReply(None, [ToolCall("c1", "get_current_date", "{}")]).to_message()
    assert message["content"] == ""


def _tool(name: str) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": "", "parameters": {"type": "object"}}}


# --- whole runs, every request checked by the scripted server's schema (the fixture fails on any refusal) ---


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load()


def run_against(server: ScriptedServer, catalog: Catalog, tmp_path: Path, text: bool, budget: int) -> list[Any]:
    model = OpenAIChatModel("m", "sk-test", base_url=server.base_url, max_retries=0)
    context = ToolContext(today=TODAY, catalog=catalog, plans_dir=tmp_path / "plans")
    protocol = TextProtocol() if text else NativeToolsProtocol()
    config = AgentConfig(max_steps=6, context_budget_tokens=budget, keep_recent_steps=1)
    return list(Agent(model, build_registry(context), plan_task(), config, protocol).run("零基础学机器学习"))


def test_a_folded_tools_history_is_still_valid(
    scripted_server: ScriptedServer, catalog: Catalog, tmp_path: Path
) -> None:
    plan = valid_plan(catalog, TODAY)
    scripted_server.add(
        reply(None, [call("get_current_date", "c1")]),
        reply("两个查询。", [call("search_courses", "c2", topic="机器学习"), call("search_courses", "c3", topic="py")]),
        reply(None, [call("save_plan", "c4", content=plan, filename="ml.md")]),
        reply("已保存。"),
    )
    events = run_against(scripted_server, catalog, tmp_path, text=False, budget=1200)
    assert any(isinstance(event, ContextFolded) for event in events)
    assert isinstance(events[-1], RunFinished) and events[-1].status == "saved"
    assert len(scripted_server.bodies) == 4 and not scripted_server.invalid
    assert all(isinstance(m["content"], str) for b in scripted_server.bodies for m in b["messages"])
    # The ids and names of the calls are sent back exactly as the model gave them.
    last = scripted_server.bodies[-1]["messages"]
    sent = [c["id"] for m in last if m.get("tool_calls") for c in m["tool_calls"]]
    assert sent and set(sent) <= {"c1", "c2", "c3", "c4"}


def test_a_folded_text_history_is_still_valid(
    scripted_server: ScriptedServer, catalog: Catalog, tmp_path: Path
) -> None:
    plan = valid_plan(catalog, TODAY)
    save = json.dumps({"content": plan, "filename": "ml.md"}, ensure_ascii=False)
    scripted_server.add(
        reply("Thought: 先要日期。\nAction: get_current_date()"),
        reply('Thought: 搜索。\nAction: search_courses(topic="机器学习")'),
        reply('Thought: 再搜。\nAction: search_courses(topic="python")'),
        reply(f"Thought: 保存。\nAction: save_plan\nAction Input: {save}"),
        reply("Thought: 完成。\nFinal Answer: 已保存。"),
    )
    events = run_against(scripted_server, catalog, tmp_path, text=True, budget=1800)
    assert any(isinstance(event, ContextFolded) for event in events)
    assert isinstance(events[-1], RunFinished) and events[-1].status == "saved"
    assert all("tools" not in b for b in scripted_server.bodies) and not scripted_server.invalid
