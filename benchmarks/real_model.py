"""A real model through the real loop: how many plans it saves, per protocol, and at what cost.

    python benchmarks/real_model.py --base-url http://127.0.0.1:8765/v1 --model qwen2.5-coder-0.5b

Runs a goal set (default: the first three Chinese and the first three English goals of the built-in
evaluation set, studyplan/data/eval_goals.txt) through the tools, text and auto protocols and prints per
protocol: plans saved, model calls per saved plan (median), prompt and completion tokens per plan, seconds per
plan and the format-error rate (replies the loop could not use: unparseable, unknown tool, bad arguments).
Token counts are the server's where it reports them, otherwise estimated from the messages the same way the
loop estimates its budget (studyplan.core.memory.estimate_tokens). Every run has a deadline (--run-deadline,
the client's own run deadline) and every reply a bound (--max-tokens): a run past its deadline counts as
failed. Never run in CI: a local CPU model needs minutes per goal. See the README, "Real local models".
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import _support  # noqa: F401  (puts the repository on sys.path)

from studyplan.app.evaluate import RunTally, default_goals
from studyplan.app.plan import make_agent
from studyplan.core.events import Event, ModelCallFinished, ModelCallStarted, RunFinished
from studyplan.core.memory import estimate_tokens
from studyplan.domain.catalog import Catalog
from studyplan.errors import ModelError
from studyplan.llm.openai_model import OpenAIChatModel
from studyplan.planner.context import ToolContext

PROTOCOLS = ("tools", "text", "auto")
GOALS_PER_LANGUAGE = 3


def default_goal_set() -> list[str]:
    """The first three Chinese and first three English goals of the evaluation set that expect a plan."""
    goals = [goal.goal for goal in default_goals() if goal.expect == "plan" and not goal.options()]
    chinese = [goal for goal in goals if any("\u4e00" <= ch <= "\u9fff" for ch in goal)]
    english = [goal for goal in goals if goal not in chinese]
    return chinese[:GOALS_PER_LANGUAGE] + english[:GOALS_PER_LANGUAGE]


@dataclass
class RunFigures:
    goal: str
    protocol: str
    saved: bool = False
    status: str = "error"
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False  # some counts are estimates: the server sent no usage
    seconds: float = 0.0
    unusable_replies: int = 0
    error: str | None = None
    tally: RunTally = field(default_factory=RunTally, repr=False)
    _last_prompt: int = field(default=0, repr=False)

    def observe(self, event: Event) -> None:
        self.tally.observe(event)
        if isinstance(event, ModelCallStarted):
            self._last_prompt = estimate_tokens(event.messages)
        elif isinstance(event, ModelCallFinished):
            self.calls += 1
            usage = event.usage
            if usage and usage.prompt_tokens:
                self.prompt_tokens += usage.prompt_tokens
                self.completion_tokens += usage.completion_tokens
            else:
                self.estimated = True
                self.prompt_tokens += self._last_prompt
                self.completion_tokens += estimate_tokens([event.reply])
        elif isinstance(event, RunFinished):
            self.status = event.status
            self.saved = event.status == "saved" or bool(event.plans_saved)


def run_one(goal: str, protocol: str, args: argparse.Namespace, catalog: Catalog, today: date) -> RunFigures:
    figures = RunFigures(goal, protocol)
    started = time.monotonic()
    # No retries: a timed-out request would be sent again to a single-slot server still generating the last one.
    model = OpenAIChatModel(args.model, args.api_key, args.base_url, args.temperature, timeout=args.run_deadline,
                            max_retries=0, deadline=args.run_deadline, max_tokens=args.max_tokens)
    with tempfile.TemporaryDirectory() as folder:
        context = ToolContext(today=today, catalog=catalog, plans_dir=Path(folder), goal=goal)
        agent = make_agent(model, context, args.max_steps, protocol)
        try:
            for event in agent.run(goal):
                figures.observe(event)
        except ModelError as exc:
            figures.error = str(exc)
        except Exception as exc:  # a bug or a server breaking the protocol: record it, go on with the next run
            figures.error = f"{type(exc).__name__}: {exc}"
        figures.saved = figures.saved or bool(context.saved_plans)
    figures.seconds = time.monotonic() - started
    figures.unusable_replies = len(figures.tally.unusable_steps)
    return figures


def summarize(protocol: str, runs: Sequence[RunFigures]) -> dict[str, Any]:
    saved = [run for run in runs if run.saved]
    plans = len(saved)
    calls = sum(run.calls for run in runs)

    def per_plan(total: float) -> float | None:
        return total / plans if plans else None

    return {
        "protocol": protocol,
        "runs": len(runs),
        "plans_saved": plans,
        "calls_per_plan_median": statistics.median(run.calls for run in saved) if saved else None,
        "prompt_tokens_per_plan": per_plan(sum(run.prompt_tokens for run in runs)),
        "completion_tokens_per_plan": per_plan(sum(run.completion_tokens for run in runs)),
        "seconds_per_plan": per_plan(sum(run.seconds for run in runs)),
        "seconds_per_run": sum(run.seconds for run in runs) / len(runs) if runs else None,
        "format_error_rate": sum(run.unusable_replies for run in runs) / calls if calls else None,
        "tokens_estimated": any(run.estimated for run in runs),
    }


def _cell(value: float | None, decimals: int = 0) -> str:
    if value is None:
        return "—"
    return f"{value:,.{decimals}f}"


def print_table(summaries: Sequence[dict[str, Any]]) -> None:
    print("| Protocol | Plans saved | Calls/plan (median) | Prompt tokens/plan | Completion tokens/plan "
          "| Seconds/plan | Format errors |")
    print("|---|---|---|---|---|---|---|")
    for s in summaries:
        estimated = " (est.)" if s["tokens_estimated"] else ""
        rate = "—" if s["format_error_rate"] is None else f"{s['format_error_rate']:.0%}"
        print(f"| {s['protocol']} | {s['plans_saved']} of {s['runs']} | {_cell(s['calls_per_plan_median'], 1)} "
              f"| {_cell(s['prompt_tokens_per_plan'])}{estimated} "
              f"| {_cell(s['completion_tokens_per_plan'])}{estimated} "
              f"| {_cell(s['seconds_per_plan'])} | {rate} |")


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--base-url", required=True, help="the OpenAI-compatible endpoint, ending in /v1")
    parser.add_argument("--model", required=True, help="the model name the server serves")
    parser.add_argument("--api-key", default="not-needed")
    parser.add_argument("--protocols", default=",".join(PROTOCOLS), help="comma-separated: tools,text,auto")
    parser.add_argument("--goal", action="append", help="a goal to run (repeatable); default: 6 eval goals")
    parser.add_argument("--goals", type=int, default=None, help="run only the first N goals of the set")
    parser.add_argument("--run-deadline", type=float, default=600.0, help="seconds one goal may take (600)")
    parser.add_argument("--max-tokens", type=int, default=1500, help="the longest reply asked for (1500)")
    parser.add_argument("--max-steps", type=int, default=8)
    parser.add_argument("--temperature", type=float, default=0.2)
    parser.add_argument("--today", type=date.fromisoformat, default=None, help="YYYY-MM-DD (default: today)")
    parser.add_argument("--json", type=Path, default=None, help="also write every run's figures here")
    return parser.parse_args(argv)


def main(argv: Sequence[str]) -> int:
    args = parse_args(argv)
    goals = args.goal or default_goal_set()
    goals = goals[: args.goals] if args.goals else goals
    protocols = [name.strip() for name in args.protocols.split(",") if name.strip()]
    catalog = Catalog.load()
    today = args.today or date.today()
    summaries, records = [], []
    for protocol in protocols:
        runs = []
        for goal in goals:
            run = run_one(goal, protocol, args, catalog, today)
            runs.append(run)
            note = f" — {run.error}" if run.error else ""
            print(f"[{protocol}] {goal}: {run.status}{' (saved)' if run.saved else ''}, {run.calls} calls, "
                  f"{run.seconds:.0f} s{note}", flush=True)
            records.append({key: value for key, value in vars(run).items() if not key.startswith("_")
                            and key != "tally"})
        summaries.append(summarize(protocol, runs))
    print()
    print(f"{args.model} at {args.base_url}, {len(goals)} goals, today {today.isoformat()}")
    print_table(summaries)
    if args.json:
        args.json.write_text(json.dumps({"summaries": summaries, "runs": records}, ensure_ascii=False, indent=2),
                             encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
