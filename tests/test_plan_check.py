"""The checks save_plan runs: a good plan passes, and each rule has a plan that breaks exactly that rule."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from studyplan.domain.catalog import Catalog, Course
from studyplan.domain.checks import check_plan
from studyplan.domain.document import Phase, PlanDoc, Week, render_plan


def _course(course_id: str, name: str, weeks: int, hours: float, name_zh: str | None = None) -> Course:
    return Course(
        id=course_id,
        name=name,
        name_zh=name_zh,
        provider="Provider",
        url=f"https://example.org/{course_id}",
        topics=("machine-learning",),
        level="beginner",
        weeks=weeks,
        hours_per_week=hours,
        prerequisites=(),
        description="A course.",
    )


COURSES = [
    _course("py4e", "Python for Everybody", 7, 4, name_zh="Python 编程入门"),  # 28 h
    _course("ml-specialization", "Machine Learning Specialization", 9, 5),  # 45 h
    _course("deep-learning", "Deep Learning Specialization", 16, 5),  # 80 h
]


@pytest.fixture
def catalog() -> Catalog:
    return Catalog(COURSES)


# 6 weeks × 15 h = 90 h for 28 h + 45 h of courses: no time note needed.
GOOD_ZH = """\
# 学习计划：机器学习（零基础 · 6 周）

> 目标：零基础6周入门机器学习

- 开始：2026-11-30（周一）
- 结束：2027-01-10（周日）
- 每周投入：15 小时

## 阶段 1：编程基础（第 1–2 周）

### 第 1 周：2026-11-30（周一） – 2026-12-06（周日）
- 课程：[py4e] Python for Everybody
- 内容：课程第 1–4 周：变量、条件、循环、函数
- 任务：
  - 做完每章练习
- 产出：猜数字小程序

### 第 2 周：2026-12-07（周一） – 2026-12-13（周日）
- 课程：[py4e] Python for Everybody
- 内容：课程第 5–7 周：字符串、文件、列表
- 任务：
  - 读写一个 CSV 文件
- 产出：数据读取脚本

### 自检清单（阶段 1）
- [ ] 能独立写一个函数

## 阶段 2：机器学习（第 3–5 周）

### 第 3 周：2026-12-14（周一） – 2026-12-20（周日）
- 课程：[ml-specialization] Machine Learning Specialization
- 内容：课程第 1–3 周：线性回归
- 任务：
  - 完成课程实验
- 产出：回归实验笔记

### 第 4 周：2026-12-21（周一） – 2026-12-27（周日）
- 课程：[ml-specialization] Machine Learning Specialization
- 内容：课程第 4–6 周：逻辑回归
- 任务：
  - 完成课程实验
- 产出：分类实验笔记

### 第 5 周：2026-12-28（周一） – 2027-01-03（周日）
- 课程：[ml-specialization] Machine Learning Specialization
- 内容：课程第 7–9 周：无监督学习
- 任务：
  - 完成课程实验
- 产出：聚类实验笔记

### 自检清单（阶段 2）
- [ ] 能解释梯度下降

## 阶段 3：项目（第 6 周）

### 第 6 周：2027-01-04（周一） – 2027-01-10（周日）
- 课程：无（复习与项目）
- 内容：复习并做一个综合项目
- 任务：
  - 做一个房价预测
- 产出：项目报告

### 自检清单（阶段 3）
- [ ] 能向别人讲清楚项目

## 课程资源

