"""Assembles a run from the run options (catalog, model, tools, agent, trace) and runs it as events.

Nothing here prints: `AgentRun.events()` yields the loop's events (writing the trace as they pass) and the
command line hands them to a screen. The same assembly serves plan, revise and batch.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from pathlib import Path

from studyplan.app.trace import TraceWriter
from studyplan.core.agent import Agent, AgentConfig
from studyplan.core.encoding import ModelProtocol, NativeToolsProtocol
from studyplan.core.events import Event, Notice, RunFinished, RunStarted
from studyplan.core.journal import Journal
from studyplan.core.model import ChatModel
from studyplan.core.tools import ToolRegistry
from studyplan.domain import vocabulary
from studyplan.domain.catalog import Catalog
from studyplan.engine.goal import check_goal
from studyplan.errors import StudyplanError, UsageError
from studyplan.llm.settings import BoundFlags, ModelSettings
from studyplan.paths import display_path, ensure_folder
from studyplan.planner.context import ToolContext
from studyplan.planner.task import plan_task
from studyplan.planner.tools import build_registry, write_new_file
from studyplan.safe_text import clean_line, has_surrogates

# The SDK's own retries (429 and 5xx, honouring Retry-After) for one interactive run.
DEFAULT_MAX_RETRIES = 2


@dataclass(frozen=True)
class RunOptions:
    """How one agent run goes: the model, the protocol, its bounds, its dates, where it writes, what it shows."""

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
    timeout: float | None = None  # None: STUDYPLAN_TIMEOUT, the config file, or the endpoint's default
    deadline: float | None = None
    max_tokens: int | None = None
    log: bool = True  # record the run in the run log (studyplan logs); the config file may turn it off

    @property
    def bound_flags(self) -> BoundFlags:
        return BoundFlags(self.timeout, self.deadline, self.max_tokens)


@dataclass
class AgentRun:
    """An assembled run, not started yet: iterate `events()` to run it."""

    agent: Agent
    goal: str
    settings: ModelSettings
    trace_path: Path | None
    context: ToolContext
    secrets: list[str] = field(default_factory=list)
    log: bool = True
    trace_stopped: str | None = None  # why the trace stopped early (a full disk), when it did
    keep_drafts: bool = False  # a plan the model wrote in prose without saving is kept as an unchecked draft

    def events(self) -> Generator[Event, None, None]:
        """The agent's events, each written to the trace (when there is one) and the run log before it is
        yielded; the settings' notice (an unused key, say) follows the run's header."""
        from studyplan.app.logs import RunRecorder, log_path, write_run

        recorder = RunRecorder(self.goal, self.settings) if self.log else None
        with contextlib.ExitStack() as stack:
            # The trace writer records an exception escaping this block (Ctrl-C included) before closing.
            trace = stack.enter_context(TraceWriter(self.trace_path, self.secrets)) if self.trace_path else None
            try:
                for event in self._keeping_draft(self._with_notice(self.agent.run(self.goal))):
                    if trace and trace.stopped is None:
                        trace.write(event)
                        if trace.stopped is not None:  # the run goes on without it: the plan matters more
                            self.trace_stopped = trace.stopped
                            yield Notice(f"The trace {self.trace_path} stopped ({trace.stopped}); the run goes on.")
                    if recorder:
                        recorder.observe(event)
                    yield event
            except (StudyplanError, KeyboardInterrupt, GeneratorExit) as error:
                # GeneratorExit after the last event is a reader that stopped there, not an interruption.
                if recorder and recorder.finished:
                    write_run(recorder.result(), log_path())
                elif recorder:
                    status = "interrupted" if not isinstance(error, StudyplanError) else (
                        "rejected" if isinstance(error, UsageError) else "error"
                    )
                    write_run(recorder.result(str(error) or None, status), log_path())
                raise
        if recorder:
            write_run(recorder.result(), log_path())

    def _keeping_draft(self, events: Iterator[Event]) -> Iterator[Event]:
        """A run that ended without a plan but with the model's own plan in prose: that text is kept beside the
        plans, named so that nobody takes it for a checked plan, and the last event says where."""
        for event in events:
            if not (self.keep_drafts and isinstance(event, RunFinished) and event.status == "no_plan"):
                yield event
                continue
            if not looks_like_a_plan(event.summary):
                yield event
                continue
            try:
                path = keep_unchecked_draft(self.context.plans_dir, self.goal, event.summary)
            except (OSError, StudyplanError) as error:
                yield Notice(f"The model's unsaved plan could not be kept: {error}", "warning", "draft_not_kept")
                yield event
                continue
            where = f"its own plan is kept, unchecked, in {display_path(path)}"
            yield Notice(f"The model answered with a plan but never saved one: {where}.", "warning", "draft_kept")
            yield replace(event, detail=where)

    def _with_notice(self, events: Iterator[Event]) -> Iterator[Event]:
        for event in events:
            yield event
            if isinstance(event, RunStarted) and self.settings.notice:
                yield Notice(self.settings.notice)


DRAFT_SUFFIX = ".draft-unchecked.md"
MIN_DRAFT_CHARS = 400  # shorter prose is an explanation (no course for this), not a plan worth keeping


def looks_like_a_plan(text: str) -> bool:
    """Whether an answer is a plan written in prose: a Markdown heading, or long enough to be one."""
    return any(line.lstrip().startswith("#") for line in text.splitlines()) or len(text.strip()) >= MIN_DRAFT_CHARS


def keep_unchecked_draft(plans_dir: Path, goal: str, text: str) -> Path:
    """Write the model's unsaved answer as `<topic>.draft-unchecked.md` in the plans folder, never replacing
    a file; the heading says it was never checked."""
    topics = vocabulary.find_topics(goal)
    stem = topics[0].replace("_", "-") if topics else "plan"
    note = (
        "<!-- studyplan: the model wrote this as its answer and never saved it as a plan. Nothing in it was "
        "checked (courses, links, dates); it is not a plan studyplan can track. -->\n\n"
    )
    return write_new_file(plans_dir, f"{stem}{DRAFT_SUFFIX}", note + text.strip() + "\n")


def build_model(
    settings: ModelSettings,
    catalog: Catalog,
    stream: bool = False,
    max_retries: int = DEFAULT_MAX_RETRIES,
    journal: Journal | None = None,
) -> ChatModel:
    """A new model instance (batch runs build one per goal: instances are not shared between threads).

    The offline planner reads what the tools did from `journal`, the registry's of the run it plays in."""
    if settings.offline:
        from studyplan.planner.offline_planner import OfflinePlanner

        return OfflinePlanner(catalog, journal)
    from studyplan.llm.openai_model import OpenAIChatModel

    return OpenAIChatModel(
        model=settings.model,
        api_key=settings.api_key,
        base_url=settings.base_url,
        temperature=settings.temperature,
        stream=stream,
        max_retries=max_retries,
        timeout=settings.bounds.timeout,
        deadline=settings.bounds.deadline,
        max_tokens=settings.bounds.max_tokens,
        key_hint=settings.key_hint,
    )


