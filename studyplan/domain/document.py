"""The plan document: one data model, rendered to Markdown and parsed back.

The Markdown format is the contract between whoever writes a plan (the offline planner, an LLM shown
`plan_template`), the checker run before saving, and the commands that read saved plans. Rendering is
strict; parsing is lenient because LLMs write the plans: ASCII or full-width punctuation, any dash or
"至"/"to" between dates, missing weekday tokens, extra prose, headings at any depth, either language.
The wording of both languages lives in package data (data/plan_labels.json).
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from datetime import date
from importlib import resources
from typing import TYPE_CHECKING, Any

from studyplan.errors import PlanFileError
from studyplan.lang import LANGS, Lang, detect_lang

if TYPE_CHECKING:
    from studyplan.domain.catalog import Catalog, Course



@dataclass
class Week:
    number: int  # 1-based, counted from the plan's start
    start: date
    end: date  # start + 6 days
    courses: list[str]  # catalog course ids studied this week (parsed: the name when no [id] was written)
    content: str  # which part of the course(s): e.g. "Python for Everybody, course weeks 1-2"
    tasks: list[str]
    deliverable: str
    # What a parsed plan literally said, so the checker can quote it; not part of the plan's identity.
    course_refs: list[str] = field(default_factory=list, compare=False)
    start_weekday: str | None = field(default=None, compare=False)
    end_weekday: str | None = field(default=None, compare=False)


@dataclass
class Phase:
    number: int
    title: str
    weeks: list[Week]
    self_check: list[str]  # the self-check list that closes the phase


@dataclass
class PlanDoc:
    title: str
    goal: str  # the learner's sentence
    lang: Lang
    start: date
    end: date
    hours_per_week: float
    phases: list[Phase]
    resources: list[str]  # catalog course ids
    time_note: str | None = None  # says what was compressed or left out when time is short
    assumptions: list[str] = field(default_factory=list)
    resource_refs: list[str] = field(default_factory=list, compare=False)  # resource lines as written

    @property
    def weeks(self) -> list[Week]:
        return [week for phase in self.phases for week in phase.weeks]

    def to_markdown(self, catalog: Catalog) -> str:
        return render_plan(self, catalog)


# --- package data -------------------------------------------------------------------------------------


@functools.cache
def plan_labels() -> dict[str, Any]:
    """data/plan_labels.json: Markdown wording per language, the parser's aliases, the checker's messages."""
    text = resources.files("studyplan").joinpath("data/plan_labels.json").read_text(encoding="utf-8")
    return json.loads(text)


def render_labels(lang: Lang) -> dict[str, Any]:
    """The Markdown wording of one language (headings, line labels, weekday names)."""
    return plan_labels()["render"][lang]


def plan_template(lang: Lang) -> str:
    """The empty plan template an LLM is shown, in `lang` ("zh" or "en")."""
    if lang not in LANGS:
        raise ValueError(f"unknown plan language {lang!r}; expected one of {LANGS}")
    path = resources.files("studyplan").joinpath(f"prompts/plan_template_{lang}.md")
    return path.read_text(encoding="utf-8")


def weekday_label(day: date, lang: Lang) -> str:
    return render_labels(lang)["weekdays"][day.weekday()]


# --- rendering ----------------------------------------------------------------------------------------


def _hours(value: float) -> str:
    return f"{value:g}"


def _lookup(catalog: Catalog, ref: str) -> Course | None:
    course_id, name = course_ref_parts(ref)
    return catalog.find(course_id or name)


def render_plan(plan: PlanDoc, catalog: Catalog) -> str:
    """The plan as Markdown in its own language; course ids are shown with their catalog names."""
    labels = render_labels(plan.lang)

    def dated(day: date) -> str:
        return labels["date"].format(date=day.isoformat(), weekday=weekday_label(day, plan.lang))

    def course_label(ref: str) -> str:
        course = _lookup(catalog, ref)
        return f"[{course.id}] {course.name}" if course else ref

    lines = [labels["title"].format(title=plan.title), "", labels["goal"].format(goal=plan.goal), ""]
    lines += [
        labels["start"].format(date=dated(plan.start)),
        labels["end"].format(date=dated(plan.end)),
        labels["weekly_time"].format(hours=_hours(plan.hours_per_week)),
        "",
    ]
    if plan.time_note:
        lines += [labels["time_note"], "", plan.time_note, ""]
    if plan.assumptions:
        lines += [labels["assumptions"], "", *(f"- {item}" for item in plan.assumptions), ""]
    for phase in plan.phases:
        heading = labels["phase"].format(number=phase.number, title=phase.title)
        if phase.weeks:
            first, last = phase.weeks[0].number, phase.weeks[-1].number
            span = labels["phase_span"] if first != last else labels["phase_span_single"]
            heading += span.format(first=first, last=last)
        lines += [heading, ""]
        for week in phase.weeks:
            courses = labels["course_separator"].join(course_label(ref) for ref in week.courses)
            lines += [
                labels["week"].format(number=week.number, start=dated(week.start), end=dated(week.end)),
                labels["course"].format(courses=courses or labels["no_course"]),
                labels["content"].format(content=week.content),
                labels["tasks"],
                *(f"  - {task}" for task in week.tasks),
                labels["deliverable"].format(deliverable=week.deliverable),
                "",
            ]
        lines += [labels["self_check"].format(number=phase.number), ""]
        lines += [*(f"- [ ] {item}" for item in phase.self_check), ""]
    lines += [labels["resources"], ""]
    for ref in plan.resources:
        course = _lookup(catalog, ref)
        if course is None:
            lines.append(f"- {ref}")
            continue
        name_zh = labels["name_zh"].format(name_zh=course.name_zh) if course.name_zh else ""
        lines.append(
            labels["resource"].format(
                id=course.id,
                name=course.name,
                name_zh=name_zh,
                provider=course.provider,
                url=course.url,
                weeks=course.weeks,
                hours=_hours(course.hours_per_week),
            )
        )
    return "\n".join(lines).rstrip() + "\n"


# --- parsing ------------------------------------------------------------------------------------------

_ZH_NUMERALS = "零一二三四五六七八九"
# Arabic digits (any script), or a Chinese numeral up to 99: 三, 十二, 二十.
_NUMBER = r"(?:\d+|[一二两三四五六七八九]?十[一二三四五六七八九]?|[一二两三四五六七八九])"
_WEEKDAY_TOKEN = r"(?:周|星期|礼拜)[一二三四五六日天]|(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?"
_DATE = re.compile(
    r"(?<!\d)(?P<y>\d{4})\s*[-/.年]\s*(?P<m>\d{1,2})\s*[-/.月]\s*(?P<d>\d{1,2})\s*日?"
    rf"(?:\s*[（(,，]?\s*(?P<wd>{_WEEKDAY_TOKEN})\s*[)）]?)?",
    re.IGNORECASE,
)
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s*(.*?)(?:\s+#+)?\s*$")
_BULLET = re.compile(r"^(\s*)(?:[-*+•]|\d+[.)、])\s+(.*)$")
_KEY_VALUE = re.compile(r"^(?P<key>[^:：]{1,30}?)\s*[:：]\s*(?P<value>.*)$")
_CHECKBOX = re.compile(r"^\[[ xX✓✔]?\]\s*")
_ZH_WEEK = re.compile(rf"^第\s*(?P<n>{_NUMBER})\s*周")
_EN_WEEK = re.compile(r"^week\s*(?P<n>\d+)\b", re.IGNORECASE)
_MULTI_WEEK = re.compile(
    rf"^(?:第\s*{_NUMBER}\s*(?:[-–—~～至到]|to)\s*{_NUMBER}\s*周|weeks\s*\d+\s*(?:[-–—~]|to)\s*\d+)",
    re.IGNORECASE,
)
_PHASE = re.compile(
    rf"^(?:(?:阶段|phase|stage|part)\s*(?P<n>{_NUMBER})|第\s*(?P<zh>{_NUMBER})\s*阶段)", re.IGNORECASE
)
_PHASE_SPAN = re.compile(r"\s*[（(][^（）()]*(?:周|week)[^（）()]*[)）]\s*$", re.IGNORECASE)
_PHASE_SEPARATOR = re.compile(r"^\s*[:：\-—–.、]?\s*")
_MARKDOWN_LINK = re.compile(r"^\[([^\]]+)\]\([^)]*\)\s*(.*)$")
_BRACKETED_ID = re.compile(r"^[\[【]\s*([^\]】]+?)\s*[\]】]\s*(.*)$")
_COURSE_SEPARATORS = re.compile(r"\s*[；;、，]\s*|\s+\+\s+")
_BRACKETS = re.compile(r"[（(\[【][^（）()\[\]【】]*[)）\]】]")
_RESOURCE_SEPARATORS = re.compile(r"\s*[—–|]\s*|\s+-\s+")
_NUMBER_VALUE = re.compile(r"\d+(?:\.\d+)?")


def _to_int(text: str) -> int:
    """A number matched by _NUMBER: "12", "１２", "十二", "二十"."""
    if text.isdigit():
        return int(text)
    text = text.replace("两", "二")
    tens, has_ten, ones = text.partition("十")
    if not has_ten:
        return _ZH_NUMERALS.index(text)
    return (_ZH_NUMERALS.index(tens) if tens else 1) * 10 + (_ZH_NUMERALS.index(ones) if ones else 0)


def weekday_of_token(token: str) -> int | None:
    """Monday=0 for a weekday token such as "周一", "星期天", "Mon", "Tuesday"; None if not one."""
    token = token.strip().lower().rstrip(".")
    if token[:1] in "周星礼":
        index = "一二三四五六日".find(token[-1].replace("天", "日"))
        return index if index >= 0 else None
    names = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
    return names.index(token[:3]) if token[:3] in names else None


@dataclass(frozen=True)
class DateMention:
    value: date
    weekday: str | None  # the weekday token written next to the date, if any


def find_dates(text: str) -> list[DateMention]:
    """Every valid date in `text`, with the weekday token written after it."""
    mentions = []
    for match in _DATE.finditer(text):
        try:
            value = date(int(match["y"]), int(match["m"]), int(match["d"]))
        except ValueError:
            continue
        mentions.append(DateMention(value, match["wd"]))
    return mentions


def course_ref_parts(ref: str) -> tuple[str | None, str]:
    """Split a course reference into (id, name): "[py4e] Python for Everybody" -> ("py4e", "Python ...").

    A Markdown link "[Name](url)" and a bare name have no id.
    """
    ref = ref.strip().strip("`*").strip()
    if link := _MARKDOWN_LINK.match(ref):
        return None, link[1].strip()
    if bracketed := _BRACKETED_ID.match(ref):
        return bracketed[1].strip("` "), bracketed[2].strip()
    return None, ref


def _split_courses(value: str) -> list[str]:
    """Split a course line at separators outside brackets: "数据结构（陈越、何钦铭）" is one course."""
    # Blank out bracketed text (same length) to find the separators, then cut the original there.
    masked = _BRACKETS.sub(lambda match: "\0" * len(match[0]), value)
    refs, begin = [], 0
    for separator in _COURSE_SEPARATORS.finditer(masked):
        refs.append(value[begin : separator.start()])
        begin = separator.end()
    refs.append(value[begin:])
    return [ref.strip() for ref in refs if ref.strip()]


def _course_key(ref: str) -> str:
    course_id, name = course_ref_parts(ref)
    return course_id or name


def _normalize(text: str) -> str:
    return re.sub(r"[\s*_`]+", "", text).lower()


@functools.cache
def _aliases() -> dict[str, tuple[str, ...]]:
    aliases = plan_labels()["aliases"].items()
    return {key: tuple(_normalize(alias) for alias in values) for key, values in aliases}


def _key_of(label: str, keys: tuple[str, ...]) -> str | None:
    normalized = _normalize(label)
    return next((key for key in keys if normalized in _aliases()[key]), None)


def _is_self_check(text: str) -> bool:
    normalized = _normalize(text)
    return any(alias in normalized for alias in _aliases()["self_check"])


def _is_no_course(value: str) -> bool:
    """"无（复习与项目）", "none (review and project)", "-", or nothing at all (but not "无监督学习")."""
    first_word = re.split(r"[（(，,。;；:：\-—–]", _normalize(value), maxsplit=1)[0]
    return not first_word or first_word in _aliases()["no_course"]


def _is_self_check_label(body: str, is_bullet: bool) -> bool:
    """A bold "**自检清单**" line that opens a self-check list without being a heading."""
    return not is_bullet and len(body) < 40 and _is_self_check(body)


@functools.cache
def _title_prefix() -> re.Pattern[str]:
    prefixes = "|".join(map(re.escape, plan_labels()["aliases"]["title_prefix"]))
    return re.compile(rf"^(?:{prefixes})\s*[:：\-—–]\s*", re.IGNORECASE)


_HEADER_KEYS = ("goal", "start", "end", "weekly_time")
_WEEK_KEYS = ("course", "content", "tasks", "deliverable", "dates")
_SECTION_KEYS = ("time_note", "assumptions", "resources")


@dataclass
class PlanScan:
    """Everything a lenient read of a plan found, including what is missing, for the checker."""

    lang: Lang
    title: str = ""
    goal: str = ""
    start: DateMention | None = None
    end: DateMention | None = None
    hours_per_week: float | None = None
    phases: list[Phase] = field(default_factory=list)
    resources: list[str] = field(default_factory=list)
    resource_refs: list[str] = field(default_factory=list)
    time_note: str | None = None
    assumptions: list[str] = field(default_factory=list)
    week_numbers: list[int] = field(default_factory=list)  # every week heading's number, in order
    undated_weeks: list[int] = field(default_factory=list)  # week headings without a start and an end date
    multi_week_headings: list[str] = field(default_factory=list)  # "第 1–2 周" style headings (ignored)

    @property
    def weeks(self) -> list[Week]:
        return [week for phase in self.phases for week in phase.weeks]


@dataclass
class _WeekDraft:
    number: int
    dates: list[DateMention]
    courses: list[str] = field(default_factory=list)
    content: list[str] = field(default_factory=list)
    tasks: list[str] = field(default_factory=list)
    deliverable: list[str] = field(default_factory=list)


class _Scanner:
    """A line-by-line state machine: the current section decides what a bullet or key line means."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.scan = PlanScan(lang="en")
        self.section = "header"
        self.week: _WeekDraft | None = None
        self.week_key: str | None = None  # the week line whose nested bullets follow ("tasks", ...)
        self.week_key_indent = 0
        self.time_note_lines: list[str] | None = None
        self.week_lang: Lang | None = None

    def run(self) -> PlanScan:
        for line in self.text.splitlines():
            if heading := _HEADING.match(line):
                self._close_week()
                self._heading(len(heading[1]), heading[2])
            elif line.strip():
                self._line(line)
        self._close_week()
        if self.time_note_lines:
            self.scan.time_note = "\n".join(self.time_note_lines)
        self.scan.lang = self.week_lang or detect_lang(self.scan.title or self.text)
        return self.scan

    # headings

    def _heading(self, level: int, raw: str) -> None:
        text = raw.replace("**", "").replace("__", "").strip("` ")
        if _is_self_check(text):
            self._enter_self_check()
        elif _MULTI_WEEK.match(text):
            self.scan.multi_week_headings.append(text)
            self.section = "other"
        elif week := (_ZH_WEEK.match(text) or _EN_WEEK.match(text)):
            self.week_lang = self.week_lang or ("zh" if week.re is _ZH_WEEK else "en")
            self.scan.week_numbers.append(_to_int(week["n"]))
            self._open_week(self.scan.week_numbers[-1], text[week.end() :])
        elif phase := _PHASE.match(text):
            number = _to_int(phase["n"] or phase["zh"])
            title = _PHASE_SEPARATOR.sub("", _PHASE_SPAN.sub("", text[phase.end() :]), count=1).strip()
            self.scan.phases.append(Phase(number, title, [], []))
            self.section = "phase"
        elif section := self._section_of(text):
            self.section = section
            if section == "time_note":
                self.time_note_lines = []
        elif not self.scan.title and (level == 1 or not self.scan.phases):
            self.scan.title = _title_prefix().sub("", text)
            self.section = "header"
        else:
            self.section = "other"

    @staticmethod
    def _section_of(text: str) -> str | None:
        normalized = _normalize(_PHASE_SPAN.sub("", text))
        return next(
            (key for key in _SECTION_KEYS if any(normalized.startswith(a) for a in _aliases()[key])), None
        )

    def _current_phase(self) -> Phase:
        if not self.scan.phases:  # weeks written without any phase heading still belong somewhere
            self.scan.phases.append(Phase(1, "", [], []))
        return self.scan.phases[-1]

    def _enter_self_check(self) -> None:
        self._close_week()
        self._current_phase()
        self.section = "self_check"

    def _open_week(self, number: int, rest: str) -> None:
        self._current_phase()
        self.week = _WeekDraft(number, find_dates(rest))
        self.week_key = None
        self.section = "week"

    def _close_week(self) -> None:
        draft, self.week = self.week, None
        if draft is None:
            return
        if len(draft.dates) < 2:
            self.scan.undated_weeks.append(draft.number)
            return
        first, last = draft.dates[0], draft.dates[1]
        self._current_phase().weeks.append(
            Week(
                number=draft.number,
                start=first.value,
                end=last.value,
                courses=[_course_key(ref) for ref in draft.courses],
                content="; ".join(draft.content),
                tasks=draft.tasks,
                deliverable="; ".join(draft.deliverable),
                course_refs=draft.courses,
                start_weekday=first.weekday,
                end_weekday=last.weekday,
            )
        )

    # body lines

    def _line(self, line: str) -> None:
        bullet = _BULLET.match(line)
        indent = len(bullet[1].expandtabs(4)) if bullet else 0
        body = (bullet[2] if bullet else line.strip().lstrip(">").strip()).strip()
        key_value = _KEY_VALUE.match(body.replace("**", ""))
        key = key_value["key"] if key_value else None
        value = key_value["value"].strip() if key_value else ""

        if self.section == "week" and self.week is not None:
            self._week_line(body, bool(bullet), indent, key, value)
        elif key and _is_self_check(key) and self.section in ("phase", "self_check", "other"):
            self._enter_self_check()
            if value:
                self._self_check_item(value)
        elif self.section == "self_check":
            if bullet:
                self._self_check_item(body)
        elif self.section == "time_note" and self.time_note_lines is not None:
            self.time_note_lines.append(line.strip())
        elif self.section == "assumptions":
            self.scan.assumptions.append(body)
        elif self.section == "resources":
            if bullet:
                self._resource(body)
        elif key and (field_key := _key_of(key, _HEADER_KEYS)):
            self._header_field(field_key, value)
        elif self.section == "phase" and _is_self_check_label(body, bool(bullet)):
            self._enter_self_check()

    def _header_field(self, key: str, value: str) -> None:
        scan = self.scan
        if key == "goal" and not scan.goal:
            scan.goal = value
        elif key in ("start", "end") and getattr(scan, key) is None:
            dates = find_dates(value)
            setattr(scan, key, dates[0] if dates else None)
        elif key == "weekly_time" and scan.hours_per_week is None:
            number = _NUMBER_VALUE.search(value)
            scan.hours_per_week = float(number[0]) if number else None

    def _week_line(self, body: str, is_bullet: bool, indent: int, key: str | None, value: str) -> None:
        week = self.week
        assert week is not None
        nested = self.week_key is not None and is_bullet and indent > self.week_key_indent
        field_key = None if nested or key is None else _key_of(key, _WEEK_KEYS)
        if field_key is None and key is not None and not nested and _is_self_check(key):
            self._enter_self_check()
            if value:
                self._self_check_item(value)
            return
        if key is None and _is_self_check_label(body, is_bullet):
            self._enter_self_check()
            return
        if field_key is not None:
            self.week_key, self.week_key_indent = field_key, indent
            if field_key == "course":
                week.courses = [] if _is_no_course(value) else _split_courses(value)
            elif field_key == "dates" and len(week.dates) < 2:
                week.dates = find_dates(value)
            elif field_key == "tasks":
                week.tasks += [task.strip() for task in re.split(r"[；;]", value) if task.strip()]
            elif value and field_key in ("content", "deliverable"):
                getattr(week, field_key).append(value)
        elif is_bullet and self.week_key in ("tasks", "content", "deliverable"):
            getattr(week, self.week_key).append(body)
        # anything else in a week is prose the plan's reader may enjoy but the format ignores

    def _self_check_item(self, text: str) -> None:
        item = _CHECKBOX.sub("", text).strip()
        if item:
            self._current_phase().self_check.append(item)

    def _resource(self, body: str) -> None:
        course_id, name = course_ref_parts(body)
        # The reference ends where the provider/url/duration details begin.
        first = _RESOURCE_SEPARATORS.split(name, maxsplit=1)[0].strip()
        ref = f"[{course_id}] {first}".strip() if course_id else first
        self.scan.resource_refs.append(ref)
        self.scan.resources.append(course_id or first)


