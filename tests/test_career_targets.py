"""Career targets (an interview, a job) shape the offline plan like exam targets: the target named in the
title, phases and self-checks, a week-1 diagnostic, mock interviews through the plan, and for a job a
portfolio by the end. Read from the plan file the planner writes."""

from __future__ import annotations

import re
from pathlib import Path

from test_offline import catalog, drive  # noqa: F401  (catalog is the module's fixture)

from studyplan.domain.catalog import Catalog


def test_a_zh_interview_goal_plans_for_the_interview(catalog: Catalog, tmp_path: Path) -> None:  # noqa: F811
    text, plan = drive("3个月准备数据分析面试", catalog, tmp_path).saved_plan()
    target = "数据分析岗位面试"
    assert target in plan.title
    assert all(f"目标：{target}" in phase.title for phase in plan.phases)
    assert any(target in check for phase in plan.phases for check in phase.self_check)
    first = plan.phases[0].weeks[0]
    assert any(task.startswith("摸底") and "模拟面试" in task for task in first.tasks)
    assert len(re.findall(r"第 \d+ 次模拟面试", text)) >= 2


def test_an_en_job_goal_plans_for_the_job_and_ends_with_a_portfolio(catalog: Catalog, tmp_path: Path) -> None:  # noqa: F811
    text, plan = drive("get a junior front-end job in 6 months", catalog, tmp_path).saved_plan()
    target = "a junior front-end job"
    assert target in plan.title
    assert all(f"target: {target}" in phase.title for phase in plan.phases)
    first = plan.phases[0].weeks[0]
    assert any(task.startswith("Diagnostic") and "job posting" in task for task in first.tasks)
    assert len(re.findall(r"Mock interview \d+", text)) >= 2
    final_checks = " ".join(plan.phases[-1].self_check)
    assert "public repository" in final_checks and "CV" in final_checks


def test_an_ordinary_goal_has_no_career_target(catalog: Catalog, tmp_path: Path) -> None:  # noqa: F811
    text, plan = drive("零基础3个月学机器学习", catalog, tmp_path).saved_plan()
    for word in ("面试", "摸底", "作品集", "简历"):
        assert word not in text
    assert not any("目标：" in phase.title for phase in plan.phases)
