"""Issue 11 point 7: revise and replan do what was asked, on the offline planner's own plan, read back as a
learner would (weeks, hours, title, the answer)."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest

from studyplan.app.progress import ProgressStore
from studyplan.cli.exit_codes import EXIT_OK
from studyplan.cli.main import run_cli
from studyplan.domain.catalog import Catalog
from studyplan.domain.checks import check_plan
from studyplan.domain.document import PlanDoc, parse_plan
from studyplan.engine.pace import WeekRecord, measure_pace, replan_request
from studyplan.engine.revision_request import Request, parse_request

START = date(2026, 11, 30)  # a Monday
_HOURS = re.compile(r"(?:约|about) ([\d.]+) (?:小时|h\b)")


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load()


def planned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, goal: str) -> Path:
    monkeypatch.chdir(tmp_path)
    assert run_cli([goal, "--today", START.isoformat(), "--quiet"]) == EXIT_OK
    (saved,) = (tmp_path / "plans").glob("*.md")
    return saved


def plan_of(path: Path) -> PlanDoc:
    return parse_plan(path.read_text(encoding="utf-8"))


def study_hours(tasks: list[str]) -> float:
    """The hours the study tasks state (the ones that name a course, in 《》 or with "about")."""
    return round(sum(float(m.group(1)) for task in tasks if (m := _HOURS.search(task)) and "余下" not in task), 1)


def test_cutting_a_week_in_half_halves_its_hours_and_says_where_the_rest_went(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], catalog: Catalog
) -> None:
    path = planned(tmp_path, monkeypatch, "零基础3个月学机器学习")
    before = plan_of(path)
    assert len(before.weeks) == 13 and "13 周" in before.title
    week_3_hours = study_hours(before.weeks[2].tasks)
    assert 5 <= week_3_hours <= 8  # a week of study to cut (week 3 ends the Python course at 6 h)
    capsys.readouterr()
    assert run_cli(["revise", str(path), "第三周太紧了，帮我减掉一半内容", "--today", START.isoformat()]) == EXIT_OK
    out = capsys.readouterr().out
    assert path.name == "machine-learning-13w.md" and not path.exists()
    path = path.with_name("machine-learning-14w.md")  # the name follows the new length
    after = plan_of(path)
    assert study_hours(after.weeks[2].tasks) == pytest.approx(week_3_hours / 2, abs=0.1)  # half stays
    assert study_hours(after.weeks[3].tasks) == pytest.approx(week_3_hours / 2, abs=0.1)  # half is in week 4
    assert len(after.weeks) == 14 and "14 周" in after.title and "13 周" not in after.title
    assert "4" in out and "第 4 周" in out  # the answer says where the rest went
    assert check_plan(path.read_text(encoding="utf-8"), catalog) == []


@pytest.mark.parametrize(
    ("request_text", "first", "second"), [("把第二周和第三周对调", 2, 3), ("swap weeks 2 and 3", 2, 3)]
)
def test_swapping_two_weeks(
    request_text: str, first: int, second: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = planned(tmp_path, monkeypatch, "零基础3个月学机器学习")
    before = plan_of(path)
    assert run_cli(["revise", str(path), request_text, "--today", START.isoformat(), "--quiet"]) == EXIT_OK
    after = plan_of(path)
    assert after.weeks[first - 1].content == before.weeks[second - 1].content
    assert after.weeks[second - 1].content == before.weeks[first - 1].content
    assert after.weeks[first - 1].start == before.weeks[first - 1].start  # dates stay with the positions
    assert len(after.weeks) == len(before.weeks)


def test_skipping_a_week_for_a_holiday_moves_the_rest_one_week_later(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = planned(tmp_path, monkeypatch, "Learn machine learning from scratch in 3 months")
    before = plan_of(path)
    assert run_cli(["revise", str(path), "skip week 5, I'm on holiday", "--today", START.isoformat(), "-q"]) == 0
    after = plan_of(path.with_name("machine-learning-14w.md"))
    assert len(after.weeks) == len(before.weeks) + 1
    assert after.weeks[4].courses == []  # a free week where week 5 was
    assert after.weeks[5].content == before.weeks[4].content
    assert "14 weeks" in after.title


def test_dropping_a_course_by_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, catalog: Catalog) -> None:
    path = planned(tmp_path, monkeypatch, "Learn machine learning from scratch in 3 months")
    before = plan_of(path)
    statistics = next(ref for ref in before.resources if "statistic" in catalog.get(ref).name.lower())
    assert run_cli(["revise", str(path), "drop the statistics course", "--today", START.isoformat(), "-q"]) == 0
    path = path.with_name("machine-learning-11w.md")  # two weeks that only studied statistics went
    after = plan_of(path)
    assert statistics not in {ref for week in after.weeks for ref in week.courses}
    assert check_plan(path.read_text(encoding="utf-8"), catalog) == []


def test_more_project_based(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = planned(tmp_path, monkeypatch, "Learn machine learning from scratch in 3 months")
    assert run_cli(["revise", str(path), "make it more project-based", "--today", START.isoformat(), "-q"]) == 0
    after = plan_of(path)
    course_weeks = [week for week in after.weeks if week.courses]
    assert all(any(task.startswith("Project:") for task in week.tasks) for week in course_weeks)


def test_a_request_it_does_not_understand_lists_what_it_understands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = planned(tmp_path, monkeypatch, "Learn machine learning from scratch in 3 months")
    text = path.read_text(encoding="utf-8")
    capsys.readouterr()
    run_cli(["revise", str(path), "make it sparkle", "--today", START.isoformat()])
    out = capsys.readouterr().out
    assert "swap weeks 2 and 3" in out and "skip week 5" in out and "project-based" in out
    assert path.read_text(encoding="utf-8") == text


def test_a_replan_needs_a_full_week_of_check_ins_and_states_the_measured_pace() -> None:
    day_0 = [WeekRecord(1, date(2026, 12, 6), True, 12), WeekRecord(2, date(2026, 12, 13), True, 12)]
    early = measure_pace(day_0, START, days_ahead=14, planned_hours=8)
    assert early.measured_weeks == 0
    assert parse_request(replan_request(early, "zh")) == Request(
        "replan", days_ahead=14, hours=12, measured_weeks=0
    )
    later = measure_pace(day_0[:1], date(2026, 12, 9), days_ahead=-2, planned_hours=8)
    assert later.measured_weeks == 1
    assert "measured over 1 week" in replan_request(later, "en")


def test_replan_on_day_zero_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = planned(tmp_path, monkeypatch, "零基础3个月学机器学习")
    text = path.read_text(encoding="utf-8")
    store = ProgressStore.for_plan(path)
    for week in (1, 2, 3):
        store.record(path, week, hours=8, note=None, done=True, on=START)
    capsys.readouterr()
    run_cli(["replan", str(path), "--today", START.isoformat()])
    out = capsys.readouterr().out
    assert path.read_text(encoding="utf-8") == text
    assert "一整周" in out
