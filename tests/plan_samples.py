"""A small valid plan, built with the real plan model, for tests that need save_plan to accept something."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from studyplan.domain.catalog import Catalog
from studyplan.domain.document import Phase, PlanDoc, Week, render_plan


def valid_plan(
    catalog: Catalog,
    start: date,
    course_ids: tuple[str, str, str] = ("py4e", "cs50p", "ml-supervised"),
    lang: str = "zh",
    hours_per_week: float = 12,
) -> str:
    """Three one-course phases of two weeks each, starting on `start`."""
    phases = []
    for index, course_id in enumerate(course_ids):
        weeks = []
        for offset in range(2):
            number = index * 2 + offset + 1
            first = start + timedelta(days=7 * (number - 1))
            weeks.append(
                Week(
                    number,
                    first,
                    first + timedelta(days=6),
                    [course_id],
                    f"{course_id} part {offset + 1}",
                    ["watch the lectures", "do the exercises"],
                    "exercise notebook",
                )
            )
        phases.append(Phase(index + 1, f"Phase {index + 1}", weeks, ["I can explain what I learned"]))
    plan = PlanDoc(
        title="Test plan",
        goal="test goal",
        lang=lang,
        start=start,
        end=start + timedelta(days=6 * 7 - 1),  # type: ignore[arg-type]
        hours_per_week=hours_per_week,
        phases=phases,
        resources=list(course_ids),
        time_note="Courses are compressed to fit.",
    )
    return render_plan(plan, catalog)


# --- a truthful plan written the ways models write it ---------------------------------------------------------
#
# The machine-learning plan of the first article, six weeks of 10 hours from a Monday: Python (py4e, 17.5 h),
# supervised learning (ml-supervised, 30 h), a Kaggle project (kaggle-intro-ml, 3 h). Every variant below says
# exactly this; only the Markdown differs. The checker must accept them all and save the same plan.

ML_PHASES = (
    # (zh title, en title, course id, weeks, zh self-check, en self-check)
    ("Python 基础", "Python basics", "py4e", (1, 2), "能独立写一个函数", "I can write a function"),
    (
        "机器学习核心",
        "Machine learning core",
        "ml-supervised",
        (3, 4, 5),
        "能解释梯度下降",
        "I can explain gradient descent",
    ),
    ("实战项目", "Project", "kaggle-intro-ml", (6,), "能完成一次 Kaggle 提交", "I can submit to Kaggle"),
)
ML_HOURS = 10


@dataclass(frozen=True)
class Style:
    """How a model wrote the plan."""

    lang: str = "zh"
    weeks: str = "heading"  # heading | bold | table | one_table
    refs: str = "id_name"  # id_name | bare_id | name | name_zh | guillemets | link | name_url | name_provider
    resources: str | None = "canonical"  # canonical | name_url | link | name_provider | table | None (left out)
    resources_heading: str = ""  # "" = the language's own; else e.g. "参考资料", "References"
    self_check: str = ""  # "" = the language's own heading; else e.g. "阶段自测", "Self-assessment", "**Review**"
    header: str = "canonical"  # canonical | bold_keys | slashes | no_end | no_weekly_time
    fenced: bool = False  # the whole plan inside a ```markdown fence, prose around it
    weekdays: bool = True  # weekday tokens after the dates


def _ref(catalog: Catalog, course_id: str, style: Style) -> str:
    course = catalog.get(course_id)
    assert course is not None, course_id
    name = course.name_zh if style.lang == "zh" and course.name_zh else course.name
    return {
        "id_name": f"[{course.id}] {course.name}",
        "bare_id": course.id,
        "name": course.name,
        "name_zh": course.name_zh or course.name,
        "guillemets": f"《{name}》",
        "link": f"[{course.name}]({course.url})",
        "name_url": f"{name}：{course.url}" if style.lang == "zh" else f"{course.name}: {course.url}",
        "name_provider": f"{course.name} - {course.provider}",
    }[style.refs]


def _resource(catalog: Catalog, course_id: str, style: Style) -> str:
    course = catalog.get(course_id)
    assert course is not None
    return {
        "canonical": f"- [{course.id}] {course.name} — {course.provider} — {course.url}",
        "name_url": f"- {course.name_zh or course.name}：{course.url}",
        "link": f"- [{course.name}]({course.url}) ({course.provider})",
        "name_provider": f"- {course.name} - {course.provider} - {course.weeks} weeks",
        "table": f"| {course.name} | {course.provider} | {course.url} |",
    }[style.resources or "canonical"]


def _day(day: date, style: Style) -> str:
    if not style.weekdays:
        return day.isoformat() if style.header != "slashes" else day.strftime("%Y/%m/%d")
    names = "一二三四五六日"
    return f"{day.isoformat()}（周{names[day.weekday()]}）" if style.lang == "zh" else f"{day.isoformat()} ({day:%a})"


def variant_plan(catalog: Catalog, start: date, style: Style) -> str:
    """The ML plan above, written in `style`."""
    zh = style.lang == "zh"
    end = start + timedelta(days=6 * 7 - 1)
    lines = [f"# {'机器学习入门计划' if zh else 'Machine learning from zero'}", ""]
    lines += _header_lines(start, end, style)
    for index, (title_zh, title_en, course_id, weeks, check_zh, check_en) in enumerate(ML_PHASES, start=1):
        lines += [f"## 阶段 {index}：{title_zh}" if zh else f"## Phase {index}: {title_en}", ""]
        if style.weeks == "one_table" and index > 1:
            lines = lines[:-2]  # one table holds every week: the phase headings go into a column
        lines += _week_lines(catalog, start, course_id, weeks, index, title_zh if zh else title_en, style)
        if style.weeks != "one_table":
            lines += _self_check_lines(index, check_zh if zh else check_en, style)
    if style.weeks == "one_table":
        lines = [line for line in lines if not line.startswith(("## 阶段", "## Phase"))]
        for index, (_, _, _, _, check_zh, check_en) in enumerate(ML_PHASES, start=1):
            lines += [f"### 阶段 {index} 自检" if zh else f"### Phase {index} self-check"]
            lines += [f"- [ ] {check_zh if zh else check_en}", ""]
    if style.resources is not None:
        heading = style.resources_heading or ("课程资源" if zh else "Resources")
        lines += [f"## {heading}", ""]
        if style.resources == "table":
            lines += ["| Course | Provider | Link |", "|---|---|---|"]
        lines += [_resource(catalog, phase[2], style) for phase in ML_PHASES]
    text = "\n".join(lines) + "\n"
    if style.fenced:
        opening = "好的！下面是你的计划：" if zh else "Sure! Here is your plan:"
        text = f"{opening}\n\n```markdown\n{text}```\n\n{'祝学习顺利！' if zh else 'Good luck!'}\n"
    return text


def _header_lines(start: date, end: date, style: Style) -> list[str]:
    zh = style.lang == "zh"
    goal = "零基础3个月学机器学习" if zh else "Learn machine learning from zero, 10 hours a week"
    if style.header == "bold_keys":
        keys = (
            ("**学习目标**", "**开始日期**", "**结束日期**", "**每周学习时间**")
            if zh
            else ("**Goal**", "**Start date**", "**End date**", "**Hours per week**")
        )
    else:
        keys = ("目标", "开始", "结束", "每周投入") if zh else ("Goal", "Start", "End", "Weekly time")
    hours = f"约 {ML_HOURS} 小时" if zh else f"{ML_HOURS} hours"
    colon = "：" if zh else ": "
    lines = [f"> {keys[0]}{colon}{goal}", "", f"- {keys[1]}{colon}{_day(start, style)}"]
    if style.header != "no_end":
        lines.append(f"- {keys[2]}{colon}{_day(end, style)}")
    if style.header != "no_weekly_time":
        lines.append(f"- {keys[3]}{colon}{hours}")
    return [*lines, ""]


def _week_lines(
    catalog: Catalog, start: date, course_id: str, weeks: tuple[int, ...], phase: int, title: str, style: Style
) -> list[str]:
    zh = style.lang == "zh"
    ref = _ref(catalog, course_id, style)
    rows = []
    for number in weeks:
        first = start + timedelta(days=7 * (number - 1))
        last = first + timedelta(days=6)
        dates = f"{_day(first, style)} – {_day(last, style)}"
        rows.append((number, dates, f"第 {number} 周的练习" if zh else f"week {number} exercises"))
    if style.weeks in ("table", "one_table"):
        head = ["阶段"] if style.weeks == "one_table" else []
        head += ["周次", "日期", "课程", "任务", "产出"] if zh else ["Week", "Dates", "Course", "Tasks", "Deliverable"]
        lines = (
            ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] if phase == 1 or style.weeks == "table" else []
        )
        for number, dates, task in rows:
            cells = (
                [f"阶段 {phase}：{title}" if zh else f"Phase {phase}: {title}"] if style.weeks == "one_table" else []
            )
            cells += [
                str(number),
                dates,
                ref,
                f"{task}<br>{'写笔记' if zh else 'take notes'}",
                "笔记" if zh else "notes",
            ]
            lines.append("| " + " | ".join(cells) + " |")
        return [*lines, ""] if style.weeks == "table" or phase == len(ML_PHASES) else lines
    lines = []
    for number, dates, task in rows:
        heading = f"第 {number} 周：{dates}" if zh else f"Week {number}: {dates}"
        lines.append(f"**{heading}**" if style.weeks == "bold" else f"### {heading}")
        lines += [f"- {'课程' if zh else 'Course'}{'：' if zh else ': '}{ref}"]
        lines += [f"- {'任务' if zh else 'Tasks'}{'：' if zh else ':'}", f"  - {task}"]
        lines += [f"- {'产出' if zh else 'Deliverable'}{'：' if zh else ': '}{'笔记' if zh else 'notes'}", ""]
    return lines


def _self_check_lines(phase: int, item: str, style: Style) -> list[str]:
    zh = style.lang == "zh"
    if style.self_check.startswith("**"):
        heading = style.self_check
    elif style.self_check:
        heading = f"### {style.self_check}"
    else:
        heading = f"### 自检清单（阶段 {phase}）" if zh else f"### Self-check (phase {phase})"
    return [heading, f"- [ ] {item}", ""]


TRUTHFUL_STYLES: dict[str, Style] = {
    "zh canonical": Style(),
    "en canonical": Style(lang="en"),
    "zh bare ids, no resources list": Style(refs="bare_id", resources=None),
    "zh Chinese names, 参考资源 as Name：URL": Style(
        refs="name_zh", resources="name_url", resources_heading="参考资源"
    ),
    "zh 《》 names, 学习资源, 阶段自测": Style(refs="guillemets", resources_heading="学习资源", self_check="阶段自测"),
    "en Markdown links, References, Self-assessment": Style(
        lang="en", refs="link", resources="link", resources_heading="References", self_check="Self-assessment"
    ),
    "en name and provider": Style(lang="en", refs="name_provider", resources="name_provider"),
    "zh Name：URL in the weeks, 资源": Style(refs="name_url", resources="name_url", resources_heading="资源"),
    "zh bold week lines, bold keys": Style(weeks="bold", header="bold_keys"),
    "en a table per phase, bold Review": Style(lang="en", weeks="table", self_check="**Review**"),
    "zh one table of every week, 参考资料 table": Style(
        weeks="one_table", resources="table", resources_heading="参考资料"
    ),
    "zh no end line, no weekday tokens": Style(header="no_end", weekdays=False),
    "zh dates with slashes": Style(header="slashes", weekdays=False),
    "en no weekly time line": Style(lang="en", header="no_weekly_time"),
    "zh whole plan in a markdown fence": Style(fenced=True),
    "en whole plan in a fence, names": Style(lang="en", fenced=True, refs="name", resources="name_provider"),
    "zh English names, Resources, 自测": Style(refs="name", resources_heading="Resources", self_check="自测"),
}
