"""`studyplan eval`: the metrics, computed from scripted runs whose numbers are known, and the reports."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from plan_samples import valid_plan
from scripted_model import ScriptedModel
from scripted_model import call as model_call
from scripted_server import call, reply
from test_batch import GoalRoutedServer, saving_trajectory

from studyplan.app.evaluate import RunTally, classify_refusal, default_goals, percentile
from studyplan.cli.main import run_cli
from studyplan.core.agent import Agent, AgentConfig
from studyplan.core.model import ModelReply
from studyplan.domain.catalog import Catalog
from studyplan.errors import ToolError
from studyplan.planner.context import ToolContext
from studyplan.planner.task import plan_task
from studyplan.planner.tools import build_registry, save_plan

TODAY = date(2026, 11, 30)
ML_GOAL = "零基础3个月学机器学习"
SQL_GOAL = "Learn SQL in 6 weeks"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load()


def refusal(plan: str, catalog: Catalog, tmp_path: Path) -> list[str]:
    """The problems save_plan reports (in its refusal's data) for `plan`."""
    context = ToolContext(today=TODAY, catalog=catalog, plans_dir=tmp_path / "plans")
    with pytest.raises(ToolError) as refused:
        save_plan(context, plan, "plan.md")
    return list(refused.value.data["problems"])


def test_refusals_are_classified_from_the_checker_messages(catalog: Catalog, tmp_path: Path) -> None:
    plan = valid_plan(catalog, TODAY)
    invented = plan.replace("[ml-supervised] Supervised", "[deep-magic-101] Magic")
    misdated = plan.replace("2026-12-07", "2026-12-08", 1)
    check_start = plan.index("### 自检清单（阶段 3）")
    no_self_check = plan[:check_start] + plan[plan.index("## ", check_start + 4):]
    assert classify_refusal(refusal(invented, catalog, tmp_path)) == (True, False)
    assert classify_refusal(refusal(misdated, catalog, tmp_path)) == (False, True)
    assert classify_refusal(refusal(no_self_check, catalog, tmp_path)) == (False, False)  # a format slip, not invention


def test_nearest_rank_percentile() -> None:
    assert percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 90) == 9
    assert percentile([2, 3], 90) == 3
    assert percentile([4], 90) == 4


def tally_of(replies: list[ModelReply], catalog: Catalog, tmp_path: Path) -> RunTally:
    context = ToolContext(today=TODAY, catalog=catalog, plans_dir=tmp_path / "plans")
    agent = Agent(ScriptedModel(replies), build_registry(context), plan_task(), AgentConfig(max_steps=6))
    tally = RunTally()
    for event in agent.run(ML_GOAL):
        tally.observe(event)
    return tally


def test_an_answer_claiming_a_plan_that_was_never_saved_is_a_hallucination(catalog: Catalog, tmp_path: Path) -> None:
    claim = ModelReply("I saved your 12-week plan to plans/ml-12w.md. Start with [py4e].")
    tally = tally_of([claim, claim], catalog, tmp_path)
    assert tally.unsupported_answers == 2  # the early answer and the last one
    assert tally.hallucinated and tally.steps_to_plan is None


def test_an_honest_refusal_is_not_a_hallucination(catalog: Catalog, tmp_path: Path) -> None:
    honest = ModelReply("The catalog has no course for this topic, so I cannot make a plan.")
    searched = ModelReply(None, [model_call("search_courses", "c1", topic="basket weaving")])
    tally = tally_of([searched, honest, honest], catalog, tmp_path)
    assert tally.unsupported_answers == 0 and not tally.hallucinated
    assert tally.replies == 3 and tally.clean_replies == 3


