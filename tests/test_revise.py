"""Revising a saved plan: the offline reviser, the scripted OpenAI-compatible server, done weeks, versions, diff."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from plan_samples import valid_plan
from scripted_server import ScriptedServer, call, reply

from studyplan.app.progress import ProgressStore
from studyplan.app.revise import (
    Pace,
    diff_plans,
    keep_version,
    replan_request,
    save_revision,
    week_signature,
)
from studyplan.cli.exit_codes import EXIT_DATA, EXIT_NO_PLAN, EXIT_OK
from studyplan.cli.main import run_cli
from studyplan.domain.catalog import Catalog
from studyplan.domain.checks import check_plan
from studyplan.domain.document import PlanDoc, parse_plan, render_plan
from studyplan.errors import ToolError
from studyplan.planner.context import ToolContext
from studyplan.planner.offline_reviser import Request, parse_request

START = date(2026, 11, 30)  # a Monday
KEY = "sk-test-revise-0123456789"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load()


@pytest.fixture
def small_plan(tmp_path: Path, catalog: Catalog) -> Path:
    """Six weeks in three phases (tests/plan_samples.py), saved as plans/ml.md."""
    path = tmp_path / "plans" / "ml.md"
    path.parent.mkdir()
    path.write_text(valid_plan(catalog, START), encoding="utf-8")
    return path


@pytest.fixture
def ml_plan(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Path:
    """The offline planner's 13-week machine-learning plan, renamed plans/ml.md."""
    monkeypatch.chdir(tmp_path)
    assert run_cli(["零基础3个月学机器学习", "--today", START.isoformat(), "--quiet"]) == EXIT_OK
    capsys.readouterr()
    (saved,) = (tmp_path / "plans").glob("*.md")
    return saved.rename(saved.with_name("ml.md"))


def revise(plan: Path, request: str, today: date, *extra: str) -> int:
    return run_cli(["revise", str(plan), request, "--today", today.isoformat(), *extra])


def plan_of(path: Path) -> PlanDoc:
    return parse_plan(path.read_text(encoding="utf-8"))


def versions(plan: Path) -> list[Path]:
    return sorted((plan.parent / ".versions").glob("*.md"))


def check_in_done(plan: Path, *weeks: int) -> None:
    store = ProgressStore.for_plan(plan)
    for week in weeks:
        store.record(plan, week, hours=12, note=None, done=True, on=START)


# --- offline ------------------------------------------------------------------------------------------


def test_lightening_a_week_keeps_the_done_week_and_the_previous_version(
    small_plan: Path, catalog: Catalog, capsys: pytest.CaptureFixture[str]
) -> None:
    original_text = small_plan.read_text(encoding="utf-8")
    before = plan_of(small_plan)
    check_in_done(small_plan, 1)

    code = revise(small_plan, "第三周太紧了，帮我减掉一半内容", date(2026, 12, 10))

    out = capsys.readouterr().out
    assert code == EXIT_OK
    after = plan_of(small_plan)
    assert week_signature(after.weeks[0], catalog) == week_signature(before.weeks[0], catalog)
    old_week_3 = before.weeks[2]
    assert after.weeks[2].tasks == old_week_3.tasks[:1]  # half of week 3 stays
    assert after.weeks[3].tasks == old_week_3.tasks[1:]  # the rest is the new week 4
    assert [w.number for w in after.weeks] == list(range(1, 8))
    assert after.weeks[-1].end == date(2027, 1, 17) and after.end == after.weeks[-1].end
    assert check_plan(small_plan.read_text(encoding="utf-8"), catalog) == []
    (kept,) = versions(small_plan)
    assert kept.read_text(encoding="utf-8") == original_text
    assert kept.name.startswith("ml.") and kept.parent.name == ".versions"
    assert ProgressStore.for_plan(small_plan).done_weeks(small_plan) == {1}  # progress survives the rewrite
    assert "What changed: 6 → 7 weeks" in out
    assert "added" in out and "moved" in out and "2 weeks unchanged" in out


@pytest.mark.parametrize(
    ("request_text", "weeks", "hours"),
    [
        ("压缩到4周", 4, 12),
        ("extend to 9 weeks", 9, 12),
        ("把第5周推迟一周", 7, 12),
        ("每周改成24小时", 3, 24),
        ("postpone week 1 by 2 weeks", 6, 12),
    ],
)
def test_offline_requests_give_a_valid_revised_plan(
    small_plan: Path, catalog: Catalog, capsys: pytest.CaptureFixture[str], request_text: str, weeks: int,
    hours: float,
) -> None:  # fmt: skip
    assert revise(small_plan, request_text, START) == EXIT_OK
    text = small_plan.read_text(encoding="utf-8")
    assert check_plan(text, catalog) == []
    plan = parse_plan(text)
    assert (len(plan.weeks), plan.hours_per_week) == (weeks, hours)
    assert len(versions(small_plan)) == 1
    assert "Previous version kept" in capsys.readouterr().out