- [py4e] Python for Everybody（Python 编程入门） — Provider — https://example.org/py4e — 7 周 × 4 小时/周
- [ml-specialization] Machine Learning Specialization — https://example.org/ml-specialization — 9 周 × 5 小时/周
"""


def _good_with(old: str, new: str) -> str:
    """GOOD_ZH with one exact passage replaced (the passage must occur exactly once)."""
    assert GOOD_ZH.count(old) == 1, old
    return GOOD_ZH.replace(old, new)


def test_the_good_plan_has_no_problems(catalog: Catalog) -> None:
    assert check_plan(GOOD_ZH, catalog, today=date(2026, 11, 28)) == []


def test_starting_today_is_fine(catalog: Catalog) -> None:
    assert check_plan(GOOD_ZH, catalog, today=date(2026, 11, 30)) == []


def test_a_rendered_english_plan_has_no_problems(catalog: Catalog) -> None:
    assert check_plan(render_plan(_english_plan(), catalog), catalog) == []


def _english_plan() -> PlanDoc:
    start = date(2026, 11, 30)

    def week(number: int, courses: list[str]) -> Week:
        first = start + timedelta(days=7 * (number - 1))
        return Week(number, first, first + timedelta(days=6), courses, "course weeks", ["exercises"], "notes")

    return PlanDoc(
        title="Machine learning (beginner · 4 weeks)",
        goal="learn machine learning",
        lang="en",
        start=start,
        end=start + timedelta(days=27),
        hours_per_week=20,
        phases=[
            Phase(1, "Python", [week(1, ["py4e"])], ["write a function"]),
            Phase(2, "ML", [week(2, ["ml-specialization"]), week(3, [])], ["explain loss"]),
            Phase(3, "Project", [week(4, [])], ["present the project"]),
        ],
        resources=["py4e", "ml-specialization"],
    )


# --- course references ---------------------------------------------------------------------------------


def test_an_unknown_course_in_a_week_gets_the_closest_catalog_courses(catalog: Catalog) -> None:
    text = _good_with(
        "2026-12-20（周日）\n- 课程：[ml-specialization] Machine Learning Specialization",
        "2026-12-20（周日）\n- 课程：Machine Learning Specialisation",
    )
    problems = check_plan(text, catalog)
    assert len(problems) == 1
    assert problems[0].startswith(
        "Course 'Machine Learning Specialisation' is not in the catalog. Use only courses returned by "
        "search_courses, written as [id] name. Closest: [ml-specialization] Machine Learning Specialization"
    )


def test_an_unknown_course_in_the_resources_list(catalog: Catalog) -> None:
    text = GOOD_ZH + "- [magic-ml] Intro to Magic ML — Nowhere — https://example.org/magic\n"
    problems = check_plan(text, catalog)
    assert len(problems) == 1
    assert problems[0].startswith(
        "Course '[magic-ml] Intro to Magic ML' is not in the catalog. "
        "Use only courses returned by search_courses, written as [id] name."
    )


def test_a_known_name_with_an_invented_id(catalog: Catalog) -> None:
    text = _good_with(
        "2026-12-06（周日）\n- 课程：[py4e]", "2026-12-06（周日）\n- 课程：[python-for-everybody]"
    )
    assert check_plan(text, catalog) == [
        "Course '[python-for-everybody] Python for Everybody': the id [python-for-everybody] is not in the "
        "catalog; write it as [py4e] Python for Everybody."
    ]


def test_an_id_and_a_name_of_two_different_courses(catalog: Catalog) -> None:
    text = _good_with(
        "2026-12-06（周日）\n- 课程：[py4e] Python for Everybody",
        "2026-12-06（周日）\n- 课程：[py4e] Machine Learning Specialization",
    )
    assert check_plan(text, catalog) == [
        "Course '[py4e] Machine Learning Specialization' mixes two courses: [py4e] is [py4e] Python for "
        "Everybody, but 'Machine Learning Specialization' is [ml-specialization] Machine Learning "
        "Specialization; keep the id and name of the one you mean."
    ]


def test_a_scheduled_course_missing_from_the_resources_list(catalog: Catalog) -> None:
    text = _good_with(
        "- [py4e] Python for Everybody（Python 编程入门） — Provider — https://example.org/py4e"
        " — 7 周 × 4 小时/周\n",
        "",
    )
    assert check_plan(text, catalog) == [
        'Courses used in the weeks are missing from the "## 课程资源" list: [py4e] Python for Everybody; '
        "list every course the plan uses there."
    ]


# --- time budget ---------------------------------------------------------------------------------------

OVER_BUDGET = _good_with(
    "2027-01-03（周日）\n- 课程：[ml-specialization] Machine Learning Specialization",
    "2027-01-03（周日）\n- 课程：[deep-learning] Deep Learning Specialization",
).replace(
    "## 课程资源\n\n",
    "## 课程资源\n\n- [deep-learning] Deep Learning Specialization — Provider — https://example.org/deep-learning\n",
)


def test_courses_beyond_the_weekly_budget_need_a_time_note(catalog: Catalog) -> None:
    assert check_plan(OVER_BUDGET, catalog) == [
        "The listed courses need 153 hours (py4e 28 h, ml-specialization 45 h, deep-learning 80 h) but the "
        'plan has 90 hours (6 weeks × 15 hours/week); add a "## 时间说明" section saying what was compressed '
        "or left out."
    ]


def test_a_time_note_accepts_courses_beyond_the_budget(catalog: Catalog) -> None:
    text = OVER_BUDGET.replace(
        "## 阶段 1：", "## 时间说明\n\n深度学习专项只学第一门课，其余留到计划之后。\n\n## 阶段 1：", 1
    )
    assert check_plan(text, catalog) == []


# --- dates ---------------------------------------------------------------------------------------------


def test_a_week_off_the_seven_day_grid(catalog: Catalog) -> None:
    text = _good_with(
        "### 第 2 周：2026-12-07（周一） – 2026-12-13（周日）",
        "### 第 2 周：2026-12-08（周二） – 2026-12-14（周一）",
    )
    assert check_plan(text, catalog) == [
        "Week 2: dates must be 2026-12-07 – 2026-12-13 (consecutive 7-day weeks counted from the start "
        "2026-11-30); found 2026-12-08 – 2026-12-14."
    ]


def test_an_end_date_that_is_not_the_last_weeks_end(catalog: Catalog) -> None:
    text = _good_with("- 结束：2027-01-10（周日）", "- 结束：2027-01-09（周六）")
    assert check_plan(text, catalog) == [
        "The end date 2027-01-09 must be the last week's last day, 2027-01-10."
    ]


def test_a_wrong_weekday_in_a_week_heading(catalog: Catalog) -> None:
    text = _good_with("### 第 3 周：2026-12-14（周一）", "### 第 3 周：2026-12-14（周二）")
    assert check_plan(text, catalog) == ["Week 3: 2026-12-14 is a Monday (周一), not 周二."]


def test_a_wrong_weekday_on_the_start_line(catalog: Catalog) -> None:
    text = _good_with("- 开始：2026-11-30（周一）", "- 开始：2026-11-30（周日）")
    assert check_plan(text, catalog) == ["Start: 2026-11-30 is a Monday (周一), not 周日."]


def test_a_wrong_weekday_in_an_english_plan(catalog: Catalog) -> None:
    text = render_plan(_english_plan(), catalog).replace("2026-12-06 (Sun)", "2026-12-06 (Sat)")
    assert check_plan(text, catalog) == ["Week 1: 2026-12-06 is a Sunday, not Sat."]


def test_week_numbers_with_a_gap(catalog: Catalog) -> None:
    text = _good_with(
        "### 第 6 周：2027-01-04（周一） – 2027-01-10（周日）",
        "### 第 7 周：2027-01-11（周一） – 2027-01-17（周日）",
    ).replace("- 结束：2027-01-10（周日）", "- 结束：2027-01-17（周日）")
    assert check_plan(text, catalog) == [
        "Week numbers must run 1, 2, 3, ... in order without gaps or repeats; found 1, 2, 3, 4, 5, 7."
    ]


def test_a_week_heading_without_dates(catalog: Catalog) -> None:
    text = _good_with("### 第 2 周：2026-12-07（周一） – 2026-12-13（周日）", "### 第 2 周：继续 Python")
    assert check_plan(text, catalog) == [
        'Week 2 has no start and end dates; write its heading as "### 第 2 周：2026-12-07（周一） – '
        '2026-12-13（周日）".'
    ]


def test_a_heading_that_covers_several_weeks(catalog: Catalog) -> None:
    text = _good_with(
        "### 自检清单（阶段 3）",
        "### 第 7–8 周：2027-01-11 – 2027-01-24\n- 课程：无\n\n### 自检清单（阶段 3）",
    )
    assert check_plan(text, catalog) == [
        'The heading "第 7–8 周：2027-01-11 – 2027-01-24" covers several weeks; '
        "give each week its own heading "
        'like "### 第 1 周：2026-11-30（周一） – 2026-12-06（周日）".'
    ]


def test_a_start_date_in_the_past(catalog: Catalog) -> None:
    assert check_plan(GOOD_ZH, catalog, today=date(2026, 12, 1)) == [
        "The start date 2026-11-30 is in the past (today is 2026-12-01); start on or after today, e.g. "
        "2026-12-07（周一）, and redate every week from it."
    ]


# --- required lines ------------------------------------------------------------------------------------


def test_a_missing_start_line(catalog: Catalog) -> None:
    text = _good_with("- 开始：2026-11-30（周一）\n", "")
    assert check_plan(text, catalog) == [
        'The plan has no start date line; add "- 开始：2026-11-30（周一）" right under the goal.'
    ]


def test_a_missing_end_line(catalog: Catalog) -> None:
    text = _good_with("- 结束：2027-01-10（周日）\n", "")
    assert check_plan(text, catalog) == [
        'The plan has no end date line; add "- 结束：2027-01-10（周日）" '
        "(the last week's last day) under the start line."
    ]


def test_a_missing_weekly_time_line(catalog: Catalog) -> None:
    text = _good_with("- 每周投入：15 小时\n", "")
    assert check_plan(text, catalog) == [
        'The plan has no weekly time line; add "- 每周投入：12.5 小时" under the end line.'
    ]


def test_a_plan_without_weeks(catalog: Catalog) -> None:
    text = GOOD_ZH.split("## 阶段 1")[0]
    assert check_plan(text, catalog) == [
        "The plan has no week headings; give every week its own heading like "
        '"### 第 1 周：2026-11-30（周一） – 2026-12-06（周日）".',
        'The plan has 0 phase(s); group the weeks into at least 3 phases, each headed like "## 阶段 1：..." '
        "and closed by a self-check list.",
    ]


# --- phases --------------------------------------------------------------------------------------------


def test_fewer_than_three_phases(catalog: Catalog) -> None:
    text = _good_with("## 阶段 3：项目（第 6 周）\n\n", "")
    assert check_plan(text, catalog) == [
        'The plan has 2 phase(s); group the weeks into at least 3 phases, each headed like "## 阶段 1：..." '
        "and closed by a self-check list."
    ]


def test_a_phase_without_self_check_items(catalog: Catalog) -> None:
    text = _good_with("### 自检清单（阶段 2）\n- [ ] 能解释梯度下降\n", "")
    assert check_plan(text, catalog) == [
        'Phase 2 (机器学习) has no self-check items; add "### 自检清单（阶段 2）" '
        'with "- [ ] ..." items after its last week.'
    ]


def test_a_phase_without_weeks(catalog: Catalog) -> None:
    extra_phase = "## 阶段 4：拓展\n\n### 自检清单（阶段 4）\n- [ ] 读一篇论文\n\n"
    text = _good_with("## 课程资源", extra_phase + "## 课程资源")
    assert check_plan(text, catalog) == ["Phase 4 (拓展) has no weeks; move weeks into it or remove it."]


def test_a_course_whose_name_another_course_shares_is_not_mixed_up() -> None:
    git_courses = [_course(course_id, "Version Control with Git", 1, 2) for course_id in ("git-a", "git-b")]
    text = _good_with("- 课程：无（复习与项目）", "- 课程：[git-b] Version Control with Git").replace(
        "## 课程资源\n\n", "## 课程资源\n\n- [git-b] Version Control with Git — Provider — https://example.org/git-b\n"
    )
    assert check_plan(text, Catalog(COURSES + git_courses)) == []
