"""The checks save_plan runs: a good plan passes, and each rule has a plan that breaks exactly that rule."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import pytest
from plan_samples import TRUTHFUL_STYLES, Style, variant_plan
from scripted_server import ScriptedServer, call, reply

from studyplan.cli.exit_codes import EXIT_OK
from studyplan.cli.main import run_cli
from studyplan.domain.catalog import Catalog, Course
from studyplan.domain.checks import check_plan, review_plan
from studyplan.domain.document import Phase, PlanDoc, Week, parse_plan, render_plan
from studyplan.planner.context import ToolContext
from studyplan.planner.tools import save_plan


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


# --- read what is true, refuse what is false, fix what is mechanical (issue 10, point 4) -------------------------

TODAY = date(2026, 12, 1)  # a Tuesday
NEXT_MONDAY = date(2026, 12, 7)


@pytest.fixture(scope="module")
def real_catalog() -> Catalog:
    return Catalog.load()


def _essentials(plan: PlanDoc) -> tuple[object, ...]:
    """What the learner's calendar holds, whatever the wording: dates, weeks, courses, hours, phases."""
    weeks = tuple((w.number, w.start, w.end, tuple(w.courses)) for w in plan.weeks)
    phases = tuple((p.number, tuple(w.number for w in p.weeks), len(p.self_check)) for p in plan.phases)
    return plan.start, plan.end, plan.hours_per_week, weeks, phases, tuple(plan.resources)


@pytest.mark.parametrize("style", TRUTHFUL_STYLES.values(), ids=TRUTHFUL_STYLES.keys())
def test_a_truthful_plan_written_any_usual_way_is_accepted(real_catalog: Catalog, style: Style) -> None:
    text = variant_plan(real_catalog, NEXT_MONDAY, style)
    review = review_plan(text, real_catalog, TODAY)
    assert review.problems == [] and review.plan is not None
    canonical = review_plan(variant_plan(real_catalog, NEXT_MONDAY, Style(lang=style.lang)), real_catalog, TODAY)
    assert canonical.plan is not None
    assert _essentials(review.plan) == _essentials(canonical.plan)
    assert review.plan.lang == style.lang
    # What is written is the canonical rendering, which the strict check accepts as written.
    rendered = render_plan(review.plan, real_catalog)
    assert check_plan(rendered, real_catalog, TODAY) == []
    assert "```" not in rendered


def test_what_code_derives_is_filled_in_and_said(real_catalog: Catalog, tmp_path: Path) -> None:
    style = Style(refs="bare_id", resources=None, header="no_end")
    text = variant_plan(real_catalog, NEXT_MONDAY, style).replace("- 每周投入：约 10 小时\n", "")
    ctx = ToolContext(today=TODAY, catalog=real_catalog, plans_dir=tmp_path / "plans")

    result = save_plan(ctx, text, "ml.md")

    saved = (tmp_path / "plans" / "ml.md").read_text(encoding="utf-8")
    lines = saved.splitlines()
    assert "- 结束：2027-01-17（周日）" in lines
    assert "- 每周投入：10 小时" in lines  # the busiest week: ml-supervised, 10 h a week
    assert "- 课程：[py4e] Programming for Everybody (Getting Started with Python)" in lines
    kaggle = "- [kaggle-intro-ml] Intro to Machine Learning — Kaggle Learn — https://"
    assert any(line.startswith(kaggle) for line in lines)
    assert result.text.splitlines()[1] == (
        "Filled in: the end date line (the last week's last day), the weekly time line (the hours the weeks' "
        "courses ask for), the resources list (every course the weeks use)."
    )


def _falsified(catalog: Catalog, old: str, new: str, style: Style | None = None) -> str:
    text = variant_plan(catalog, NEXT_MONDAY, style or Style())
    assert text.count(old) >= 1, old
    return text.replace(old, new)


