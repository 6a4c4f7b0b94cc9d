"""The plan Markdown format: rendering reads well, render → parse round-trips, parsing is lenient."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from studyplan.domain.catalog import Catalog, Course
from studyplan.domain.document import (
    Phase,
    PlanDoc,
    Week,
    course_ref_parts,
    parse_plan,
    plan_template,
    render_labels,
    render_plan,
)
from studyplan.errors import PlanFileError

PY4E = Course(
    id="py4e",
    name="Python for Everybody",
    name_zh="Python 编程入门",
    provider="University of Michigan",
    url="https://www.py4e.com/",
    topics=("python",),
    level="beginner",
    weeks=7,
    hours_per_week=4,
    prerequisites=(),
    description="Programming from zero with Python.",
)
ML = Course(
    id="ml-specialization",
    name="Machine Learning Specialization",
    name_zh=None,
    provider="DeepLearning.AI & Stanford",
    url="https://www.coursera.org/specializations/machine-learning-introduction",
    topics=("machine-learning",),
    level="beginner",
    weeks=9,
    hours_per_week=5,
    prerequisites=("py4e",),
    description="Supervised and unsupervised learning, the classic Andrew Ng course.",
)
START = date(2026, 11, 30)  # a Monday


@pytest.fixture
def catalog() -> Catalog:
    return Catalog([PY4E, ML])


def _week(number: int, courses: list[str], content: str) -> Week:
    start = START + timedelta(days=7 * (number - 1))
    return Week(
        number=number,
        start=start,
        end=start + timedelta(days=6),
        courses=courses,
        content=content,
        tasks=[f"完成第 {number} 周的练习", "写学习笔记"],
        deliverable=f"第 {number} 周的笔记",
    )


def sample_plan(lang: str = "zh") -> PlanDoc:
    return PlanDoc(
        title="机器学习（零基础 · 12 周）" if lang == "zh" else "Machine learning (beginner · 12 weeks)",
        goal="零基础3个月学机器学习",
        lang=lang,  # type: ignore[arg-type]
        start=START,
        end=START + timedelta(days=83),
        hours_per_week=7.5,
        phases=[
            Phase(1, "编程基础", [_week(n, ["py4e"], f"课程第 {n} 周") for n in range(1, 4)], ["能写函数"]),
            Phase(
                2,
                "机器学习核心",
                [_week(4, ["py4e", "ml-specialization"], "收尾 Python，开始机器学习")]
                + [_week(n, ["ml-specialization"], f"课程第 {n - 3} 周") for n in range(5, 11)],
                ["能解释梯度下降", "能训练一个线性回归模型"],
            ),
            Phase(3, "综合项目", [_week(n, [], "复习与项目") for n in (11, 12)], ["完成一个端到端项目"]),
        ],
        resources=["py4e", "ml-specialization"],
        time_note="第 9 周把两门课的练习合并，少做一个可选实验。",
        assumptions=["每周能学习 7.5 小时", "有一台能上网的电脑"],
    )


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_render_then_parse_gives_the_same_plan(catalog: Catalog, lang: str) -> None:
    plan = sample_plan(lang)
    assert parse_plan(render_plan(plan, catalog)) == plan


def test_round_trip_without_optional_sections(catalog: Catalog) -> None:
    plan = replace(sample_plan("en"), time_note=None, assumptions=[])
    text = render_plan(plan, catalog)
    assert "## Time note" not in text and "## Assumptions" not in text
    assert parse_plan(text) == plan


def test_zh_rendering_reads_like_the_documented_format(catalog: Catalog) -> None:
    lines = render_plan(sample_plan("zh"), catalog).splitlines()
    assert lines[0] == "# 学习计划：机器学习（零基础 · 12 周）"
    for expected in [
        "> 目标：零基础3个月学机器学习",
        "- 开始：2026-11-30（周一）",
        "- 结束：2027-02-21（周日）",
        "- 每周投入：7.5 小时",
        "## 时间说明",
        "## 前提与假设",
        "## 阶段 1：编程基础（第 1–3 周）",
        "### 第 1 周：2026-11-30（周一） – 2026-12-06（周日）",
        "- 课程：[py4e] Python for Everybody",
        "- 课程：[py4e] Python for Everybody；[ml-specialization] Machine Learning Specialization",
        "- 课程：无（复习与项目）",
        "- 任务：",
        "  - 写学习笔记",
        "- 产出：第 1 周的笔记",
        "### 自检清单（阶段 2）",
        "- [ ] 能解释梯度下降",
        "## 课程资源",
        "- [py4e] Python for Everybody（Python 编程入门） — University of Michigan — https://www.py4e.com/"
        " — 7 周 × 4 小时/周",
    ]:
        assert expected in lines


def test_en_rendering_reads_like_the_documented_format(catalog: Catalog) -> None:
    lines = render_plan(sample_plan("en"), catalog).splitlines()
    assert lines[0] == "# Study plan: Machine learning (beginner · 12 weeks)"
    for expected in [
        "- Start: 2026-11-30 (Mon)",
        "- End: 2027-02-21 (Sun)",
        "- Weekly time: 7.5 hours",
        "## Phase 3: 综合项目 (weeks 11–12)",
        "### Week 12: 2027-02-15 (Mon) – 2027-02-21 (Sun)",
        "- Course: [py4e] Python for Everybody; [ml-specialization] Machine Learning Specialization",
        "- Course: none (review and project)",
        "### Self-check (phase 1)",
        "## Resources",
        "- [ml-specialization] Machine Learning Specialization — DeepLearning.AI & Stanford — "
        "https://www.coursera.org/specializations/machine-learning-introduction — 9 weeks × 5 h/week",
    ]:
        assert expected in lines


def test_a_course_missing_from_the_catalog_is_rendered_as_written(catalog: Catalog) -> None:
    plan = sample_plan()
    plan.phases[0].weeks[0].courses = ["Intro to Magic ML"]
    text = render_plan(plan, catalog)
    assert "- 课程：Intro to Magic ML" in text.splitlines()
    assert parse_plan(text).weeks[0].courses == ["Intro to Magic ML"]


LLM_PLAN_ZH = """\
好的！下面是为你定制的学习计划：

