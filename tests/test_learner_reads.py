"""Offline plans read as a learner reads them: the time note's numbers agree with what it concludes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from studyplan.cli.exit_codes import EXIT_OK
from studyplan.cli.main import run_cli


def written_plan(goal: str, plans_dir: Path) -> str:
    """The one plan file the offline planner writes for `goal` on 2026-12-01."""
    code = run_cli([goal, "--today", "2026-12-01", "--plans-dir", str(plans_dir), "-q"])
    assert code == EXIT_OK
    (path,) = plans_dir.glob("*.md")
    return path.read_text(encoding="utf-8")


def time_note(plan: str) -> str:
    match = re.search(r"^## (?:时间说明|Time note)\n\n(.+?)\n", plan, re.MULTILINE)
    return match.group(1) if match else ""


def test_courses_that_fit_the_weeks_are_not_compressed(tmp_path: Path) -> None:
    # The courses fit the 12 course weeks × 8 h: a unit longer than a week is split where it starts, so
    # nothing is compressed and no note contradicts itself ("needs 91.5 h, only 104 h, so compressed").
    plan = written_plan("零基础3个月学机器学习", tmp_path)
    assert "压缩" not in plan
    assert "只有" not in time_note(plan)


def test_a_learner_writing_chinese_gets_the_chinese_courses_of_the_catalog(tmp_path: Path) -> None:
    plan = written_plan("零基础3个月学机器学习", tmp_path)
    assert "[bit-python] Python语言程序设计" in plan and "[hylee-ml-2022]" in plan  # 嵩天's Python, 李宏毅's ML
    assert "[py4e]" not in plan and "[ml-supervised]" not in plan
    # taken in part, and the plan says how far: Python up to functions, ML from regression and classification
    note = time_note(plan)
    assert "《Python语言程序设计》前 5 个单元（学到「第5周 · 函数和代码复用」" in note
    assert "《Machine Learning 2022 Spring》前 3 个单元" in note
    assert "HW1 · Regression" in plan and "HW2 · Classification" in plan and "HW4 · Self-attention" not in plan
    assert "完成《Python语言程序设计》的结课测验" not in plan  # no final exam of a course taken in part


def test_a_learner_writing_english_keeps_the_english_courses(tmp_path: Path) -> None:
    plan = written_plan("Learn machine learning from zero in 3 months", tmp_path)
    assert "[py4e]" in plan and "[ml-supervised]" in plan
    assert "[bit-python]" not in plan and "[hylee-ml-2022]" not in plan
    assert "compressed" not in plan


@pytest.mark.parametrize(
    "goal",
    [
        "零基础6周学Python，每周3小时",
        "Learn Python from zero in 4 weeks, 3 hours a week",
        "Learn React in 4 weeks, 3 hours a week",
    ],
)
def test_a_time_note_that_compresses_says_the_hours_the_courses_have(goal: str, tmp_path: Path) -> None:
    note = time_note(written_plan(goal, tmp_path))
    need = re.search(r"(?:共需约|take about) ([\d.]+) (?:小时|hours)", note)
    have = re.search(r"(?:只有|give only) ([\d.]+) (?:小时|hours)", note)
    assert need and have, note
    assert float(need.group(1)) > float(have.group(1))  # "needs more than there is", in numbers that say so
    weeks = re.search(r"(\d+) (?:周|course weeks) × ([\d.]+) (?:小时/周|hours/week)", note)
    assert weeks and int(weeks.group(1)) * float(weeks.group(2)) == float(have.group(1))


@pytest.mark.parametrize(
    "goal", ["I know Python; 8 weeks of web development, 6 hours a week", "我会Python，8周学Web开发，每周6小时"]
)
def test_web_development_for_a_python_programmer_is_front_and_back_end(goal: str, tmp_path: Path) -> None:
    plan = written_plan(goal, tmp_path)
    courses = re.findall(r"^- (?:Course|课程)：?:? ?(.+)$", plan, re.MULTILINE)
    assert any(re.search(r"HTML|CSS|JavaScript", line, re.IGNORECASE) for line in courses)  # front-end basics
    assert any(re.search(r"Django|Flask|FastAPI", line) for line in courses)  # a back end in Python
    title = plan.splitlines()[0]
    assert ("Web front-end" in title or "Web 前端" in title) and ("back-end" in title or "后端" in title)
    assert "new to Web front-end." not in plan and "按Web 前端零基础" not in plan
