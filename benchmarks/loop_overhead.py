"""Loop overhead per step, model time excluded: an in-process scripted model and the scripted HTTP server.

The trajectory is the offline planner's for "零基础3个月学机器学习" (date, search, parallel prerequisite searches,
calendar, save, answer), recorded once and replayed, so the model itself costs nothing. Overhead is the run's
wall time minus the time spent waiting for the model, divided by the steps; it includes the tools (the plan
check and the atomic file write in save_plan), and is also given without them.
"""

from __future__ import annotations

import tempfile
import time
from datetime import date
from pathlib import Path
from typing import Any

from _support import Figure, median, print_figures
from scripted_server import ScriptedServer, reply

from studyplan.core.agent import Agent, AgentConfig
from studyplan.core.events import ModelCallFinished, Observation, RunFinished
from studyplan.core.model import ModelReply
from studyplan.domain.catalog import Catalog
from studyplan.llm.openai_model import OpenAIChatModel
from studyplan.planner.context import ToolContext
from studyplan.planner.offline_planner import OfflinePlanner
from studyplan.planner.task import plan_task
from studyplan.planner.tools import build_registry

GOAL = "零基础3个月学机器学习"
TODAY = date(2026, 11, 30)
RUNS = 40


class TimedModel:
    """Wraps a model, recording each reply and the time spent inside it."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.name = model.name
        self.offline = model.offline
        self.seconds = 0.0
        self.replies: list[ModelReply] = []

    def complete(
        self, messages: list[dict[str, Any]], tools: Any = None, stop: Any = None, tool_choice: Any = None
    ) -> ModelReply:
        started = time.perf_counter()
        result = self.model.complete(messages, tools, stop, tool_choice)
        self.seconds += time.perf_counter() - started
        self.replies.append(result)
        return result


class ReplayModel:
    name = "replay"
    offline = False

    def __init__(self, replies: list[ModelReply]) -> None:
        self._replies = iter(replies)

    def complete(
        self, messages: list[dict[str, Any]], tools: Any = None, stop: Any = None, tool_choice: Any = None
    ) -> ModelReply:
        return next(self._replies)


def run_once(model: Any, catalog: Catalog) -> tuple[float, float, float, int]:
    """(wall seconds, model seconds, tool seconds, steps) for one run in a fresh plans folder."""
    with tempfile.TemporaryDirectory() as folder:
        context = ToolContext(today=TODAY, catalog=catalog, plans_dir=Path(folder))
        agent = Agent(model, build_registry(context), plan_task(), AgentConfig())
        model_seconds = tool_seconds = 0.0
        started = time.perf_counter()
        for event in agent.run(GOAL):
            if isinstance(event, ModelCallFinished):
                model_seconds += event.seconds
            elif isinstance(event, Observation):
                tool_seconds += event.seconds
            elif isinstance(event, RunFinished):
                assert event.status == "saved", event
                steps = event.steps
        return time.perf_counter() - started, model_seconds, tool_seconds, steps


def record_trajectory(catalog: Catalog) -> list[ModelReply]:
    with tempfile.TemporaryDirectory() as folder:
        registry = build_registry(ToolContext(today=TODAY, catalog=catalog, plans_dir=Path(folder)))
        model = TimedModel(OfflinePlanner(catalog, registry.journal))
        for _event in Agent(model, registry, plan_task(), AgentConfig()).run(GOAL):
            pass
    return model.replies


def as_server_step(recorded: ModelReply) -> Any:
    calls = [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
             for c in recorded.tool_calls]
    return reply(content=recorded.content, tool_calls=calls)


def per_step_overheads(make_model: Any, catalog: Catalog) -> tuple[float, float]:
    """Median overhead per step in ms: with the tools' time, and without it."""
    with_tools, without_tools = [], []
    for _ in range(RUNS):
        wall, model_seconds, tool_seconds, steps = run_once(make_model(), catalog)
        with_tools.append((wall - model_seconds) / steps * 1000)
        without_tools.append((wall - model_seconds - tool_seconds) / steps * 1000)
    return median(with_tools), median(without_tools)


def measure() -> list[Figure]:
    catalog = Catalog.load()
    trajectory = record_trajectory(catalog)
    in_process = per_step_overheads(lambda: ReplayModel(trajectory), catalog)
    with ScriptedServer() as server:
        for _ in range(RUNS + 1):
            server.add(*(as_server_step(r) for r in trajectory))

        def http_model() -> OpenAIChatModel:
            return OpenAIChatModel("scripted", "not-needed", base_url=server.base_url)

        run_once(http_model(), catalog)  # warm up: SDK import, first connection
        over_http = per_step_overheads(http_model, catalog)
    steps = len(trajectory)
    return [
        Figure("loop overhead per step, in-process scripted model", in_process[0], "ms", "< 2 ms",
               in_process[0] < 2, f"{steps}-step trajectory, tools included"),
        Figure("  of which not in the tools", in_process[1], "ms"),
        Figure("loop overhead per step, scripted HTTP server (no delay)", over_http[0], "ms", "< 2 ms",
               over_http[0] < 2, "model time = the HTTP call as the SDK sees it"),
        Figure("  of which not in the tools", over_http[1], "ms"),
    ]


if __name__ == "__main__":
    print_figures("Loop overhead (model time excluded)", measure())
