"""Folding old steps keeps the prompt inside its budget without losing what the plan needs."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from plan_samples import valid_plan
from scripted_model import ScriptedModel, call

from studyplan.core.agent import Agent, AgentConfig
from studyplan.core.events import ContextFolded, RunFinished
from studyplan.core.memory import SUMMARY_PREFIX, estimate_tokens, fold_history
from studyplan.core.model import ModelReply
from studyplan.domain.catalog import Catalog
from studyplan.planner.context import ToolContext
from studyplan.planner.task import plan_task
from studyplan.planner.tools import build_registry


def conversation(steps: int) -> list[dict]:
    messages = [{"role": "system", "content": "system " * 50}, {"role": "user", "content": "learn python"}]
    for index in range(steps):
        messages.append(
            {
                "role": "assistant",
                "content": f"thinking {index}",
                "tool_calls": [
                    {"id": f"c{index}", "type": "function", "function": {"name": "search_courses", "arguments": "{}"}}
                ],
            }
        )
        messages.append({"role": "tool", "tool_call_id": f"c{index}", "content": f"Found: [course-{index}] x\n" * 40})
    return messages


def test_under_budget_nothing_is_folded() -> None:
    assert fold_history(conversation(2), budget_tokens=100_000) is None


def test_old_steps_fold_into_a_summary_and_recent_steps_stay() -> None:
    messages = conversation(5)
    fold = fold_history(messages, budget_tokens=500, keep_recent_steps=2)
    assert fold is not None
    assert fold.messages[:2] == messages[:2]
    assert fold.messages[2]["content"].startswith(SUMMARY_PREFIX)
    assert fold.messages[3:] == messages[-4:]  # the last two steps, verbatim
    assert fold.folded_messages == 6
    assert "course-0" in fold.summary and "course-2" in fold.summary  # ids survive the fold
    assert fold.tokens_after < fold.tokens_before == estimate_tokens(messages)
    # Every tool message still follows the assistant turn that called it.
    for index, message in enumerate(fold.messages):
        if message["role"] == "tool":
            assert fold.messages[index - 1]["role"] in ("assistant", "tool")
    # Folding again merges the previous summary instead of stacking summaries.
    again = fold_history([*fold.messages, *conversation(7)[-4:]], budget_tokens=300, keep_recent_steps=2)
    assert again is not None
    summaries = [m for m in again.messages if m["content"] and m["content"].startswith(SUMMARY_PREFIX)]
    assert len(summaries) == 1 and "course-0" in summaries[0]["content"]


def test_agent_folds_when_over_budget(tmp_path: Path) -> None:
    catalog = Catalog.load()
    today = date(2026, 11, 30)
    topics = ["python", "sql", "machine learning", "english"]
    replies = [ModelReply(None, [call("search_courses", f"s{i}", topic=t)]) for i, t in enumerate(topics)]
    replies += [
        ModelReply(None, [call("save_plan", "p", content=valid_plan(catalog, today), filename="p.md")]),
        ModelReply("saved"),
    ]
    model = ScriptedModel(replies)
    context = ToolContext(today=today, catalog=catalog, plans_dir=tmp_path)
    base = Agent(model, build_registry(context), plan_task())
    head_tokens = estimate_tokens([{"role": "system", "content": base.system_prompt("learn python")}])
    config = AgentConfig(context_budget_tokens=head_tokens + 600, keep_recent_steps=1)
    agent = Agent(model, build_registry(context), plan_task(), config)
    events = list(agent.run("learn python"))
    folds = [e for e in events if isinstance(e, ContextFolded)]
    assert folds and folds[0].tokens_after < folds[0].tokens_before
    assert isinstance(events[-1], RunFinished) and events[-1].status == "saved"
    last_request = model.requests[-1]["messages"]
    assert any(m["content"] and m["content"].startswith(SUMMARY_PREFIX) for m in last_request)
