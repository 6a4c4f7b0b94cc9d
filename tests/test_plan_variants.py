"""Read what is true, refuse what is false, fix what is mechanical (issue 10, point 4): a truthful plan written
the ways models write it is saved; each falsehood is refused with an instruction the model can act on."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from plan_samples import TRUTHFUL_STYLES, Style, variant_plan
from scripted_server import ScriptedServer, call, reply

from studyplan.cli.exit_codes import EXIT_OK
from studyplan.cli.main import run_cli
from studyplan.domain.catalog import Catalog
from studyplan.domain.checks import check_plan, review_plan
from studyplan.domain.document import PlanDoc, parse_plan, render_plan
from studyplan.domain.references import resolve_reference
from studyplan.errors import ToolError
from studyplan.planner.context import ToolContext
from studyplan.planner.tools import save_plan

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


def test_a_plan_without_a_weekly_time_line_gets_the_goals_hours(real_catalog: Catalog, tmp_path: Path) -> None:
    text = variant_plan(real_catalog, NEXT_MONDAY, Style(header="no_weekly_time"))
    goal = "零基础6周学机器学习，每周12小时"
    ctx = ToolContext(today=TODAY, catalog=real_catalog, plans_dir=tmp_path / "plans", goal=goal)
    result = save_plan(ctx, text, "ml.md")
    assert "- 每周投入：12 小时" in (tmp_path / "plans" / "ml.md").read_text(encoding="utf-8").splitlines()
    assert "the weekly time line (the hours the goal gives)" in result.text


def test_the_goals_hours_are_checked_against_the_courses(real_catalog: Catalog, tmp_path: Path) -> None:
    text = variant_plan(real_catalog, NEXT_MONDAY, Style(header="no_weekly_time"))
    goal = "零基础6周学机器学习，每周6小时"  # 36 hours for 50.5 hours of courses
    ctx = ToolContext(today=TODAY, catalog=real_catalog, plans_dir=tmp_path / "plans", goal=goal)
    with pytest.raises(ToolError) as refused:
        save_plan(ctx, text, "ml.md")
    assert '(6 weeks × 6 hours/week); add a "## 时间说明" section' in str(refused.value)
    assert not (tmp_path / "plans" / "ml.md").exists()


@pytest.mark.parametrize(
    ("ref", "course_id"),
    [
        ("py4e（第 1-3 章）", "py4e"),
        ("`kaggle-intro-ml`", "kaggle-intro-ml"),
        ("[py4e] Programming for Everybody — 第 1–3 章", "py4e"),
        ("[python-for-everybody] Programming for Everybody (Getting Started with Python)", "py4e"),
        ("Programming for Everybody (Getting Started with Python), chapters 1-3", "py4e"),
        ("《人人学 Python：Python 入门》", "py4e"),
        ("人人学 Python：Python 入门（University of Michigan）", "py4e"),
        ("**Intro to Machine Learning**", "kaggle-intro-ml"),
        ("Intro to Machine Learning by Kaggle Learn", "kaggle-intro-ml"),
        ("Intro to Machine Learning Kaggle Learn", "kaggle-intro-ml"),
        ("Supervised Machine Learning: Regression and Classification – Coursera", "ml-supervised"),
        ("吴恩达机器学习：监督学习（回归与分类）：https://www.coursera.org/learn/machine-learning", "ml-supervised"),
        ("[吴恩达机器学习](https://www.coursera.org/learn/machine-learning/)", "ml-supervised"),
        ("<https://www.kaggle.com/learn/intro-to-machine-learning>", "kaggle-intro-ml"),
    ],
)
def test_course_references_as_models_write_them(real_catalog: Catalog, ref: str, course_id: str) -> None:
    resolution = resolve_reference(ref, real_catalog)
    assert resolution.problem is None and resolution.course is not None
    assert resolution.course.id == course_id


@pytest.mark.parametrize(
    ("ref", "problem"),
    [
        ("[ML101] 机器学习基础", "unknown"),
        ("Kaggle Intro to ML", "unknown"),
        ("[py4e] Intro to Machine Learning", "mixed"),
        ("[Intro to Machine Learning](https://www.coursera.org/learn/intro-ml)", "wrong_link"),
    ],
)
def test_course_references_that_are_wrong(real_catalog: Catalog, ref: str, problem: str) -> None:
    assert resolve_reference(ref, real_catalog).problem == problem
