"""Choosing a model by measurement (the second article, 6.3): one fixed goal set, every model × protocol.

Every figure is read from the agent's event stream, not from counters inside the loop:

- format stability: the share of model replies that were used as they came, i.e. not followed by a
  "could not be parsed" notice nor by an observation reporting unusable arguments (unknown tool, bad JSON,
  invalid values);
- hallucination rate: the share of runs (that got at least one reply) in which the model made something up: a
  plan save_plan refused for a course that is not in the catalog or for wrong dates, or an answer claiming a
  saved plan (or naming courses) without the save_plan (or search_courses) call that would back it;
- convergence: the step at which save_plan first succeeded, median and 90th percentile over saved runs;
- success rate: plans saved for goals that should get one, and no plan for the bad inputs (expect "no_plan");
- tokens and seconds per plan: everything the combination spent, failed runs included, per plan saved.
"""

from __future__ import annotations

import json
import math
import re
import statistics
import threading
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import date, datetime
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from studyplan.app.batch import BatchGoal, BatchSettings, GoalResult, parse_goals, run_concurrently, run_goal
from studyplan.core.events import Event, FinalAnswer, ModelCallFinished, ModelCallStarted, Notice, Observation
from studyplan.core.journal import UNUSABLE_CALL
from studyplan.domain.catalog import Catalog
from studyplan.domain.document import plan_labels
from studyplan.llm.settings import ModelSettings

DEFAULT_GOALS_FILE = "eval_goals.txt"  # in studyplan/data
# The checker messages (data/plan_labels.json "checks") that mean the model invented something.
INVENTED_COURSE_CHECKS = ("unknown_course", "wrong_id", "mixed_reference", "wrong_link")
WRONG_DATE_CHECKS = ("start_in_past", "week_dates", "end_date", "weekday")
# An answer that says a plan was written, or that names catalog-style course ids like [py4e].
_CLAIMS_SAVED = re.compile(r"\.md\b|\bsaved\b|已保存|保存(在|到|于)|已生成", re.IGNORECASE)
_NAMES_COURSE = re.compile(r"\[[a-z0-9][a-z0-9.\-]*\]")


def default_goals() -> list[BatchGoal]:
    """The shipped evaluation set: Chinese and English goals over topics, durations and levels, and bad input."""
    text = resources.files("studyplan.data").joinpath(DEFAULT_GOALS_FILE).read_text(encoding="utf-8")
    return parse_goals(text, DEFAULT_GOALS_FILE)


@cache
def _check_patterns(keys: tuple[str, ...]) -> list[re.Pattern[str]]:
    """Regexes matching the checker's messages for `keys`, built from their templates ({x} matches anything)."""
    templates = plan_labels()["checks"]
    patterns = []
    for key in keys:
        parts = re.split(r"\{\w+\}", templates[key])
        patterns.append(re.compile("^" + ".+?".join(re.escape(part) for part in parts)))
    return patterns


def classify_refusal(problems: list[str]) -> tuple[bool, bool]:
    """(invented a course, got dates wrong) for a save_plan refusal, from the checker's problems."""
    invented = any(p.match(problem) for p in _check_patterns(INVENTED_COURSE_CHECKS) for problem in problems)
    wrong_dates = any(p.match(problem) for p in _check_patterns(WRONG_DATE_CHECKS) for problem in problems)
    return invented, wrong_dates


@dataclass
class RunTally:
    """Feeds on one run's events (pass `observe` to run_goal) and keeps what the metrics need."""

    replies: int = 0
    unusable_steps: set[int] = field(default_factory=set)
    plan_submissions: int = 0
    invented_course_refusals: int = 0
    wrong_date_refusals: int = 0
    unsupported_answers: int = 0
    steps_to_plan: int | None = None
    _searched: bool = False
    _step: int = 0
    _reply_text: dict[int, str] = field(default_factory=dict)

    def observe(self, event: Event) -> None:
        match event:
            case ModelCallStarted():
                self._step = event.step
            case ModelCallFinished():
                self.replies += 1
                self._reply_text[event.step] = str(event.reply.get("content") or "")
            case Notice():
                if event.code == "unparsed_reply":
                    self.unusable_steps.add(self._step)
                elif event.code == "answer_not_done":
                    self._check_answer(self._reply_text.get(self._step, ""))
            case Observation():
                self._observe_call(event)
            case FinalAnswer():
                self._check_answer(event.text)

    def _observe_call(self, event: Observation) -> None:
        if event.failure in UNUSABLE_CALL:
            self.unusable_steps.add(event.step)
            return
        if event.tool == "search_courses" and event.ok:
            self._searched = True
        if event.tool != "save_plan":
            return
        self.plan_submissions += 1
        if event.ok:
            if self.steps_to_plan is None:
                self.steps_to_plan = event.step
            return
        invented, wrong_dates = classify_refusal(list(event.data.get("problems", [])))
        self.invented_course_refusals += invented
        self.wrong_date_refusals += wrong_dates

    def _check_answer(self, text: str) -> None:
        if self.steps_to_plan is not None:
            return  # a plan was saved: the answer is backed by it
        if _CLAIMS_SAVED.search(text) or (not self._searched and _NAMES_COURSE.search(text)):
            self.unsupported_answers += 1

    @property
    def clean_replies(self) -> int:
        return self.replies - len(self.unusable_steps)

    @property
    def hallucinated(self) -> bool:
        return bool(self.invented_course_refusals or self.wrong_date_refusals or self.unsupported_answers)


