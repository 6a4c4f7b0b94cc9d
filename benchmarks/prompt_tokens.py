"""Prompt tokens per plan for one scripted trajectory: this agent against the first article's naive loop.

The trajectory is the offline planner's for each goal below (date, search, prerequisite searches, calendar,
save, answer), recorded through the agent and replayed through the naive loop with the same calls and the same
system prompt and tool schemas. The naive loop sends the full history every round and its observations are the
raw tool results, `str()` of every matching course record, as in the article; the agent sends what its protocol
and memory folding leave (readable observation lines, at most 8 courses a search). Tokens are estimated without a
tokenizer (studyplan.core.memory.estimate_tokens: ~4 ASCII characters or 1 CJK character per token), identically for
both, and summed over the rounds: what a plan costs in prompt tokens.
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
from datetime import date
from pathlib import Path
from typing import Any

from _support import Figure, print_figures
from loop_overhead import TimedModel

from studyplan.core.agent import Agent, AgentConfig
from studyplan.core.events import ModelCallStarted
from studyplan.core.memory import estimate_tokens
from studyplan.domain.catalog import Catalog
from studyplan.planner.context import ToolContext
from studyplan.planner.offline_planner import OfflinePlanner
from studyplan.planner.task import plan_task
from studyplan.planner.tools import build_registry, get_current_date, plan_calendar

GOALS = {  # label: goal
    "zh ML beginner": "零基础3个月学机器学习",
    "en back-end intermediate": "Learn web back-end development in 5 months, intermediate level",
}
TODAY = date(2026, 11, 30)
TARGET = 0.6
FIRST_REQUEST_TARGETS = {"tools": 900, "text": 1800}  # what a small local model prefills before its first word


def schema_tokens(schemas: list[dict[str, Any]]) -> int:
    return estimate_tokens([{"role": "system", "content": json.dumps(schemas, ensure_ascii=False)}])


def naive_result(name: str, arguments: dict[str, Any], context: ToolContext) -> str:
    """The article's tool results: raw Python data turned into text with str()."""
    if name == "get_current_date":
        return get_current_date(context).text
    if name == "search_courses":
        found = context.catalog.search(arguments["topic"], arguments.get("level"))
        return str([dataclasses.asdict(course) for course in found])
    if name == "plan_calendar":
        return plan_calendar(**arguments).text
    return f"Saved plan to plans/{arguments.get('filename', 'plan.md')}"


def compare(goal: str, catalog: Catalog) -> tuple[int, int, int, int]:
    """(agent prompt tokens, naive prompt tokens, rounds, the fixed part of both) for one goal's trajectory."""
    with tempfile.TemporaryDirectory() as folder:
        context = ToolContext(today=TODAY, catalog=catalog, plans_dir=Path(folder))
        registry = build_registry(context)
        model = TimedModel(OfflinePlanner(catalog, registry.journal))
        agent = Agent(model, registry, plan_task(), AgentConfig())
        tools = schema_tokens(registry.schemas())
        agent_tokens = 0
        first_messages: list[dict[str, Any]] = []
        for event in agent.run(goal):
            if isinstance(event, ModelCallStarted):
                first_messages = first_messages or [dict(m) for m in event.messages[:2]]
                agent_tokens += estimate_tokens(event.messages) + tools

        # The naive loop: same system prompt, goal and replies; full history, raw observations.
        history = list(first_messages)
        naive_tokens = 0
        for reply in model.replies:
            naive_tokens += estimate_tokens(history) + tools
            history.append(reply.to_message())
            for call in reply.tool_calls:
                result = naive_result(call.name, json.loads(call.arguments or "{}"), context)
                history.append({"role": "tool", "tool_call_id": call.id, "name": call.name, "content": result})
    # What every round sends in both loops whatever happened: system prompt, goal and tool schemas.
    fixed = (estimate_tokens(first_messages) + tools) * len(model.replies)
    return agent_tokens, naive_tokens, len(model.replies), fixed


def first_request_tokens(goal: str, protocol: str, catalog: Catalog) -> int:
    """The estimated size of the first request: system prompt, goal and (tools protocol) the tool schemas."""
    from studyplan.app.plan import make_agent
    from studyplan.core.model import ModelReply

    class Recorder:
        name, offline = "recorder", False
        first: tuple[list[dict[str, Any]], list[dict[str, Any]] | None] | None = None

        def complete(
            self, messages: list[dict[str, Any]], tools: Any = None, stop: Any = None, tool_choice: Any = None
        ) -> ModelReply:
            self.first = self.first or (list(messages), tools)  # the loop appends to its list later
            return ModelReply("Final Answer: -")

    with tempfile.TemporaryDirectory() as folder:
        model = Recorder()
        context = ToolContext(today=TODAY, catalog=catalog, plans_dir=Path(folder), goal=goal)
        list(make_agent(model, context, 8, protocol).run(goal))
    assert model.first is not None
    messages, tools = model.first
    return estimate_tokens(messages) + (schema_tokens(tools) if tools else 0)


def measure() -> list[Figure]:
    catalog = Catalog.load()
    figures = []
    for protocol, target in FIRST_REQUEST_TARGETS.items():
        sizes = {label: first_request_tokens(goal, protocol, catalog) for label, goal in GOALS.items()}
        largest = max(sizes.values())
        figures.append(Figure(f"first request, {protocol} protocol (largest of the goals)", largest, "tokens",
                              f"≤ {target:,}", largest <= target,
                              ", ".join(f"{label}: {size:,}" for label, size in sizes.items())))
    for label, goal in GOALS.items():
        ours, naive, rounds, fixed = compare(goal, catalog)
        ratio = ours / naive
        figures.append(Figure(f"prompt tokens per plan, agent / naive ({label})", ratio, "", f"≤ {TARGET}",
                              ratio <= TARGET, f"{ours:,} vs {naive:,} estimated tokens over {rounds} rounds"))
        figures.append(Figure("  history only (system prompt, goal and schemas left out)",
                              (ours - fixed) / (naive - fixed), "",
                              note=f"the fixed part is {fixed:,} tokens, {fixed / ours:.0%} of the agent's"))
    return figures


if __name__ == "__main__":
    print_figures("Prompt tokens per plan", measure())