# 机器学习三个月入门计划

**目标**: 零基础3个月学机器学习
* **开始日期**：2026/11/30
* 结束: 2026年12月27日 周日
* 每周学习时间：约 10 小时/周

先说明一下：这个计划比较紧凑。

## 时间说明
Python 课只学前 5 周的内容，
机器学习课的可选实验不做。

#### 第一阶段 - Python 打底 (第1~2周)

##### 第1周 (2026-11-30 至 2026-12-06)
- **课程**: Python for Everybody
- **内容**: 变量、条件、循环
- **任务**: 装好 Python; 做完课后练习
- **产出**: 一个猜数字小程序

这一周别着急，慢慢来。

##### 第2周：2026.12.07 ~ 2026.12.13
- 课程：[py4e] Python for Everybody、[ml-specialization] Machine Learning Specialization
- 内容：
  - 函数与文件
  - 机器学习概览
- 任务：
  1. 读取一个 CSV 文件
  2. 画一张图
- 产出：数据读取脚本

**自检清单**
- [x] 能独立写一个函数
- [ ] 能读写文件

## 阶段二：机器学习（第3周）

### Week 3: 2026-12-14 to 2026-12-20
- 课程：[Machine Learning Specialization](https://www.coursera.org/specializations/machine-learning-introduction)
- 内容：线性回归
- 任务：
  - 跑通课程实验
- 产出：回归实验笔记

### 阶段 2 自检
1. 能解释损失函数

## 阶段 3：项目（第 4 周）

### 第 4 周：2026-12-21（周一）— 2026-12-27（周日）
- 课程：无
- 内容：综合项目
- 任务：
  - 做一个房价预测
- 产出：项目报告
- 自检：能向别人讲清楚项目

## 参考资料
1. Python for Everybody - University of Michigan - 7 周
2. [ml-specialization] Machine Learning Specialization | Coursera

祝你学习顺利！
"""


def test_lenient_parse_of_an_llm_style_plan() -> None:
    plan = parse_plan(LLM_PLAN_ZH)

    assert plan.lang == "zh"
    assert plan.title == "机器学习三个月入门计划"
    assert plan.goal == "零基础3个月学机器学习"
    assert (plan.start, plan.end, plan.hours_per_week) == (START, date(2026, 12, 27), 10)
    assert plan.time_note == "Python 课只学前 5 周的内容，\n机器学习课的可选实验不做。"
    assert [(phase.number, phase.title) for phase in plan.phases] == [
        (1, "Python 打底"),
        (2, "机器学习"),
        (3, "项目"),
    ]
    assert [phase.self_check for phase in plan.phases] == [
        ["能独立写一个函数", "能读写文件"],
        ["能解释损失函数"],
        ["能向别人讲清楚项目"],
    ]
    week1, week2, week3, week4 = plan.weeks
    assert [week.number for week in plan.weeks] == [1, 2, 3, 4]
    assert [(week.start, week.end) for week in plan.weeks] == [
        (START + timedelta(days=7 * n), START + timedelta(days=7 * n + 6)) for n in range(4)
    ]
    assert week1.courses == ["Python for Everybody"]
    assert week1.tasks == ["装好 Python", "做完课后练习"]
    assert week1.deliverable == "一个猜数字小程序"
    assert week2.courses == ["py4e", "ml-specialization"]
    assert week2.course_refs == [
        "[py4e] Python for Everybody",
        "[ml-specialization] Machine Learning Specialization",
    ]
    assert week2.content == "函数与文件; 机器学习概览"
    assert week2.tasks == ["读取一个 CSV 文件", "画一张图"]
    assert week3.courses == ["Machine Learning Specialization"]
    assert week4.courses == []
    assert (week4.start_weekday, week4.end_weekday) == ("周一", "周日")
    assert plan.resources == ["Python for Everybody", "ml-specialization"]
    assert plan.resource_refs == [
        "Python for Everybody",
        "[ml-specialization] Machine Learning Specialization",
    ]


LLM_PLAN_EN = """\
Here is your plan.

## Study Plan: Machine learning in 3 weeks
Goal: learn ML basics
Start: 2026-11-30 (Monday)
End: 2026-12-20 (Sunday)
Weekly time: 6h

### Phase 1 — Python
#### Week 1 (2026-11-30 – 2026-12-06)
* Course: [PY4E] Python for Everybody
* Tasks:
    * install Python
* Deliverable: hello.py
#### Self check
* [ ] can run a script

### Phase 2: ML (weeks 2-3)
#### Week 2: Dec plan 2026-12-07 (Mon) - 2026-12-13 (Sun)
* Courses: none
#### Week 3: 2026-12-14 - 2026-12-20
* Course: Machine Learning Specialization + Python for Everybody
"""


def test_lenient_parse_of_an_english_plan() -> None:
    plan = parse_plan(LLM_PLAN_EN)
    assert plan.lang == "en"
    assert plan.title == "Machine learning in 3 weeks"
    assert (plan.start, plan.end, plan.hours_per_week) == (START, date(2026, 12, 20), 6)
    assert [phase.title for phase in plan.phases] == ["Python", "ML"]
    assert [phase.self_check for phase in plan.phases] == [["can run a script"], []]
    assert [week.courses for week in plan.weeks] == [
        ["PY4E"],
        [],
        ["Machine Learning Specialization", "Python for Everybody"],
    ]
    assert plan.weeks[0].tasks == ["install Python"]
    assert plan.weeks[0].start_weekday is None
    assert plan.weeks[1].start_weekday == "Mon"


def test_start_and_end_default_to_the_first_and_last_week() -> None:
    text = (
        "# Plan\n- Weekly time: 5 hours\n"
        "## Week 1: 2026-11-30 – 2026-12-06\n## Week 2: 2026-12-07 – 2026-12-13\n"
    )
    plan = parse_plan(text)
    assert (plan.start, plan.end) == (START, date(2026, 12, 13))


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("# 学习计划\n- 每周投入：8 小时\n随便写写\n", "no week headings"),
        ("- 每周投入：8 小时\n### 第 1 周：下周一开始\n", "week 1 of the plan has no start and end dates"),
        ("### Week 1: 2026-11-30 – 2026-12-06\n", "no weekly time line"),
    ],
)
def test_parse_names_the_missing_essential(text: str, reason: str) -> None:
    with pytest.raises(PlanFileError, match=reason) as caught:
        parse_plan(text)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("ref", "parts"),
    [
        ("[py4e] Python for Everybody", ("py4e", "Python for Everybody")),
        ("【py4e】Python for Everybody", ("py4e", "Python for Everybody")),
        ("[Python for Everybody](https://www.py4e.com/)", (None, "Python for Everybody")),
        ("`py4e`", (None, "py4e")),
        ("Python for Everybody", (None, "Python for Everybody")),
    ],
)
def test_course_reference_parts(ref: str, parts: tuple[str | None, str]) -> None:
    assert course_ref_parts(ref) == parts


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_template_uses_the_same_labels_as_the_renderer(lang: str) -> None:
    template = plan_template(lang)  # type: ignore[arg-type]
    labels = render_labels(lang)  # type: ignore[arg-type]
    for key in ("title", "goal", "start", "end", "weekly_time", "course", "content", "deliverable"):
        assert labels[key].split("{")[0] in template, key
    for key in ("time_note", "assumptions", "tasks", "resources", "no_course"):
        assert labels[key] in template, key
    assert labels["phase"].format(number=1, title="") in template
    assert labels["week"].format(number=1, start="", end="").split("–")[0].strip() in template
    assert labels["self_check"].format(number=1) in template


def test_template_of_an_unknown_language_is_refused() -> None:
    with pytest.raises(ValueError, match="fr"):
        plan_template("fr")  # type: ignore[arg-type]


# Free text drawn from letters, CJK and punctuation that carries no meaning in the format.
_TEXT = st.text(alphabet="abcXYZ019 学习项目数据，,.:：", min_size=1, max_size=20).map(str.strip).filter(bool)
# Line text may also hold what Markdown would read as structure: "> quote", "# heading", "1." lists, "\\:".
_LINE_TEXT = (
    st.text(alphabet="abcXYZ019 学习项目数据，,.:：>#\\-+()|", min_size=1, max_size=20).map(str.strip).filter(bool)
)


@st.composite
def plans(draw: st.DrawFn) -> PlanDoc:
    phase_sizes = draw(st.lists(st.integers(1, 4), min_size=1, max_size=5))
    start = draw(st.dates(date(2024, 1, 1), date(2030, 12, 31)))
    phases, number = [], 1
    for phase_number, size in enumerate(phase_sizes, start=1):
        weeks = []
        for _ in range(size):
            week_start = start + timedelta(days=7 * (number - 1))
            courses = draw(st.lists(st.sampled_from(["py4e", "ml-specialization"]), max_size=2, unique=True))
            weeks.append(
                Week(number, week_start, week_start + timedelta(days=6), courses,
                     draw(_LINE_TEXT), draw(st.lists(_LINE_TEXT, max_size=3)), draw(_LINE_TEXT))
            )
            number += 1
        phases.append(Phase(phase_number, draw(_TEXT), weeks, draw(st.lists(_LINE_TEXT, max_size=3))))
    return PlanDoc(
        title=draw(_TEXT),
        goal=draw(_LINE_TEXT),
        lang=draw(st.sampled_from(["zh", "en"])),
        start=start,
        end=start + timedelta(days=7 * (number - 1) - 1),
        hours_per_week=draw(st.integers(1, 80)) / 4,
        phases=phases,
        resources=draw(st.lists(st.sampled_from(["py4e", "ml-specialization"]), unique=True)),
        time_note=draw(st.none() | _TEXT),
        assumptions=draw(st.lists(_LINE_TEXT, max_size=3)),
    )


@settings(max_examples=150, deadline=None)
@given(plan=plans())
def test_any_rendered_plan_parses_back_to_itself(plan: PlanDoc) -> None:
    catalog = Catalog([PY4E, ML])
    assert parse_plan(render_plan(plan, catalog)) == plan


@pytest.mark.parametrize(
    ("course_line", "courses"),
    [
        ("- 课程：无（复习与项目）", []),
        ("- 课程：无", []),
        ("- Course: none (review and project)", []),
        ("- Course: -", []),
        ("- 课程：", []),
        ("- 课程：无监督学习导论", ["无监督学习导论"]),
        ("- Course: C++ for Beginners", ["C++ for Beginners"]),
    ],
)
def test_course_lines_that_mean_no_course(course_line: str, courses: list[str]) -> None:
    text = f"- Weekly time: 5 hours\n### Week 1: 2026-11-30 – 2026-12-06\n{course_line}\n"
    assert parse_plan(text).weeks[0].courses == courses


@pytest.mark.parametrize(
    ("heading", "number"),
    [
        ("第十二周：2026-11-30 – 2026-12-06", 12),
        ("第二十周 2026-11-30 - 2026-12-06", 20),
        ("WEEK 3 2026-11-30 to 2026-12-06", 3),
    ],
)
def test_week_numbers_in_words_and_digits(heading: str, number: int) -> None:
    text = f"- Weekly time: 5 hours\n## {heading}\n"
    assert parse_plan(text).weeks[0].number == number


def test_separators_inside_brackets_do_not_split_a_course_line() -> None:
    text = (
        "- 每周投入：5 小时\n### 第 1 周：2026-11-30 – 2026-12-06\n"
        "- 课程：数据结构（陈越、何钦铭）、[py4e] Python for Everybody；C++ Primer (5th, 2012)\n"
    )
    assert parse_plan(text).weeks[0].courses == ["数据结构（陈越、何钦铭）", "py4e", "C++ Primer (5th, 2012)"]


def test_a_fenced_code_block_is_never_plan_content() -> None:
    text = (
        "- Weekly time: 5 hours\n### Week 1: 2026-11-30 – 2026-12-06\n- Course: py4e\n\n"
        "```markdown\n### 第 99 周：2027-01-04 – 2027-01-10\n- 课程：[magic] Magic\n```\n"
    )
    plan = parse_plan(text)
    assert [week.number for week in plan.weeks] == [1]
    assert plan.weeks[0].courses == ["py4e"]