@dataclass(frozen=True)
class RunMeasure:
    """One goal under one model and protocol."""

    goal: str
    expect: str
    status: str
    replies: int
    clean_replies: int
    plan_submissions: int
    invented_course_refusals: int
    wrong_date_refusals: int
    unsupported_answers: int
    steps_to_plan: int | None
    tokens: int
    seconds: float
    error: str | None

    @classmethod
    def of(cls, goal: BatchGoal, result: GoalResult, tally: RunTally) -> RunMeasure:
        return cls(
            goal=goal.goal,
            expect=goal.expect,
            status=result.status,
            replies=tally.replies,
            clean_replies=tally.clean_replies,
            plan_submissions=tally.plan_submissions,
            invented_course_refusals=tally.invented_course_refusals,
            wrong_date_refusals=tally.wrong_date_refusals,
            unsupported_answers=tally.unsupported_answers,
            steps_to_plan=tally.steps_to_plan,
            tokens=result.usage.total_tokens,
            seconds=result.seconds,
            error=result.error,
        )

    @property
    def succeeded(self) -> bool:
        if self.expect == "no_plan":
            return self.status in ("no_plan", "rejected")
        return self.status == "saved"

    @property
    def hallucinated(self) -> bool:
        return bool(self.invented_course_refusals or self.wrong_date_refusals or self.unsupported_answers)


@dataclass(frozen=True)
class ComboSummary:
    """The figures for one model × protocol; None where there is nothing to measure (e.g. no plan saved)."""

    model: str
    protocol: str
    goals: int
    plans: int
    success_rate: float
    format_stability: float | None
    hallucination_rate: float | None
    steps_median: float | None
    steps_p90: int | None
    tokens_per_plan: float | None
    seconds_per_plan: float | None
    errors: int  # runs the endpoint (or a bug) ended, not the model's own choice

    @classmethod
    def of(cls, model: str, protocol: str, runs: Sequence[RunMeasure]) -> ComboSummary:
        replies = sum(run.replies for run in runs)
        answered = [run for run in runs if run.replies]
        steps = sorted(run.steps_to_plan for run in runs if run.steps_to_plan is not None)
        plans = sum(run.status == "saved" for run in runs)
        tokens = sum(run.tokens for run in runs)  # 0 when the endpoint reports no usage (the offline planner)
        return cls(
            model=model,
            protocol=protocol,
            goals=len(runs),
            plans=plans,
            success_rate=_share(sum(run.succeeded for run in runs), len(runs)) or 0.0,
            format_stability=_share(sum(run.clean_replies for run in runs), replies),
            hallucination_rate=_share(sum(run.hallucinated for run in answered), len(answered)),
            steps_median=statistics.median(steps) if steps else None,
            steps_p90=percentile(steps, 90) if steps else None,
            tokens_per_plan=tokens / plans if plans and tokens else None,
            seconds_per_plan=sum(run.seconds for run in runs) / plans if plans else None,
            errors=sum(run.status == "error" for run in runs),
        )


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def percentile(sorted_values: Sequence[int], rank: float) -> int:
    """Nearest-rank percentile of already sorted values (p90 of 10 values is the 9th)."""
    return sorted_values[max(0, math.ceil(rank / 100 * len(sorted_values)) - 1)]


@dataclass(frozen=True)
class Combo:
    settings: ModelSettings
    protocol: str

    @property
    def label(self) -> tuple[str, str]:
        return self.settings.model, self.protocol


def combos(models: Sequence[ModelSettings], protocols: Sequence[str]) -> list[Combo]:
    """Every model with every protocol; the offline planner only once (it makes native calls whatever is asked)."""
    result: dict[tuple[str, str], Combo] = {}
    for settings in models:
        for protocol in ["tools"] if settings.offline else protocols:
            combo = Combo(settings, protocol)
            result.setdefault(combo.label, combo)
    return list(result.values())