# Each case: a truthful variant with one falsehood, and the instruction the model gets (a substring).
DEFECTS: dict[str, tuple[Style, str, str, str]] = {
    "a course not in the catalog": (
        Style(),
        "[kaggle-intro-ml] Intro to Machine Learning",
        "[ML101] 机器学习基础",
        "Course '[ML101] 机器学习基础' is not in the catalog. Use only courses returned by search_courses",
    ),
    "a link that is not the catalog's": (
        Style(lang="en", refs="link", resources="link"),
        "https://www.kaggle.com/learn/intro-to-machine-learning",
        "https://www.coursera.org/learn/intro-ml",
        "links to https://www.coursera.org/learn/intro-ml, which is not the catalog's link for [kaggle-intro-ml] "
        "Intro to Machine Learning; use https://www.kaggle.com/learn/intro-to-machine-learning",
    ),
    "an id and a name of two courses": (
        Style(),
        "[kaggle-intro-ml] Intro to Machine Learning",
        "[py4e] Intro to Machine Learning",
        "mixes two courses: [py4e] is [py4e] Programming for Everybody",
    ),
    "a wrong weekday": (
        Style(),
        "2026-12-13（周日）",
        "2026-12-13（周六）",
        "Week 1: 2026-12-13 is a Sunday (周日), not 周六.",
    ),
    "a week off the 7-day grid": (
        Style(lang="en", weeks="table"),
        "2026-12-21 (Mon) – 2026-12-27 (Sun)",
        "2026-12-22 (Tue) – 2026-12-28 (Mon)",
        "Week 3: dates must be 2026-12-21 – 2026-12-27 (consecutive 7-day weeks counted from the start 2026-12-07)",
    ),
    "weeks out of order": (
        Style(weeks="bold"),
        "**第 4 周：",
        "**第 5 周：",
        "Week numbers must run 1, 2, 3, ... in order without gaps or repeats; found 1, 2, 3, 5, 5, 6.",
    ),
    "a start before today": (
        Style(),
        "2026-12-07（周一）",  # the start line and week 1: the whole plan a week earlier
        "2026-11-30（周一）",
        "The start date 2026-11-30 is in the past (today is 2026-12-01)",
    ),
    "fewer than 3 phases": (
        Style(),
        "## 阶段 3：实战项目\n",
        "",
        "The plan has 2 phase(s); group the weeks into at least 3 phases",
    ),
    "a phase without self-checks": (
        Style(self_check="阶段自测"),
        "### 阶段自测\n- [ ] 能解释梯度下降\n",
        "",
        'Phase 2 (机器学习核心) has no self-check items; add "### 自检清单（阶段 2）"',
    ),
    "more course hours than the plan has": (
        Style(lang="en"),
        "- Weekly time: 10 hours",
        "- Weekly time: 6 hours",
        "The listed courses need 50.5 hours (py4e 17.5 h, ml-supervised 30 h, kaggle-intro-ml 3 h) but the plan has "
        '36 hours (6 weeks × 6 hours/week); add a "## Time note" section',
    ),
    "an end that is not the last week's end": (
        Style(header="bold_keys"),
        "**结束日期**：2027-01-17（周日）",
        "**结束日期**：2027-01-24（周日）",
        "The end date 2027-01-24 must be the last week's last day, 2027-01-17.",
    ),
    "a heading over several weeks": (
        Style(lang="en"),
        "### Week 6: 2027-01-11 (Mon) – 2027-01-17 (Sun)",
        "### Weeks 6-7: 2027-01-11 – 2027-01-24",
        'The heading "Weeks 6-7: 2027-01-11 – 2027-01-24" covers several weeks',
    ),
}


@pytest.mark.parametrize("case", DEFECTS)
def test_each_falsehood_is_refused_with_an_instruction(real_catalog: Catalog, case: str) -> None:
    style, old, new, instruction = DEFECTS[case]
    review = review_plan(_falsified(real_catalog, old, new, style), real_catalog, TODAY)
    assert review.plan is None
    assert any(instruction in problem for problem in review.problems), review.problems


def test_a_start_before_today_is_refused_even_without_a_start_line(real_catalog: Catalog) -> None:
    text = variant_plan(real_catalog, date(2026, 11, 23), Style(lang="en")).replace("- Start: 2026-11-23 (Mon)\n", "")
    review = review_plan(text, real_catalog, TODAY)
    assert review.problems == [
        "The start date 2026-11-23 is in the past (today is 2026-12-01); start on or after today, e.g. "
        "2026-12-07 (Mon), and redate every week from it."
    ]


# --- a competent model that writes its own Markdown, end to end through the CLI ----------------------------------

# The ways of point 4 at once: Chinese names written "Name：URL", weeks as bold lines, 参考资源, 阶段自测, no end line.
COMPETENT_STYLE = Style(
    refs="name_url", resources="name_url", resources_heading="参考资源", self_check="阶段自测", weeks="bold",
    header="no_end",
)


def test_a_competent_model_writing_its_own_markdown_is_saved_on_its_first_draft(
    scripted_server: ScriptedServer,
    real_catalog: Catalog,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    markdown = variant_plan(real_catalog, NEXT_MONDAY, COMPETENT_STYLE)
    scripted_server.add(
        reply(
            "先确认日期，同时查机器学习课程。",
            [
                call("get_current_date", "c1"),
                call("search_courses", "c2", topic="机器学习", level="beginner"),
            ],
        ),
        reply("零基础要先学 Python。", [call("search_courses", "c3", topic="python", level="初级")]),
        reply("计划写好了，保存。", [call("save_plan", "c4", content=markdown, filename="ml-6w.md")]),
        reply("已为你生成 6 周的机器学习计划：plans/ml-6w.md"),
    )
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-competent-0123456789")
    monkeypatch.chdir(tmp_path)

    code = run_cli(
        ["零基础3个月学机器学习", "--model", "scripted-model", "--base-url", scripted_server.base_url,
         "--today", TODAY.isoformat(), "--protocol", "tools"]
    )

    capsys.readouterr()
    assert code == EXIT_OK
    assert len(scripted_server.bodies) == 4  # date + search, search, save, answer: no refused draft
    saved = (tmp_path / "plans" / "ml-6w.md").read_text(encoding="utf-8")
    plan = parse_plan(saved)
    assert (plan.start, plan.end, plan.hours_per_week) == (NEXT_MONDAY, date(2027, 1, 17), 10)
    assert [week.courses for week in plan.weeks] == [["py4e"]] * 2 + [["ml-supervised"]] * 3 + [["kaggle-intro-ml"]]
    assert "- 结束：2027-01-17（周日）" in saved.splitlines()  # filled in
    assert saved == render_plan(plan, real_catalog)  # the canonical rendering, not the model's Markdown