def test_eval_compares_models_from_known_scripted_runs(
    tmp_path: Path, catalog: Catalog, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "120")  # the table's rows on one line each
    plan = valid_plan(catalog, TODAY)
    invented = plan.replace("[ml-supervised] Supervised", "[deep-magic-101] Magic")
    scripts = {
        # 4 replies; the first plan names a course that does not exist; saved at step 3.
        ML_GOAL: [
            reply(tool_calls=[call("get_current_date")]),
            reply(tool_calls=[call("save_plan", content=invented, filename="ml.md")]),
            *saving_trajectory(plan, "ml.md")[1:],
        ],
        # 3 replies; the first has unusable arguments (weeks="many"); saved at step 2.
        SQL_GOAL: [
            reply(tool_calls=[call("plan_calendar", start_date="2026-11-30", weeks="many")]),
            *saving_trajectory(plan, "sql.md")[1:],
        ],
    }
    goals = tmp_path / "goals.txt"
    goals.write_text(f"{ML_GOAL}\n{SQL_GOAL}\n", encoding="utf-8")
    report = tmp_path / "out" / "report.md"
    with GoalRoutedServer(scripts) as server:
        code = run_cli(["eval", str(goals), "-m", "scripted-model", "-m", "offline", "--base-url", server.base_url,
                        "--protocol", "tools", "--jobs", "2", "--today", TODAY.isoformat(), "--report", str(report)])
    assert code == 0
    data = json.loads(report.with_suffix(".json").read_text(encoding="utf-8"))
    summaries = {summary["model"]: summary for summary in data["summaries"]}
    scripted = summaries["scripted-model"]
    assert scripted["protocol"] == "tools" and scripted["goals"] == 2 and scripted["plans"] == 2
    assert scripted["success_rate"] == 1.0
    assert scripted["hallucination_rate"] == 0.5  # one of the two runs had a plan refused for an invented course
    assert scripted["format_stability"] == pytest.approx(6 / 7)  # 7 replies, one with unusable arguments
    assert scripted["steps_median"] == 2.5 and scripted["steps_p90"] == 3
    assert scripted["tokens_per_plan"] == pytest.approx(7 * 15 / 2)  # the server reports 10 + 5 per reply
    assert scripted["errors"] == 0
    offline = summaries["offline"]
    assert offline["success_rate"] == 1.0 and offline["hallucination_rate"] == 0.0
    assert offline["format_stability"] == 1.0 and offline["tokens_per_plan"] is None

    ml_run = next(r for r in data["runs"] if r["model"] == "scripted-model" and r["goal"] == ML_GOAL)
    assert ml_run["invented_course_refusals"] == 1 and ml_run["plan_submissions"] == 2

    markdown = report.read_text(encoding="utf-8")
    assert "| scripted-model | tools | 100% (2 plans) | 86% | 50% | 2.5 | 3 | 52 | " in markdown
    assert "| offline | tools | 100% (2 plans) | 100% | 0% |" in markdown
    out = capsys.readouterr().out
    assert "scripted-model" in out and "offline" in out and "50%" in out and "86%" in out
    assert "report.md" in out and "report.json" in out
    # Plans written during an evaluation go to a temporary folder unless --plans-dir is given.
    assert not (tmp_path / "plans").exists()


def test_the_shipped_goal_set_is_varied() -> None:
    goals = default_goals()
    assert len(goals) >= 30
    chinese = [g for g in goals if any("\u4e00" <= ch <= "\u9fff" for ch in g.goal)]
    assert 10 <= len(chinese) <= len(goals) - 10
    assert sum(g.expect == "no_plan" for g in goals) >= 3


def test_offline_evaluation_of_the_shipped_goals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "eval.md"
    assert run_cli(["eval", "--today", TODAY.isoformat(), "--jobs", "4", "--report", str(report)]) == 0
    summary = json.loads(report.with_suffix(".json").read_text(encoding="utf-8"))["summaries"][0]
    # Every good goal gets a plan and every bad input is declined, at the first attempt.
    assert summary["model"] == "offline" and summary["success_rate"] == 1.0
    assert summary["hallucination_rate"] == 0.0 and summary["format_stability"] == 1.0
    assert "Evaluation on the built-in goal set" in capsys.readouterr().out
