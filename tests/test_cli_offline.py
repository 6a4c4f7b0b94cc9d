"""The main command on a fresh machine: no key, no network, the built-in planner, through the real CLI."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path

import pytest

from studyplan.cli.exit_codes import EXIT_DATA, EXIT_OK, EXIT_USAGE
from studyplan.cli.main import run_cli

ROOT = Path(__file__).resolve().parent.parent
CATALOG_IDS = {course["id"] for course in json.loads((ROOT / "courses.json").read_text(encoding="utf-8"))["courses"]}
WEEKDAYS_ZH = ["周一", "周二", "周三", "周四", "周五", "周六", "周日"]
WEEKDAYS_EN = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
DATE = r"(\d{4}-\d{2}-\d{2})\s*[（(]([^）)]+)[）)]"
WEEK_HEADING = re.compile(rf"^### (?:第 (\d+) 周|Week (\d+))[：:]\s*{DATE}\s*–\s*{DATE}", re.MULTILINE)


@pytest.fixture
def studyplan(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys):
    monkeypatch.chdir(tmp_path)

    def run(*args: str) -> tuple[int, str, str]:
        code = run_cli(list(args))
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


def check_plan_as_a_learner(text: str, today: date, lang: str) -> list[tuple[date, date]]:
    """What a learner checks: dated 7-day weeks from the start with the right weekdays, real courses, phases."""
    weeks = WEEK_HEADING.findall(text)
    assert weeks, "no week headings"
    names = WEEKDAYS_ZH if lang == "zh" else WEEKDAYS_EN
    start = date.fromisoformat(weeks[0][2])
    assert today <= start <= today + timedelta(days=14)
    ranges = []
    for index, (number_zh, number_en, first, first_day, last, last_day) in enumerate(weeks):
        assert int(number_zh or number_en) == index + 1
        first_date, last_date = date.fromisoformat(first), date.fromisoformat(last)
        assert first_date == start + timedelta(days=7 * index) and last_date == first_date + timedelta(days=6)
        assert first_day == names[first_date.weekday()] and last_day == names[last_date.weekday()]
        ranges.append((first_date, last_date))
    for course_id in re.findall(r"\[([a-z0-9][a-z0-9-]*)\]", text):
        assert course_id in CATALOG_IDS, f"course {course_id} is not in courses.json"
    phase_heading = "## 阶段 " if lang == "zh" else "## Phase "
    self_check = "### 自检清单" if lang == "zh" else "### Self-check"
    phases = text.count(f"\n{phase_heading}")
    assert phases >= 3
    assert text.count(f"\n{self_check}") == phases
    for block in text.split(self_check)[1:]:
        assert "- [ ] " in block.split("\n## ")[0]
    return ranges


GOALS = [
    ("零基础3个月学机器学习", "zh", 13),
    ("我零基础，想用12周系统地学习Python，每周6小时", "zh", 12),
    ("半年学会深度学习，有Python基础", "zh", 26),
    ("两个月准备雅思，每天1小时", "zh", 9),
    ("九十天入门SQL和数据库", "zh", 13),
    ("从下周一开始，8周学日语入门", "zh", 8),
    ("I know Python; 8 weeks of web development, 6 hours a week", "en", 8),
    ("Learn machine learning from scratch in 3 months", "en", 13),
    ("A semester of algorithms and data structures, intermediate level", "en", 16),
    ("Prepare for the TOEFL in 10 weeks, 5 hours per week", "en", 10),
    ("Learn data analysis with Python in 6 weeks starting next Monday", "en", 6),
]


@pytest.mark.parametrize(("goal", "lang", "weeks"), GOALS, ids=[goal for goal, _, _ in GOALS])
def test_offline_plans_a_learner_can_follow(studyplan, tmp_path: Path, goal: str, lang: str, weeks: int) -> None:
    code, out, err = studyplan(goal, "--today", "2026-12-02")
    assert code == EXIT_OK, err
    assert "offline" in out and "\x1b[" not in out  # captured output is not a terminal: plain text
    saved = list((tmp_path / "plans").glob("*.md"))
    assert len(saved) == 1
    ranges = check_plan_as_a_learner(saved[0].read_text(encoding="utf-8"), date(2026, 12, 2), lang)
    assert len(ranges) == weeks
    assert f"Plan saved: plans/{saved[0].name}" in out


def test_starting_next_monday_is_dated_from_that_monday(studyplan, tmp_path: Path) -> None:
    code, _, _ = studyplan("从下周一开始，8周学日语入门", "--today", "2026-12-02")
    assert code == EXIT_OK
    text = next((tmp_path / "plans").glob("*.md")).read_text(encoding="utf-8")
    assert "### 第 1 周：2026-12-07（周一） – 2026-12-13（周日）" in text


def test_quiet_prints_only_the_path_and_summary(studyplan) -> None:
    code, out, _ = studyplan("Learn SQL in 4 weeks", "--today", "2026-11-30", "--quiet")
    assert code == EXIT_OK
    lines = out.splitlines()
    assert lines[0].startswith("plans/") and lines[0].endswith(".md")
    assert "Thought" not in out and "Observation" not in out


def test_running_twice_never_overwrites(studyplan, tmp_path: Path) -> None:
    for _ in range(2):
        assert studyplan("Learn SQL in 4 weeks", "--today", "2026-11-30", "-q")[0] == EXIT_OK
    assert sorted(path.name for path in (tmp_path / "plans").glob("*.md")) == [
        "sql-databases-4w-2.md",
        "sql-databases-4w.md",
    ]


@pytest.mark.parametrize(
    ("goal", "fragment"),
    [
        ("   ", "The goal is empty"),
        ("学习量子烹饪", "可选主题"),
        ("3天学会机器学习", "周"),
        ("用100年学Python", "年"),
    ],
    ids=["empty", "unknown-topic", "three-days", "hundred-years"],
)
def test_bad_goals_get_one_line_and_save_nothing(studyplan, tmp_path: Path, goal: str, fragment: str) -> None:
    code, out, err = studyplan(goal, "--today", "2026-11-30")
    assert code == EXIT_USAGE
    assert err.startswith("Error: ") and err.count("\n") == 1 and fragment in err
    assert "Traceback" not in out + err
    assert not list(tmp_path.glob("plans/*.md"))


def test_malformed_catalog_is_named_in_the_error(studyplan, tmp_path: Path) -> None:
    (tmp_path / "broken.json").write_text('{"courses": [ {"id": "x",} ]', encoding="utf-8")
    code, _, err = studyplan("learn python", "--catalog", "broken.json")
    assert code == EXIT_DATA and "broken.json" in err and err.count("\n") == 1


def test_a_named_model_without_an_endpoint_is_a_usage_error(studyplan) -> None:
    code, _, err = studyplan("learn python", "--model", "gpt-4o")
    assert code == EXIT_USAGE and "offline" in err


def test_version(studyplan) -> None:
    code, out, _ = studyplan("--version")
    assert code == EXIT_OK and out.startswith("studyplan ")


def test_python_dash_m_runs_the_same_cli(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "studyplan", "Learn SQL in 4 weeks", "--today", "2026-11-30", "-q"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "OPENAI_API_KEY": ""},
    )
    assert result.returncode == EXIT_OK, result.stderr
    assert result.stdout.splitlines()[0] == "plans/sql-databases-4w.md"
