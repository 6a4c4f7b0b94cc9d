"""The loop's own rules, with the task given to it: snapshots of each request, repeats of failed calls answered
from memory, reminders that name what is missing, and a task the loop knows nothing about."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from scripted_model import ScriptedModel, call

from studyplan.core.agent import Agent, AgentConfig
from studyplan.core.events import Action, ModelCallFinished, ModelCallStarted, Notice, Observation, RunFinished
from studyplan.core.journal import Journal, ToolResult
from studyplan.core.model import ModelReply
from studyplan.core.task import AgentTask
from studyplan.core.tools import ToolRegistry, tool_from_function
from studyplan.domain.catalog import Catalog
from studyplan.planner.context import ToolContext
from studyplan.planner.task import missing_for_plan, plan_task
from studyplan.planner.tools import build_registry

TODAY = date(2026, 11, 30)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load()


def planning_agent(catalog: Catalog, tmp_path: Path, replies: list[ModelReply]) -> tuple[Agent, ScriptedModel]:
    model = ScriptedModel(replies)
    context = ToolContext(today=TODAY, catalog=catalog, plans_dir=tmp_path / "plans")
    return Agent(model, build_registry(context), plan_task(), AgentConfig(max_steps=6)), model


# --- events are snapshots --------------------------------------------------------------------------------


def test_each_model_call_event_keeps_the_messages_of_its_own_step(catalog: Catalog, tmp_path: Path) -> None:
    agent, model = planning_agent(
        catalog,
        tmp_path,
        [
            ModelReply("date first", [call("get_current_date", "c1")]),
            ModelReply(None, [call("search_courses", "c2", topic="python")]),
            ModelReply("no plan yet"),
            ModelReply("still no plan"),
        ],
    )
    events = list(agent.run("learn python"))
    started = [event for event in events if isinstance(event, ModelCallStarted)]
    assert [event.step for event in started] == [1, 2, 3, 4]
    # What each event holds is what the model was sent at that step, not the history as it ended.
    assert [list(event.messages) for event in started] == [request["messages"] for request in model.requests]
    assert [len(event.messages) for event in started] == [2, 4, 6, 8]
    assert all(isinstance(event.messages, tuple) for event in started)
    assert started[0].messages[-1] == {"role": "user", "content": "learn python"}


# --- repeats of failed calls -----------------------------------------------------------------------------


def test_a_failed_call_repeated_is_answered_from_memory_and_two_repeats_end_the_run(
    catalog: Catalog, tmp_path: Path
) -> None:
    same = call("save_plan", "x", content="# My plan", filename="../next-monday.md")
    agent, _ = planning_agent(catalog, tmp_path, [ModelReply(None, [same]) for _ in range(3)])
    events = list(agent.run("learn python"))
    observations = [e for e in events if isinstance(e, Observation)]
    assert [o.failure for o in observations] == ["refused", "repeated", "repeated"]
    assert "plain file name" in observations[0].text
    # The repeat says it failed before and why, and what the run still needs.
    assert "already called save_plan with exactly these arguments (step 1) and it failed" in observations[1].text
    assert "plain file name" in observations[1].text
    assert "today's date: call get_current_date" in observations[1].text
    journal = agent.registry.journal
    assert [entry.failure for entry in journal.of("save_plan")] == ["refused", "repeated", "repeated"]
    finished = events[-1]
    assert isinstance(finished, RunFinished) and finished.status == "repeated_calls" and finished.steps == 3
    assert "save_plan(" in finished.detail and "next-monday.md" in finished.detail
    stop = next(e for e in events if isinstance(e, Notice) and e.code == "repeated_calls")
    assert "save_plan(" in stop.text


def test_a_different_call_between_repeats_resets_the_count(catalog: Catalog, tmp_path: Path) -> None:
    bad = call("save_plan", "x", content="# My plan", filename="plan.txt")
    agent, _ = planning_agent(
        catalog,
        tmp_path,
        [
            ModelReply(None, [bad]),
            ModelReply(None, [bad]),
            ModelReply(None, [call("get_current_date", "d")]),
            ModelReply(None, [bad]),
            ModelReply("I give up."),
            ModelReply("Really."),
        ],
    )
    finished = list(agent.run("learn python"))[-1]
    assert isinstance(finished, RunFinished) and finished.status == "no_plan"


# --- reminders that name what is missing -------------------------------------------------------------------


def test_the_reminder_after_an_early_answer_names_the_missing_steps(catalog: Catalog, tmp_path: Path) -> None:
    agent, model = planning_agent(
        catalog,
        tmp_path,
        [
            ModelReply(None, [call("get_current_date", "c1")]),
            ModelReply("Here is your plan: week 1 Python, week 2 statistics."),
            ModelReply("Still the plan."),
        ],
    )
    list(agent.run("零基础学机器学习和Python"))
    reminder = model.requests[2]["messages"][-1]["content"]
    assert "get_current_date" not in reminder  # the date was asked for
    assert "no course searched yet for 机器学习" in reminder and 'search_courses(topic="Python")' in reminder
    assert "no plan composed yet: call compose_plan" in reminder


def test_missing_for_plan_reads_the_journal(catalog: Catalog, tmp_path: Path) -> None:
    registry = build_registry(ToolContext(today=TODAY, catalog=catalog, plans_dir=tmp_path))
    goal = "learn machine learning"
    assert missing_for_plan(goal, registry.journal)[0] == "today's date: call get_current_date"
    registry.execute(1, "a", "get_current_date", {})
    registry.execute(2, "b", "search_courses", {"topic": "ML"})  # an alias of the goal's topic counts
    assert missing_for_plan(goal, registry.journal) == [
        "no plan composed yet: call compose_plan with course ids from your searches"
    ]


# --- a task the loop knows nothing about ---------------------------------------------------------------------


def shout(text: str) -> ToolResult:
    """Say something loudly.

    Args:
        text: What to say.
    """
    return ToolResult(text.upper(), {"said": text})


def test_the_prompt_done_rule_and_outputs_come_from_the_task() -> None:
    def done(journal: Journal) -> bool:
        return any(entry.result.data.get("said") == "hello" for entry in journal.succeeded("shout"))

    task = AgentTask(
        instructions=lambda goal, max_steps: f"You shout. Goal: {goal}. Steps: {max_steps}.",
        is_done=done,
        outputs=lambda journal: [Path(f"/tmp/{len(journal)}")],
        examples=lambda goal, protocol: f"Example for {protocol}.",
        reminders={"not_done": "Shout hello first."},
    )
    model = ScriptedModel(
        [ModelReply("Done."), ModelReply(None, [call("shout", "s", text="hello")]), ModelReply("Shouted.")]
    )
    agent = Agent(model, ToolRegistry([tool_from_function(shout)]), task, AgentConfig(max_steps=3))
    events = list(agent.run("greet"))
    assert model.requests[0]["messages"][0]["content"] == "You shout. Goal: greet. Steps: 3.\n\nExample for tools."
    assert model.requests[1]["messages"][-1]["content"] == "Shout hello first."
    finished = events[-1]
    assert isinstance(finished, RunFinished) and finished.status == "saved" and finished.steps == 3
    assert finished.plan_path == Path("/tmp/1")


# --- a huge model output is never resent whole ---------------------------------------------------------------


def test_huge_arguments_are_refused_and_never_resent(catalog: Catalog, tmp_path: Path) -> None:
    huge = "x" * 300_000
    agent, model = planning_agent(
        catalog,
        tmp_path,
        [
            ModelReply(None, [call("save_plan", "big", content=huge, filename="ml.md")]),
            ModelReply(None, [call("get_current_date", "d")]),
            ModelReply("No plan."),
            ModelReply("Still none."),
        ],
    )
    events = list(agent.run("learn python"))
    refused = next(e for e in events if isinstance(e, Observation) and e.call_id == "big")
    assert refused.failure == "too_long" and "over the limit of 200,000" in refused.text
    assert not (tmp_path / "plans").exists()  # nothing was run
    # No later request carries the arguments again: each stays far below their size.
    assert all(len(json.dumps(request["messages"])) < 50_000 for request in model.requests[1:])
    assert model.requests[1]["messages"][2]["tool_calls"][0]["function"]["arguments"] == "{}"
    # The events (what the trace writes) hold a bounded copy.
    finished = [e for e in events if isinstance(e, ModelCallFinished)]
    assert len(finished[0].reply["tool_calls"][0]["function"]["arguments"]) < 201_000
    assert next(e for e in events if isinstance(e, Action) and e.call_id == "big").arguments == {}


def test_a_huge_reply_is_cut_with_a_note(catalog: Catalog, tmp_path: Path) -> None:
    agent, model = planning_agent(
        catalog, tmp_path, [ModelReply("y" * 250_000), ModelReply("Sorry, no plan.")]
    )
    events = list(agent.run("learn python"))
    kept = model.requests[1]["messages"][2]["content"]
    assert kept.startswith("y" * 1000) and len(kept) < 200_100 and "50000 more characters left out" in kept
    assert any(isinstance(e, Notice) and e.code == "reply_cut" for e in events)
    finished = [e for e in events if isinstance(e, ModelCallFinished)]
    assert len(finished[0].reply["content"]) < 200_100