def scan_plan(text: str) -> PlanScan:
    """Read whatever a plan contains, never failing: the checker reports what is missing."""
    return _Scanner(text).run()


def parse_plan(text: str) -> PlanDoc:
    """Parse a plan written by studyplan, an LLM or a person. Raises PlanFileError if essentials are missing.

    Course lists hold the ids written as "[id]", else the course name as written.
    """
    scan = scan_plan(text)
    weeks = scan.weeks
    if scan.undated_weeks:
        raise PlanFileError(f"week {scan.undated_weeks[0]} of the plan has no start and end dates")
    if not weeks:
        raise PlanFileError("the plan has no week headings such as '### Week 1: 2026-11-30 – 2026-12-06'")
    if scan.hours_per_week is None:
        raise PlanFileError("the plan has no weekly time line such as '- Weekly time: 8 hours'")
    return PlanDoc(
        title=scan.title,
        goal=scan.goal,
        lang=scan.lang,
        start=scan.start.value if scan.start else weeks[0].start,
        end=scan.end.value if scan.end else weeks[-1].end,
        hours_per_week=scan.hours_per_week,
        phases=scan.phases,
        resources=scan.resources,
        time_note=scan.time_note,
        assumptions=scan.assumptions,
        resource_refs=scan.resource_refs,
    )