def test_postponing_a_week_inserts_a_buffer_week_before_it(small_plan: Path) -> None:
    before = plan_of(small_plan)
    assert revise(small_plan, "把第5周推迟一周", START) == EXIT_OK
    after = plan_of(small_plan)
    assert after.weeks[4].courses == []  # the buffer week
    assert after.weeks[5].tasks == before.weeks[4].tasks and after.weeks[5].start == date(2027, 1, 4)


def test_dropping_and_adding_topics_on_the_offline_planners_plan(ml_plan: Path, catalog: Catalog) -> None:
    def topics(plan: PlanDoc) -> set[str]:
        return {catalog.find(ref).topics[0] for week in plan.weeks for ref in week.courses}  # type: ignore[union-attr]

    assert "linear_algebra" in topics(plan_of(ml_plan))
    assert revise(ml_plan, "去掉线性代数", START) == EXIT_OK
    dropped = plan_of(ml_plan)
    assert "linear_algebra" not in topics(dropped)
    assert check_plan(ml_plan.read_text(encoding="utf-8"), catalog) == []

    assert revise(ml_plan, "加上SQL", START) == EXIT_OK
    added = plan_of(ml_plan)
    assert "sql_databases" in topics(added)
    assert any(catalog.get(ref) and catalog.get(ref).topics[0] == "sql_databases" for ref in added.resources)
    assert len(added.weeks) > len(dropped.weeks) and len(added.phases) == len(dropped.phases) + 1
    assert check_plan(ml_plan.read_text(encoding="utf-8"), catalog) == []
    assert len(versions(ml_plan)) == 2


