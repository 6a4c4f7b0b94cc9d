"""Scripted batch runs: many goals through the same agent loop, a few at a time, results as JSON Lines.

Why threads and not asyncio: the Agent is one synchronous generator shared by every entry point. Each goal
runs that same loop in a worker thread with its own model instance and ToolContext, so there is one loop to
maintain; the work is waiting on HTTP, which threads overlap as well as coroutines would.

The results file is the batch's memory: one JSON line is appended (and flushed) the moment a goal finishes, so
Ctrl-C or a crash loses nothing that finished, and a rerun skips every goal whose last record says "saved".
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import IO, Any, Literal, TypeVar, get_args

from studyplan.app.config import log_enabled
from studyplan.app.logs import RunRecorder, log_path, write_run
from studyplan.app.plan import build_model, make_agent, user_sentence
from studyplan.core.events import Event, ModelCallFinished, RunFinished, Usage
from studyplan.core.model import ChatModel
from studyplan.domain.catalog import Catalog
from studyplan.errors import AuthenticationFailed, EndpointUnreachable, StorageError, StudyplanError, UsageError
from studyplan.llm.openai_model import OpenAIChatModel
from studyplan.llm.settings import ModelSettings
from studyplan.paths import ensure_folder, is_virtual, read_user_file
from studyplan.planner.context import ToolContext
from studyplan.planner.tools import build_registry
from studyplan.safe_text import json_line

# How a goal ended: the agent's RunStatus, or "rejected" (the goal itself cannot be planned: UsageError),
# "error" (the endpoint or something else failed) or "interrupted" (Ctrl-C stopped it; never recorded).
GoalStatus = Literal["saved", "step_limit", "no_plan", "repeated_calls", "rejected", "error", "interrupted"]
Expectation = Literal["plan", "no_plan"]
GOAL_STATUSES: tuple[str, ...] = get_args(GoalStatus)

# A batch keeps many requests in flight, so 429s are likely: the SDK retries them (honouring Retry-After, with
# exponential backoff up to 8 s otherwise) this many times before a goal gives up.
BATCH_MAX_RETRIES = 8
MAX_STEPS = 50  # as --max-steps: a goal's own bound cannot exceed the command line's
_GOAL_FIELDS = {"goal", "today", "max_steps", "expect"}

Item = TypeVar("Item")
Outcome = TypeVar("Outcome")


@dataclass(frozen=True)
class BatchGoal:
    """One goal of a batch, with the per-goal options a JSON line may give."""

    goal: str
    line: int = 0  # where it came from, for error messages
    today: date | None = None
    max_steps: int | None = None
    expect: Expectation = "plan"  # evaluation only: "no_plan" marks bad input a good model declines

    def options(self) -> dict[str, Any]:
        """The per-goal options that change the run (what a results record stores beside the goal)."""
        options: dict[str, Any] = {}
        if self.today is not None:
            options["today"] = self.today.isoformat()
        if self.max_steps is not None:
            options["max_steps"] = self.max_steps
        return options

    @property
    def key(self) -> str:
        return goal_key(self.goal, self.options())


def goal_key(goal: str, options: dict[str, Any]) -> str:
    """What identifies a goal across reruns: its text, plus its per-goal options when it has any."""
    return goal if not options else f"{goal} {json.dumps(options, sort_keys=True)}"


def parse_goals(text: str, source: str) -> list[BatchGoal]:
    """Goals from a file: one per line, or a JSON object per line ({"goal": ..., "today": ..., "max_steps": ...}).

    The two forms may be mixed. Blank lines and lines starting with # are skipped; a goal listed twice (same text
    and options) runs once. Raises UsageError naming the line for anything malformed.
    """
    goals: dict[str, BatchGoal] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        goal = _json_goal(line, number, source) if line.startswith("{") else BatchGoal(line, number)
        goals.setdefault(goal.key, goal)
    if not goals:
        raise UsageError(f"{source}: no goals found (one goal per line; blank lines and # comments are skipped)")
    return list(goals.values())


def _json_goal(line: str, number: int, source: str) -> BatchGoal:
    where = f"{source}, line {number}"
    try:
        data = json.loads(line)
    except json.JSONDecodeError as error:
        raise UsageError(f"{where}: invalid JSON ({error.msg} at column {error.colno})") from None
    if not isinstance(data, dict) or not isinstance(data.get("goal"), str):
        raise UsageError(f'{where}: a JSON line needs a "goal" string, e.g. {{"goal": "3个月学Python"}}')
    unknown = sorted(set(data) - _GOAL_FIELDS)
    if unknown:
        raise UsageError(f"{where}: unknown field(s) {', '.join(unknown)}; use {', '.join(sorted(_GOAL_FIELDS))}")
    today = data.get("today")
    if today is not None:
        try:
            today = datetime.strptime(str(today), "%Y-%m-%d").date()
        except ValueError:
            raise UsageError(f'{where}: "today" must be a date like 2026-11-30, got {today!r}') from None
    max_steps = data.get("max_steps")
    if max_steps is not None and (
        not isinstance(max_steps, int) or isinstance(max_steps, bool) or not 1 <= max_steps <= MAX_STEPS
    ):
        raise UsageError(f'{where}: "max_steps" must be a whole number from 1 to {MAX_STEPS}, got {max_steps!r}')
    expect = data.get("expect", "plan")
    if expect not in get_args(Expectation):
        raise UsageError(f'{where}: "expect" must be "plan" or "no_plan", got {expect!r}')
    return BatchGoal(data["goal"], number, today, max_steps, expect)


@dataclass(frozen=True)
class BatchSettings:
    """What every goal of a batch shares (a goal's own options override today and max_steps)."""

    today: date
    plans_dir: Path
    model: ModelSettings
    protocol: str = "auto"
    max_steps: int = 8
    max_retries: int = BATCH_MAX_RETRIES


@dataclass(frozen=True)
class GoalResult:
    goal: str
    options: dict[str, Any]
    status: GoalStatus
    model: str
    protocol: str
    plan_path: str | None = None
    steps: int = 0
    usage: Usage = field(default_factory=Usage)
    seconds: float = 0.0
    error: str | None = None

    @property
    def key(self) -> str:
        return goal_key(self.goal, self.options)

    @property
    def saved(self) -> bool:
        return self.status == "saved"

    def to_record(self) -> dict[str, Any]:
        """The JSON line written to the results file."""
        return {
            "goal": self.goal,
            "options": self.options,
            "status": self.status,
            "plan_path": self.plan_path,
            "steps": self.steps,
            "prompt_tokens": self.usage.prompt_tokens,
            "completion_tokens": self.usage.completion_tokens,
            "tokens": self.usage.total_tokens,
            "seconds": round(self.seconds, 3),
            "error": self.error,
            "model": self.model,
            "protocol": self.protocol,
            "finished_at": datetime.now().astimezone().isoformat(timespec="seconds"),
        }


def run_goal(
    goal: BatchGoal,
    settings: BatchSettings,
    catalog: Catalog,
    stop: threading.Event | None = None,
    observe: Callable[[Event], None] | None = None,
) -> GoalResult:
    """Run the agent for one goal and say how it ended; never raises for a goal that fails, only for an
    endpoint that fails them all (EndpointUnreachable: nothing listens; AuthenticationFailed: the key).

    `observe` sees every event (the evaluation measures from them); `stop` set from another thread ends the
    run at its next event, as "interrupted".
    """
    started = time.perf_counter()
    protocol = "tools" if settings.model.offline else settings.protocol  # the planner only makes native calls
    usage = Usage()
    steps = 0

    def result(status: GoalStatus, **values: Any) -> GoalResult:
        values.setdefault("steps", steps)
        values.setdefault("usage", usage)
        values.setdefault("seconds", time.perf_counter() - started)
        return GoalResult(goal.goal, goal.options(), status, settings.model.model, protocol, **values)

    try:
        text = user_sentence(goal.goal, "goal")
    except UsageError as error:  # not valid UTF-8: this goal fails alone, with its reason in the results file
        return result("rejected", error=str(error))
    if not text:
        return result("rejected", error="the goal is empty")
    context = ToolContext(
        today=goal.today or settings.today, catalog=catalog, plans_dir=settings.plans_dir, goal=goal.goal
    )
    registry = build_registry(context)
    # The offline planner reads this run's journal, so it is built per goal (it costs nothing to build).
    if settings.model.offline:
        model = build_model(settings.model, catalog, journal=registry.journal)
    else:
        model = _model_for_this_thread(settings, catalog)
        if isinstance(model, OpenAIChatModel):
            model.new_run()  # each goal gets the whole --deadline
    agent = make_agent(model, context, goal.max_steps or settings.max_steps, protocol, registry)
    try:
        for event in agent.run(text):
            if observe is not None:
                observe(event)
            if isinstance(event, ModelCallFinished):
                steps = event.step
                usage = usage + (event.usage or Usage())
            elif isinstance(event, RunFinished):
                path = str(event.plan_path) if event.plan_path is not None else None
                return result(event.status, plan_path=path, steps=event.steps, usage=event.usage)
            if stop is not None and stop.is_set():
                return result("interrupted", error="interrupted")
    except UsageError as error:  # the offline planner refuses goals it cannot plan
        return result("rejected", error=str(error))
    except (EndpointUnreachable, AuthenticationFailed):
        raise  # nothing listens there, or the key is refused: every other goal would fail the same way
    except StudyplanError as error:
        return result("error", error=str(error))
    except Exception as error:  # a bug in one goal must not end the batch; it is recorded instead
        return result("error", error=f"internal error: {type(error).__name__}: {error}")
    raise AssertionError("the agent always ends with RunFinished")


_thread_models = threading.local()


def _model_for_this_thread(settings: BatchSettings, catalog: Catalog) -> ChatModel:
    """The calling thread's own model instance for these settings, built on first use.

    Never shared between threads, but reused by the goals one worker runs in turn (a model keeps no state
    between calls): the SDK client's setup costs ~20 ms of CPU under the GIL, and its kept-alive connection
    saves a connect per goal, which is what lets 16 workers keep 16 requests in flight.
    """
    models: dict[tuple[ModelSettings, int, Catalog], ChatModel] = _thread_models.__dict__.setdefault("models", {})
    key = (settings.model, settings.max_retries, catalog)
    if key not in models:
        models[key] = build_model(settings.model, catalog, max_retries=settings.max_retries)
    return models[key]


def run_concurrently(
    items: Sequence[Item],
    work: Callable[[Item, threading.Event], Outcome],
    jobs: int,
    on_done: Callable[[Item, Outcome], None],
) -> None:
    """Run `work` on every item, at most `jobs` at a time; `on_done` runs in this thread as each one finishes.

    Because `on_done` runs in the calling thread it may write files and update the screen without locks. On
    Ctrl-C (or an error in `on_done`) the items not started are cancelled, the running ones are told through the
    event to stop at their next step, and the exception propagates.
    """
    stop = threading.Event()
    executor = ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="studyplan-batch")
    try:
        futures: dict[Future[Outcome], Item] = {executor.submit(work, item, stop): item for item in items}
        for future in as_completed(futures):
            on_done(futures[future], future.result())
    except BaseException:
        stop.set()
        executor.shutdown(wait=False, cancel_futures=True)
        raise
    executor.shutdown()