def build_protocol(name: str) -> ModelProtocol:
    if name == "text":
        from studyplan.core.text_encoding import TextProtocol

        return TextProtocol()
    return NativeToolsProtocol(fallback_to_text=name == "auto")


def make_agent(
    model: ChatModel, context: ToolContext, max_steps: int, protocol: str, registry: ToolRegistry | None = None
) -> Agent:
    """The agent for one goal: the real tools over `context` (or `registry`, built over it, whose journal an
    offline planner was given), the loop bounded at `max_steps`."""
    # The offline planner speaks native tool calls only; the text protocol is for models that lack them.
    encoding = build_protocol("tools" if model.offline else protocol)
    registry = registry if registry is not None else build_registry(context)
    return Agent(model, registry, plan_task(), AgentConfig(max_steps=max_steps), encoding)


def start_date(value: str, today: date) -> date:
    """`--start`: "today", "monday" (the next Monday, today if it is one) or a date like 2026-12-07."""
    word = value.strip().lower()
    if word == "today":
        return today
    if word == "monday":
        return today + timedelta(days=-today.weekday() % 7)
    try:
        return datetime.strptime(word, "%Y-%m-%d").date()
    except ValueError:
        raise UsageError(f"--start must be today, monday or a date like 2026-12-07, got {value!r}") from None


def goal_with_start(goal: str, start: date | None) -> str:
    """The goal sentence with the chosen start date in it: every model, offline or not, reads it there.

    The goal parser takes the first ISO date it finds, and the model reads the same sentence."""
    return goal if start is None else f"{goal} (start {start.isoformat()})"


def plan_run(goal: str, options: RunOptions, start: date | None = None) -> AgentRun:
    """Assemble the planning agent for one goal. UsageError before any model call for what needs no model
    (an empty goal, a duration or weekly hours out of range), so every model gets the same exit code."""
    goal = user_sentence(goal, "goal")
    if not goal:
        raise UsageError(
            'The goal is empty: say what you want to learn, e.g. studyplan "零基础3个月学机器学习"'
        )
    ensure_folder(options.plans_dir)  # a folder that cannot take the plan is named now, not after the model ran
    catalog = Catalog.load(options.catalog)
    from studyplan.app.config import goal_defaults, model_settings

    settings = model_settings(options.model, options.base_url, options.temperature, options.bound_flags)
    defaults = goal_defaults(goal, options.today, start, settings.offline)
    goal, start = defaults.goal, defaults.start
    check_goal(goal, options.today, start)
    context = ToolContext(today=options.today, catalog=catalog, plans_dir=options.plans_dir, goal=goal)
    registry = build_registry(context)
    model = build_model(settings, catalog, options.stream, journal=registry.journal)
    agent = make_agent(model, context, options.max_steps, options.protocol, registry)
    run = agent_run(agent, goal_with_start(goal, start), options, settings, context)
    run.keep_drafts = True
    return run


def user_sentence(text: str, what: str) -> str:
    """A goal or request as the agent may see it: one line without control characters or escape sequences.
    UsageError when it is not valid UTF-8 (undecodable bytes from the terminal or a file)."""
    if has_surrogates(text):
        raise UsageError(f"the {what} is not valid UTF-8 text: check the terminal's or the file's encoding")
    return clean_line(text).strip()


def agent_run(
    agent: Agent, goal: str, options: RunOptions, settings: ModelSettings, context: ToolContext
) -> AgentRun:
    """An assembled agent with its trace file chosen (shared by plan and revise)."""
    trace_path = (options.trace_file or _default_trace_path(options.plans_dir)) if options.trace else None
    from studyplan.app.config import log_enabled

    secrets = [settings.api_key] if settings.api_key else []
    return AgentRun(agent, goal, settings, trace_path, context, secrets, log=options.log and log_enabled(False))


def _default_trace_path(plans_dir: Path) -> Path:
    """A new trace file in the plans folder, beside the plan the run will write."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return plans_dir / f"studyplan-{stamp}-{os.getpid()}.trace.jsonl"
