"""The ReAct loop as a library: events, message history, and how it handles tools that go wrong."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from plan_samples import valid_plan
from scripted_model import ScriptedModel, call

from studyplan.core.agent import Agent, AgentConfig
from studyplan.core.events import Action, FinalAnswer, Notice, Observation, RunFinished, Thought
from studyplan.core.model import ModelReply
from studyplan.domain.catalog import Catalog
from studyplan.planner.context import ToolContext
from studyplan.planner.task import plan_task
from studyplan.planner.tools import build_registry

TODAY = date(2026, 11, 30)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load()


def make_agent(
    catalog: Catalog, tmp_path: Path, replies: list[ModelReply], max_steps: int = 8
) -> tuple[Agent, ScriptedModel]:
    model = ScriptedModel(replies)
    context = ToolContext(today=TODAY, catalog=catalog, plans_dir=tmp_path / "plans")
    return Agent(model, build_registry(context), plan_task(), AgentConfig(max_steps=max_steps)), model


def test_full_trajectory_with_parallel_calls(catalog: Catalog, tmp_path: Path) -> None:
    plan = valid_plan(catalog, TODAY)
    agent, model = make_agent(
        catalog,
        tmp_path,
        [
            ModelReply("I need today's date first.", [call("get_current_date", "c1")]),
            ModelReply(
                "Beginner: search ML and its prerequisites.",
                [
                    call("search_courses", "c2", topic="机器学习", level="初级"),
                    call("search_courses", "c3", topic="python", level="beginner"),
                ],
            ),
            ModelReply("Saving.", [call("save_plan", "c5", content=plan, filename="ml.md")]),
            ModelReply("Your 6-week plan is saved."),
        ],
    )
    events = list(agent.run("零基础学机器学习"))
    finished = events[-1]
    assert isinstance(finished, RunFinished)
    assert finished.status == "saved" and finished.steps == 4
    assert finished.plan_path == (tmp_path / "plans" / "ml.md").resolve()
    assert finished.plan_path.read_text(encoding="utf-8").startswith("# ")
    assert finished.summary == "Your 6-week plan is saved."
    assert finished.usage.prompt_tokens == 400  # the scripted model reports 100 per call

    observations = [e for e in events if isinstance(e, Observation)]
    assert [o.tool for o in observations] == [
        "get_current_date",
        "search_courses",
        "search_courses",
        "save_plan",
    ]
    assert all(o.ok for o in observations)
    assert observations[0].text == "2026-11-30 (Monday, ISO week 49)"
    assert "[ml-supervised]" in observations[1].text
    assert next(e.text for e in events if isinstance(e, Thought)) == "I need today's date first."
    assert isinstance(events[-2], FinalAnswer)
    # The level alias 初级 was normalized before the tool ran.
    actions = [e for e in events if isinstance(e, Action)]
    assert actions[1].arguments == {"topic": "机器学习", "level": "beginner"}

    # History: each assistant turn with tool_calls is followed by one tool message per call id.
    messages = model.requests[2]["messages"]
    assert [m["role"] for m in messages] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "tool",
    ]
    assert [m["tool_call_id"] for m in messages[-2:]] == ["c2", "c3"]
    assert messages[4]["tool_calls"][1]["id"] == "c3"
    assert model.requests[0]["tools"][0]["function"]["name"] == "get_current_date"


def test_tool_failures_become_observations(catalog: Catalog, tmp_path: Path) -> None:
    agent, _ = make_agent(
        catalog,
        tmp_path,
        [
            ModelReply(None, [call("delete_files", "a")]),
            ModelReply(None, [call("search_courses", "b", level="beginner")]),
            ModelReply(None, [call("compose_plan", "c", course_ids=["py4e"], weeks=4, hours_per_week=5,
                                   start_date="next monday")]),
            ModelReply(
                None,
                [
                    ModelReply(None).tool_calls
                    or __import__("studyplan.core.model", fromlist=["ToolCall"]).ToolCall(
                        "d", "search_courses", "{topic: 'python',}"
                    )
                ],
            ),
            ModelReply("done"),
            ModelReply("still done"),
        ],
    )
    events = list(agent.run("learn python"))
    observations = [e for e in events if isinstance(e, Observation)]
    assert "no tool named 'delete_files'" in observations[0].text and not observations[0].ok
    assert "missing required argument 'topic'" in observations[1].text
    assert "start_date 'next monday' is not a date" in observations[2].text
    assert observations[3].ok and "[py4e]" in observations[3].text  # repaired JSON arguments
    finished = events[-1]
    assert isinstance(finished, RunFinished) and finished.status == "no_plan"
    assert any(isinstance(e, Notice) and e.code == "answer_not_done" and "answered before" in e.text for e in events)
    assert not (tmp_path / "plans").exists() or not list((tmp_path / "plans").iterdir())


def test_repeated_calls_are_not_run_again_and_end_the_run(catalog: Catalog, tmp_path: Path) -> None:
    same = call("search_courses", "x", topic="python")
    agent, _ = make_agent(
        catalog, tmp_path, [ModelReply(None, [same]), ModelReply(None, [same]), ModelReply(None, [same])]
    )
    events = list(agent.run("learn python"))
    observations = [e for e in events if isinstance(e, Observation)]
    assert "already called search_courses" in observations[1].text
    finished = events[-1]
    assert isinstance(finished, RunFinished) and finished.status == "repeated_calls" and finished.steps == 3


def test_step_limit_asks_for_a_last_answer(catalog: Catalog, tmp_path: Path) -> None:
    agent, model = make_agent(
        catalog,
        tmp_path,
        [
            ModelReply(None, [call("get_current_date", "1")]),
            ModelReply(None, [call("search_courses", "2", topic="sql")]),
            ModelReply("I could not finish the plan."),
        ],
        max_steps=2,
    )
    events = list(agent.run("learn SQL"))
    finished = events[-1]
    assert isinstance(finished, RunFinished) and finished.status == "step_limit" and finished.steps == 3
    assert "step limit" in model.requests[-1]["messages"][-1]["content"]
    assert any(isinstance(e, Notice) and "step limit" in e.text for e in events)


def test_rejected_plan_is_not_written(catalog: Catalog, tmp_path: Path) -> None:
    bad = valid_plan(catalog, TODAY).replace("[cs50p] CS50", "[magic-ml-101] Magic")
    agent, _ = make_agent(
        catalog,
        tmp_path,
        [
            ModelReply(None, [call("save_plan", "s", content=bad, filename="../escape.md")]),
            ModelReply(None, [call("save_plan", "t", content=bad, filename="ok.md")]),
            ModelReply(None, [call("save_plan", "u", content=valid_plan(catalog, TODAY), filename="ok.md")]),
            ModelReply("saved"),
        ],
    )
    events = list(agent.run("learn python"))
    observations = [e for e in events if isinstance(e, Observation)]
    assert "plain file name" in observations[0].text and not observations[0].ok
    assert "magic-ml-101" in observations[1].text and "nothing was saved" in observations[1].text
    assert observations[2].ok
    assert not (tmp_path / "escape.md").exists()
    assert sorted(p.name for p in (tmp_path / "plans").iterdir()) == ["ok.md"]


def test_a_saved_plan_is_stubbed_in_the_history_but_a_rejected_one_is_kept(catalog: Catalog, tmp_path: Path) -> None:
    good = valid_plan(catalog, TODAY)
    bad = good.replace("[cs50p] CS50", "[magic-ml-101] Magic")
    agent, model = make_agent(
        catalog,
        tmp_path,
        [
            ModelReply(None, [call("save_plan", "a", content=bad, filename="p.md")]),
            ModelReply(None, [call("save_plan", "b", content=good, filename="p.md")]),
            ModelReply("saved"),
        ],
    )
    events = list(agent.run("learn python"))
    assert isinstance(events[-1], RunFinished) and events[-1].status == "saved"
    history = model.requests[-1]["messages"]
    rejected, saved = (m["tool_calls"][0]["function"]["arguments"] for m in history if m.get("tool_calls"))
    assert "magic-ml-101" in rejected  # the model may need its rejected plan to fix it
    assert "left out of the history after save_plan succeeded" in saved and "# " not in saved
    # The event stream (and so the trace) still has the full plan.
    actions = [e for e in events if isinstance(e, Action)]
    assert actions[1].arguments["content"] == good
