"""Assembles a run from the command line's options: catalog, model, tools, agent, renderer and trace."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from rich.console import Console

from studyplan.app.trace import TraceWriter
from studyplan.core.agent import Agent, AgentConfig
from studyplan.core.encoding import ModelProtocol, NativeToolsProtocol
from studyplan.core.events import RunFinished
from studyplan.core.model import ChatModel
from studyplan.core.tools import ToolContext
from studyplan.domain.catalog import Catalog
from studyplan.errors import UsageError
from studyplan.llm.settings import ModelSettings, resolve_settings
from studyplan.planner.tools import build_registry
from studyplan.ui.render import Renderer, make_console, render_error, status_message

# The SDK's own retries (429 and 5xx, honouring Retry-After) for one interactive run.
DEFAULT_MAX_RETRIES = 2


@dataclass(frozen=True)
class RunOptions:
    goal: str
    today: date
    plans_dir: Path = Path("plans")
    model: str | None = None
    base_url: str | None = None
    temperature: float = 0.2
    protocol: str = "auto"
    max_steps: int = 8
    catalog: Path | None = None
    trace: bool = False
    trace_file: Path | None = None
    stream: bool = False
    quiet: bool = False


def build_model(
    settings: ModelSettings, catalog: Catalog, stream: bool = False, max_retries: int = DEFAULT_MAX_RETRIES
) -> ChatModel:
    """A new model instance (batch runs build one per goal: instances are not shared between threads)."""
    if settings.offline:
        from studyplan.planner.offline_planner import OfflinePlanner

        return OfflinePlanner(catalog)
    from studyplan.llm.openai_model import OpenAIChatModel

    return OpenAIChatModel(
        model=settings.model,
        api_key=settings.api_key,
        base_url=settings.base_url,
        temperature=settings.temperature,
        stream=stream,
        max_retries=max_retries,
    )


def build_protocol(name: str) -> ModelProtocol:
    if name == "text":
        from studyplan.core.text_encoding import TextProtocol

        return TextProtocol()
    return NativeToolsProtocol(fallback_to_text=name == "auto")


def make_agent(model: ChatModel, context: ToolContext, max_steps: int, protocol: str) -> Agent:
    """The agent for one goal: the real tools over `context`, the loop bounded at `max_steps`."""
    # The offline planner speaks native tool calls only; the text protocol is for models that lack them.
    encoding = build_protocol("tools" if model.offline else protocol)
    return Agent(model, build_registry(context), AgentConfig(max_steps=max_steps), encoding)


def run_plan(options: RunOptions, console: Console | None = None) -> RunFinished:
    """Run the agent for one goal, rendering every step. Returns the last event (status, plan path, usage)."""
    goal = options.goal.strip()
    if not goal:
        raise UsageError(
            'The goal is empty: say what you want to learn, e.g. studyplan "零基础3个月学机器学习"'
        )
    catalog = Catalog.load(options.catalog)
    settings = resolve_settings(options.model, options.base_url, options.temperature)
    model = build_model(settings, catalog, options.stream)
    context = ToolContext(today=options.today, catalog=catalog, plans_dir=options.plans_dir)
    agent = make_agent(model, context, options.max_steps, options.protocol)
    return run_agent(agent, goal, options, settings, console)


def run_agent(
    agent: Agent, goal: str, options: RunOptions, settings: ModelSettings, console: Console | None = None
) -> RunFinished:
    """Run an assembled agent on `goal`, rendering and tracing every step (shared by plan and revise)."""
    secrets = [settings.api_key] if settings.api_key else []
    trace_path = (options.trace_file or _default_trace_path(options.plans_dir)) if options.trace else None
    renderer = Renderer(console or make_console(), quiet=options.quiet, trace_path=trace_path)
    finished: RunFinished | None = None
    with contextlib.ExitStack() as stack:
        # The trace writer records an exception escaping this block (Ctrl-C included) before closing.
        trace = stack.enter_context(TraceWriter(trace_path, secrets=secrets)) if trace_path else None
        stack.enter_context(renderer)
        for event in agent.run(goal):
            renderer.handle(event)
            if trace:
                trace.write(event)
            if isinstance(event, RunFinished):
                finished = event
    assert finished is not None, "the agent always ends with RunFinished"
    if options.quiet and finished.status != "saved":
        render_error(make_console(stderr=True), status_message(finished.status))
    return finished


def _default_trace_path(plans_dir: Path) -> Path:
    """A new trace file in the plans folder, beside the plan the run will write."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return plans_dir / f"studyplan-{stamp}-{os.getpid()}.trace.jsonl"