def test_a_request_the_offline_reviser_does_not_understand_changes_nothing(
    small_plan: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    original = small_plan.read_text(encoding="utf-8")
    assert revise(small_plan, "帮我写一首诗", START) == EXIT_NO_PLAN
    out = capsys.readouterr().out
    assert "压缩到8周" in out and "加上SQL" in out  # it says what it understands
    assert small_plan.read_text(encoding="utf-8") == original
    assert versions(small_plan) == []


def test_a_request_on_a_done_week_is_refused(small_plan: Path, capsys: pytest.CaptureFixture[str]) -> None:
    original = small_plan.read_text(encoding="utf-8")
    check_in_done(small_plan, 1, 2, 3)
    assert revise(small_plan, "第三周太紧了，帮我减掉一半内容", START) == EXIT_NO_PLAN
    assert "第 3 周不能修改" in capsys.readouterr().out
    assert small_plan.read_text(encoding="utf-8") == original


def test_a_missing_plan_is_a_data_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert revise(tmp_path / "nope.md", "压缩到8周", START) == EXIT_DATA
    assert "plan file not found" in capsys.readouterr().err


# --- through the scripted OpenAI-compatible server ----------------------------------------------------


def test_scripted_model_revision_is_refused_for_a_done_week_then_saved(
    small_plan: Path, catalog: Catalog, scripted_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    check_in_done(small_plan, 1)
    before = plan_of(small_plan)

    touching_week_1 = plan_of(small_plan)
    touching_week_1.weeks[0].tasks = ["skip the lectures"]
    changing_week_5 = plan_of(small_plan)
    changing_week_5.weeks[4].tasks = ["watch the lectures"]
    bad, good = render_plan(touching_week_1, catalog), render_plan(changing_week_5, catalog)
    scripted_server.add(
        reply("先读取计划。", [call("read_plan", "r1")]),
        reply("减轻第 5 周。", [call("save_revision", "s1", content=bad)]),
        reply("第 1 周已完成，不能改。", [call("save_revision", "s2", content=good)]),
        reply("已减轻第 5 周。"),
    )

    code = revise(small_plan, "第5周少一点", START, "--model", "scripted", "--base-url", scripted_server.base_url)

    out = capsys.readouterr().out
    assert code == EXIT_OK
    observations = [m["content"] for m in scripted_server.requests[2].body["messages"] if m["role"] == "tool"]
    assert "Weeks checked in as done: 1." in observations[0]  # read_plan told the model
    assert "must not change" in observations[1] and "week 1 changed (tasks)" in observations[1]  # the refusal
    after = plan_of(small_plan)
    assert after.weeks[0] == before.weeks[0]
    assert after.weeks[4].tasks == ["watch the lectures"]
    assert len(versions(small_plan)) == 1  # only the accepted save kept a version
    requests = scripted_server.requests
    assert {tool["function"]["name"] for tool in requests[0].body["tools"]} >= {"read_plan", "save_revision"}
    assert "save_plan" not in {tool["function"]["name"] for tool in requests[0].body["tools"]}
    assert "changed" in out and "5" in out  # the week diff


# --- the pieces ---------------------------------------------------------------------------------------


def test_save_revision_refuses_an_unchanged_plan(small_plan: Path, catalog: Catalog) -> None:
    context = ToolContext(START, catalog, small_plan.parent, readable_plan=small_plan)
    with pytest.raises(ToolError, match="same as the saved one"):
        save_revision(context, small_plan.read_text(encoding="utf-8"))
    assert versions(small_plan) == [] and context.saved_plans == []


def test_diff_shows_an_inserted_week_as_added_and_the_later_weeks_as_moved(catalog: Catalog) -> None:
    before = parse_plan(valid_plan(catalog, START))
    after = parse_plan(valid_plan(catalog, START))
    inserted = after.weeks[1]
    after.phases[0].weeks.insert(1, type(inserted)(0, inserted.start, inserted.end, [], "buffer", ["rest"], "-"))
    for number, week in enumerate(after.weeks, start=1):
        week.number = number
        week.start = START + timedelta(days=7 * (number - 1))
        week.end = week.start + timedelta(days=6)
    diff = diff_plans(before, after, catalog)
    kinds = [(change.kind, (change.after or change.before).number) for change in diff.changes]
    assert kinds == [("added", 2), ("moved", 3), ("moved", 4), ("moved", 5), ("moved", 6), ("moved", 7)]
    assert diff.unchanged == 1 and (diff.before_weeks, diff.after_weeks) == (6, 7)


def test_keep_version_never_overwrites(small_plan: Path) -> None:
    moment = datetime(2026, 12, 1, 9, 30, 0)
    text = small_plan.read_text(encoding="utf-8")
    first, second = keep_version(small_plan, text, moment), keep_version(small_plan, text, moment)
    assert first != second
    assert first.name == "ml.20261201-093000.md"
    assert first.read_text(encoding="utf-8") == second.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("第三周太紧了，帮我减掉一半内容", Request("lighten", week=3)),
        ("week 3 is too much, cut it in half", Request("lighten", week=3)),
        ("把第5周推迟一周", Request("postpone", week=5, weeks=1)),
        ("压缩到8周", Request("resize", weeks=8)),
        ("extend to 16 weeks", Request("resize", weeks=16)),
        ("延长两周", Request("resize", relative=2)),
        ("每周改成10小时", Request("hours", hours=10)),
        ("I only have 6 hours per week", Request("hours", hours=6)),
        ("去掉线性代数", Request("drop", topic="linear_algebra")),
        ("add SQL", Request("add", topic="sql_databases")),
        ("按实际进度重新安排：已完成第1-2周，落后5天", Request("replan", days_ahead=-5)),
        ("今天天气不错", None),
    ],
)
def test_requests_the_offline_reviser_understands(text: str, expected: Request | None) -> None:
    assert parse_request(text) == expected


# --- replan -------------------------------------------------------------------------------------------


def test_replan_request_sentence() -> None:
    behind = Pace(done_weeks=[1, 2], days_ahead=-5, measured_hours=None, planned_hours=8)
    assert replan_request(behind, "zh") == "按实际进度重新安排：已完成第1-2周，落后5天"
    slow = Pace(done_weeks=[1], days_ahead=-3, measured_hours=5, planned_hours=8)
    assert replan_request(slow, "en") == (
        "Replan from measured pace: week 1 done, 3 days behind, actually about 5 hours per week (planned 8)"
    )
    assert slow.off_pace and not Pace([1], 1, 8, 8).off_pace


def test_replan_when_behind_postpones_the_next_week(small_plan: Path, capsys: pytest.CaptureFixture[str]) -> None:
    check_in_done(small_plan, 1)
    before = plan_of(small_plan)
    # Thursday of week 3 with only week 1 done: well over a week behind.
    assert run_cli(["replan", str(small_plan), "--today", "2026-12-17"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "按实际进度重新安排：已完成第1周，落后" in out
    after = plan_of(small_plan)
    assert after.weeks[0] == before.weeks[0]
    assert after.weeks[1].courses == [] and after.weeks[2].tasks == before.weeks[1].tasks
    assert len(versions(small_plan)) == 1


def test_replan_on_pace_changes_nothing(small_plan: Path, capsys: pytest.CaptureFixture[str]) -> None:
    original = small_plan.read_text(encoding="utf-8")
    check_in_done(small_plan, 1)
    assert run_cli(["replan", str(small_plan), "--today", "2026-12-08"]) == EXIT_OK
    assert "On pace" in capsys.readouterr().out
    assert small_plan.read_text(encoding="utf-8") == original and versions(small_plan) == []