class ResultsFile:
    """The batch's JSON Lines results: read to resume, appended to as goals finish.

    A new file starts with a header line ({"studyplan": "batch-results", ...}), and an existing file is only
    appended to when it is one this tool wrote (that header, or a results record, on its first line): an
    unrelated file given to -o is refused, never written to. It must be a regular file, outside /proc, /sys
    and /dev.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: IO[str] | None = None
        self._checked = False

    def _check(self) -> None:
        """Refuse a path that is not a results file of ours (UsageError naming it, before any goal runs)."""
        if self._checked:
            return
        if is_virtual(self.path):
            raise UsageError(f"{self.path}: results files go on a file system, not in {self.path.resolve().parent}")
        if self.path.is_dir():
            raise UsageError(f"{self.path}: is a folder; give a results file name (e.g. {self.path / RESULTS_NAME})")
        if self.path.exists() or self.path.is_symlink():
            lines = self._lines()
            if lines and not _is_results_line(lines[0]):
                raise UsageError(
                    f"{self.path}: not a studyplan batch results file (its first line is not a results record); "
                    "choose another --output, nothing was written"
                )
        self._checked = True

    def _lines(self) -> list[str]:
        return read_user_file(self.path, UsageError, "results file").splitlines()

    def records(self) -> list[dict[str, Any]]:
        """Every readable record; a line cut short by a killed process is ignored."""
        self._check()
        if not self.path.exists():
            return []
        records = []
        for line in self._lines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(record, dict) and isinstance(record.get("goal"), str):
                records.append(record)
        return records

    def done_keys(self) -> set[str]:
        """Goals whose latest record is a saved plan: a rerun skips these."""
        latest = {goal_key(r["goal"], r.get("options") or {}): r.get("status") for r in self.records()}
        return {key for key, status in latest.items() if status == "saved"}

    def __enter__(self) -> ResultsFile:
        self._check()
        ensure_folder(self.path.parent, "results file's folder")
        new = not self.path.exists() or self.path.stat().st_size == 0
        cut_short = not new and not _ends_with_newline(self.path)
        try:
            self._handle = self.path.open("a", encoding="utf-8")
            if new:
                self._handle.write(json_line(_header()))
            elif cut_short:  # keep the next record on a line of its own
                self._handle.write("\n")
            self._handle.flush()
        except OSError as error:
            raise UsageError(f"{self.path}: cannot be written ({error.strerror or error})") from None
        return self

    def append(self, result: GoalResult) -> None:
        assert self._handle is not None, "use ResultsFile as a context manager"
        try:
            self._handle.write(json_line(result.to_record()))
            self._handle.flush()  # on disk now: a later Ctrl-C or crash cannot lose it
        except OSError as error:
            raise StorageError(f"{self.path}: the results file cannot be written ({error.strerror or error})") from None

    def __exit__(self, *_exc_info: object) -> None:
        if self._handle is not None:
            with contextlib.suppress(OSError):  # a full disk was already reported by append
                self._handle.close()
            self._handle = None


RESULTS_NAME = "batch-results.jsonl"
RESULTS_FORMAT = "batch-results"


def _header() -> dict[str, Any]:
    created = datetime.now().astimezone().isoformat(timespec="seconds")
    return {"studyplan": RESULTS_FORMAT, "version": 1, "created_at": created}


def _is_results_line(line: str) -> bool:
    """A header this tool writes, or a results record (files written before there was a header)."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError:
        return False
    if not isinstance(record, dict):
        return False
    return record.get("studyplan") == RESULTS_FORMAT or {"goal", "status"} <= set(record)


def _ends_with_newline(path: Path) -> bool:
    with path.open("rb") as handle:
        handle.seek(-1, 2)
        return handle.read(1) == b"\n"


def status_counts(results: Iterable[GoalResult]) -> dict[str, int]:
    """How many goals ended each way, in GOAL_STATUSES order, statuses that occurred only."""
    counts = {status: 0 for status in GOAL_STATUSES}
    for result in results:
        counts[result.status] += 1
    return {status: count for status, count in counts.items() if count}


def logged_goal_runner(
    settings: BatchSettings, catalog: Catalog, log: bool = True
) -> Callable[[BatchGoal, threading.Event], GoalResult]:
    """run_goal for a batch, each goal recorded in the run log (unless `log` is off here or in the config)."""
    path = log_path() if log and log_enabled(False) else None

    def work(goal: BatchGoal, stop: threading.Event) -> GoalResult:
        recorder = RunRecorder(goal.goal, settings.model) if path else None
        result = run_goal(goal, settings, catalog, stop, recorder.observe if recorder else None)
        if recorder and path:
            write_run(recorder.result(result.error, result.status), path)
        return result

    return work