@dataclass(frozen=True)
class EvalReport:
    goals_source: str
    today: date
    summaries: list[ComboSummary]
    runs: dict[tuple[str, str], list[RunMeasure]]

    def to_json(self) -> dict[str, Any]:
        return {
            "goals_source": self.goals_source,
            "today": self.today.isoformat(),
            "generated_at": datetime.now().astimezone().isoformat(timespec="seconds"),
            "summaries": [asdict(summary) for summary in self.summaries],
            "runs": [
                {"model": model, "protocol": protocol, **asdict(run)}
                for (model, protocol), runs in self.runs.items()
                for run in runs
            ],
        }

    def to_markdown(self) -> str:
        lines = [
            "# Model evaluation",
            "",
            f"Goals: {self.goals_source} ({self.summaries[0].goals if self.summaries else 0} goals), "
            f"today = {self.today.isoformat()}.",
            "",
            "| Model | Protocol | Success | Format stability | Hallucination | Steps median | Steps p90 "
            "| Tokens/plan | Seconds/plan | Errors |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for s in self.summaries:
            cells = [
                s.model, s.protocol, f"{format_rate(s.success_rate)} ({s.plans} plans)",
                format_rate(s.format_stability), format_rate(s.hallucination_rate), format_number(s.steps_median),
                format_number(s.steps_p90, 0), format_number(s.tokens_per_plan, 0),
                format_number(s.seconds_per_plan, 2), str(s.errors),
            ]
            lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
        lines += ["", "## How the figures are measured", "", *_METRIC_NOTES]
        return "\n".join(lines) + "\n"

    def write(self, markdown_path: Path) -> tuple[Path, Path]:
        """Write the Markdown report and the JSON beside it (same stem, .json), never replacing a file:
        an existing name gets the next free one. Returns both paths as written."""
        from studyplan.paths import write_new_file

        written = write_new_file(markdown_path.parent, markdown_path.name, self.to_markdown())
        report_json = json.dumps(self.to_json(), ensure_ascii=False, indent=2) + "\n"
        return written, write_new_file(written.parent, f"{written.stem}.json", report_json)


_METRIC_NOTES = [
    "- Success: a plan saved for goals that should get one; no plan for the bad inputs.",
    "- Format stability: replies used as they came (no parse-error notice, no unusable-argument observation).",
    "- Hallucination: runs with a plan refused for an invented course or wrong dates, or an answer claiming a "
    "plan or courses without the tool call behind it.",
    "- Steps: the step at which save_plan first succeeded (median and nearest-rank 90th percentile).",
    "- Tokens and seconds per plan: everything spent on all goals, failed ones included, per plan saved "
    "(tokens as reported by the endpoint; — when none are reported, as with the offline planner).",
]


def format_rate(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def format_number(value: float | None, decimals: int = 1) -> str:
    if value is None:
        return "—"
    return f"{value:,.{decimals}f}" if decimals else f"{value:,.0f}"


def evaluate(
    goals: Sequence[BatchGoal],
    combinations: Sequence[Combo],
    base: BatchSettings,
    catalog: Catalog,
    jobs: int,
    goals_source: str,
    on_run: Callable[[Combo, RunMeasure], None] | None = None,
) -> EvalReport:
    """Run every goal under every combination (one pool for all: `jobs` runs at a time) and summarize.

    `base` gives today, max_steps and the plans folder; each combination saves into its own subfolder.
    """
    items = [(combo, goal) for combo in combinations for goal in goals]
    runs: dict[tuple[str, str], list[RunMeasure | None]] = {c.label: [None] * len(goals) for c in combinations}
    position = {goal.key: index for index, goal in enumerate(goals)}

    def work(item: tuple[Combo, BatchGoal], stop: threading.Event) -> RunMeasure:
        combo, goal = item
        folder = base.plans_dir / _folder_name(*combo.label)
        settings = BatchSettings(base.today, folder, combo.settings, combo.protocol, base.max_steps,
                                 base.max_retries)
        tally = RunTally()
        result = run_goal(goal, settings, catalog, stop, tally.observe)
        return RunMeasure.of(goal, result, tally)

    def done(item: tuple[Combo, BatchGoal], measure: RunMeasure) -> None:
        combo, goal = item
        runs[combo.label][position[goal.key]] = measure  # goal order, whatever the finishing order
        if on_run is not None:
            on_run(combo, measure)

    def report() -> EvalReport:
        finished = {label: [run for run in measures if run is not None] for label, measures in runs.items()}
        summaries = [ComboSummary.of(*label, finished[label]) for label in finished]
        return EvalReport(goals_source, base.today, summaries, finished)

    try:
        run_concurrently(items, work, jobs, done)
    except KeyboardInterrupt:
        raise EvaluationInterrupted(report()) from None
    return report()


class EvaluationInterrupted(KeyboardInterrupt):
    """Ctrl-C during an evaluation, carrying the report of the runs that finished (so it can still be written)."""

    def __init__(self, report: EvalReport) -> None:
        super().__init__("interrupted")
        self.report = report

    @property
    def finished_runs(self) -> int:
        return sum(len(runs) for runs in self.report.runs.values())


def _folder_name(model: str, protocol: str) -> str:
    return re.sub(r"[^\w.-]+", "_", f"{model}-{protocol}")
