"""Reading a plan: the domain rules (week headings, dates, course lines, sections) over markdown-it tokens.

Parsing is lenient because models write the plans: ASCII or full-width punctuation, any dash or "至"/"to"
between dates, missing weekday tokens, extra prose, headings at any depth, weeks as headings, bold lines or
a table, sections under their usual other names, either language. `scan_plan` never fails and records what
is missing for the checker; `parse_plan` needs the essentials; `read_saved_plan` also refuses a plan whose
weeks are broken (as a hand edit can leave them), naming the line that is wrong.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from datetime import date

from studyplan.domain.dates import NUMBER, DateMention, find_dates, number_value
from studyplan.domain.labels import aliases, is_self_check, key_of, normalize_label, plan_labels, starts_with_alias
from studyplan.domain.markdown import Line, markdown_lines
from studyplan.domain.plan_model import Lang, Phase, PlanDoc, Week
from studyplan.domain.references import course_key, is_no_course, resource_name, split_courses
from studyplan.errors import PlanFileError
from studyplan.lang import detect_lang

_ZH_WEEK = re.compile(rf"^第\s*(?P<n>{NUMBER})\s*周")
_EN_WEEK = re.compile(r"^week\s*(?P<n>\d+)\b", re.IGNORECASE)
_MULTI_WEEK = re.compile(
    rf"^(?:第\s*{NUMBER}\s*(?:[-–—~～至到]|to)\s*{NUMBER}\s*周|weeks\s*\d+\s*(?:[-–—~]|to)\s*\d+)",
    re.IGNORECASE,
)
_PHASE = re.compile(rf"^(?:(?:阶段|phase|stage|part)\s*(?P<n>{NUMBER})|第\s*(?P<zh>{NUMBER})\s*阶段)", re.IGNORECASE)
_PHASE_MENTION = re.compile(
    rf"(?:阶段|phase|stage)\s*(?P<n>{NUMBER})|第\s*(?P<zh>{NUMBER})\s*阶段", re.IGNORECASE
)
_PHASE_SPAN = re.compile(r"\s*[（(][^（）()]*(?:周|week)[^（）()]*[)）]\s*$", re.IGNORECASE)
_PHASE_SEPARATOR = re.compile(r"^\s*[:：\-—–.、]?\s*")
_KEY_VALUE = re.compile(r"^(?P<key>[^:：]{1,30}?)\s*[:：]\s*(?P<value>.*)$")
_CHECKBOX = re.compile(r"^\[[ xX✓✔]?\]\s*")
_NUMBER_VALUE = re.compile(r"\d+(?:\.\d+)?")
_WHOLE_BOLD = re.compile(r"^(\*\*|__)(?:(?!\1).)+\1\s*[:：]?$")
_CELL_ITEMS = re.compile(r"\s*(?:<br\s*/?>|[；;]|\s•\s)\s*", re.IGNORECASE)
_LEADING_NUMBER = re.compile(r"^\s*(\d+)\b")

_HEADER_KEYS = ("goal", "start", "end", "weekly_time")
_WEEK_KEYS = ("course", "content", "tasks", "deliverable", "dates")
_SECTION_KEYS = ("time_note", "assumptions", "resources")
_TABLE_KEYS = ("week", "phase", "dates", "start", "end", "course", "content", "tasks", "deliverable", "self_check")


@dataclass(frozen=True)
class SourceLine:
    number: int  # 1-based line number in the plan's text
    text: str  # the line's Markdown as written


@dataclass(frozen=True)
class WeekHeading:
    """A week as the plan heads it (heading, bold line or table row), dated or not."""

    number: int
    line: SourceLine
    start: date | None
    end: date | None


@dataclass(frozen=True)
class CourseMention:
    """A course reference as written, where it was written."""

    ref: str  # what messages quote: "[py4e] Python for Everybody"
    source: str  # the whole reference with its details (a resource line's link and provider)
    line: SourceLine
    week: int | None  # None: the resources list


@dataclass
class PlanScan:
    """Everything a lenient read of a plan found, including what is missing, for the checker."""

    lang: Lang
    title: str = ""
    goal: str = ""
    start: DateMention | None = None
    end: DateMention | None = None
    start_line: SourceLine | None = None
    end_line: SourceLine | None = None
    hours_per_week: float | None = None
    phases: list[Phase] = field(default_factory=list)
    resources: list[str] = field(default_factory=list)
    resource_refs: list[str] = field(default_factory=list)
    time_note: str | None = None
    assumptions: list[str] = field(default_factory=list)
    week_headings: list[WeekHeading] = field(default_factory=list)  # every week found, in order
    undated_weeks: list[int] = field(default_factory=list)  # weeks without a start and an end date
    multi_week_headings: list[str] = field(default_factory=list)  # "第 1–2 周" style headings (ignored)
    mentions: list[CourseMention] = field(default_factory=list)  # every course reference, in order

    @property
    def weeks(self) -> list[Week]:
        return [week for phase in self.phases for week in phase.weeks]

    @property
    def week_numbers(self) -> list[int]:
        return [heading.number for heading in self.week_headings]


@dataclass
class _WeekDraft:
    number: int
    dates: list[DateMention]
    line: SourceLine
    courses: list[str] = field(default_factory=list)
    content: list[str] = field(default_factory=list)
    tasks: list[str] = field(default_factory=list)
    deliverable: list[str] = field(default_factory=list)


def _plain(text: str) -> str:
    return text.replace("**", "").replace("__", "").strip("` ")


def _week_match(text: str) -> re.Match[str] | None:
    return _ZH_WEEK.match(text) or _EN_WEEK.match(text)


@functools.cache
def _title_prefix() -> re.Pattern[str]:
    prefixes = "|".join(map(re.escape, plan_labels()["aliases"]["title_prefix"]))
    return re.compile(rf"^(?:{prefixes})\s*[:：\-—–]\s*", re.IGNORECASE)


def _section_of(text: str) -> str | None:
    normalized = normalize_label(_PHASE_SPAN.sub("", text))
    return next((key for key in _SECTION_KEYS if any(normalized.startswith(a) for a in aliases()[key])), None)


def _bold_heading(line: Line) -> str | None:
    """A line that heads a week or a phase without being a Markdown heading: "**第 1 周：2026-11-30 – ...**",
    "第 1 周（2026-11-30 至 2026-12-06）", "**阶段 1：编程基础**". None for any other line."""
    if line.kind not in ("text", "item"):
        return None
    text = _plain(line.text)
    bold = line.text.startswith(("**", "__"))
    week = _week_match(text) or _MULTI_WEEK.match(text)
    if week and len(find_dates(text)) >= 2:
        return text
    if line.kind == "item" or not bold:
        return None
    if week and _WHOLE_BOLD.match(line.text):
        return text
    return text if _PHASE.match(text) and not is_self_check(text) else None


class _Reader:
    """A state machine over the plan's lines: the current section decides what a line means."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.scan = PlanScan(lang="en")
        self.section = "header"
        self.week: _WeekDraft | None = None
        self.week_key: str | None = None  # the week line whose nested items follow ("tasks", ...)
        self.week_key_depth = 0
        self.time_note_lines: list[str] | None = None
        self.week_lang: Lang | None = None
        self.table_phase: str | None = None  # the phase cell of the last table row
        self.self_check_phase: Phase | None = None  # where self-check items go
        self.source_lines = re.split(r"\r\n|\r|\n", text)  # as markdown-it counts lines

    def _source(self, line: Line) -> SourceLine:
        """The line as the plan's text has it (markers and all), for messages that quote it."""
        number = line.number
        written = self.source_lines[number - 1] if 0 < number <= len(self.source_lines) else line.text
        return SourceLine(number, written.strip())

    def run(self) -> PlanScan:
        for line in markdown_lines(self.text):
            if line.kind == "heading":
                self._close_week()
                self._heading(line.depth, _plain(line.text), line)
            elif heading := _bold_heading(line):
                self._close_week()
                self._heading(0, heading, line)
            elif line.kind == "row":
                self._row(line)
            else:
                self._line(line)
        self._close_week()
        if self.time_note_lines:
            self.scan.time_note = "\n".join(self.time_note_lines)
        self.scan.lang = self.week_lang or detect_lang(self.scan.title or self.text)
        return self.scan

    # headings

    def _heading(self, level: int, text: str, line: Line) -> None:
        week = _week_match(text)
        phase = _PHASE.match(text)
        if _MULTI_WEEK.match(text):
            self.scan.multi_week_headings.append(text)
            self.section = "other"
        elif week and (find_dates(text) or not is_self_check(text)):
            self.week_lang = self.week_lang or ("zh" if week.re is _ZH_WEEK else "en")
            self._open_week(number_value(week["n"]), text[week.end() :], line)
        elif phase and starts_with_alias(_PHASE_SEPARATOR.sub("", text[phase.end() :]), "self_check"):
            self._enter_self_check(text)  # "阶段 2 自检"
        elif is_self_check(text):
            self._enter_self_check(text)
        elif phase:
            self._open_phase(number_value(phase["n"] or phase["zh"]), text[phase.end() :])
        elif section := _section_of(text):
            self.section = section
            if section == "time_note":
                self.time_note_lines = []
        elif not self.scan.title and (level == 1 or not self.scan.phases):
            self.scan.title = _title_prefix().sub("", text)
            self.section = "header"
        else:
            self.section = "other"

    def _open_phase(self, number: int, rest: str) -> None:
        title = _PHASE_SEPARATOR.sub("", _PHASE_SPAN.sub("", rest), count=1).strip()
        self.scan.phases.append(Phase(number, title, [], []))
        self.section = "phase"

    def _current_phase(self) -> Phase:
        if not self.scan.phases:  # weeks written without any phase heading still belong somewhere
            self.scan.phases.append(Phase(1, "", [], []))
        return self.scan.phases[-1]

    def _enter_self_check(self, heading: str = "") -> None:
        """Self-check items follow for the current phase, or for the phase the heading names ("自检（阶段 2）":
        a plan whose weeks are one table lists every phase's self-checks after it)."""
        self._close_week()
        self.self_check_phase = self._current_phase()
        named = _PHASE_MENTION.search(heading)
        if named:
            number = number_value(named["n"] or named["zh"])
            self.self_check_phase = next((p for p in self.scan.phases if p.number == number), self.self_check_phase)
        self.section = "self_check"

    def _open_week(self, number: int, rest: str, line: Line) -> None:
        self._current_phase()
        self.week = _WeekDraft(number, find_dates(rest), self._source(line))
        self.week_key = None
        self.section = "week"

    def _close_week(self) -> None:
        draft, self.week = self.week, None
        if draft is None:
            return
        dated = len(draft.dates) >= 2
        first, last = (draft.dates[0], draft.dates[1]) if dated else (None, None)
        self.scan.week_headings.append(
            WeekHeading(draft.number, draft.line, first.value if first else None, last.value if last else None)
        )
        for ref in draft.courses:
            self.scan.mentions.append(CourseMention(ref, ref, draft.line, draft.number))
        if first is None or last is None:
            self.scan.undated_weeks.append(draft.number)
            return
        self._current_phase().weeks.append(
            Week(
                number=draft.number,
                start=first.value,
                end=last.value,
                courses=[course_key(ref) for ref in draft.courses],
                content="; ".join(draft.content),
                tasks=draft.tasks,
                deliverable="; ".join(draft.deliverable),
                course_refs=draft.courses,
                start_weekday=first.weekday,
                end_weekday=last.weekday,
            )
        )

    # body lines

    def _line(self, line: Line) -> None:
        is_item = line.kind == "item"
        body = line.text.strip()
        key_value = _KEY_VALUE.match(body.replace("**", "").replace("__", ""))
        key = key_value["key"].strip() if key_value else None
        value = key_value["value"].strip() if key_value else ""

        if self.section == "week" and self.week is not None:
            self._week_line(body, line, key, value)
        elif key and is_self_check(key) and self.section in ("phase", "self_check", "other"):
            self._enter_self_check()
            if value:
                self._self_check_item(value)
        elif self.section == "self_check":
            if is_item:
                self._self_check_item(body)
        elif self.section == "time_note" and self.time_note_lines is not None:
            self.time_note_lines.append(f"- {body}" if is_item else body)
        elif self.section == "assumptions":
            self.scan.assumptions.append(body)
        elif self.section == "resources":
            if is_item or re.search(r"https?://|^\[|^《", body):
                self._resource(body, line)
        elif key and (field_key := key_of(key, _HEADER_KEYS)):
            self._header_field(field_key, value, line)
        elif self.section == "phase" and not is_item and len(body) < 40 and is_self_check(body):
            self._enter_self_check()  # a bold "**自检清单**" line

    def _header_field(self, key: str, value: str, line: Line) -> None:
        scan = self.scan
        if key == "goal" and not scan.goal:
            scan.goal = value
        elif key in ("start", "end") and getattr(scan, key) is None:
            dates = find_dates(value)
            setattr(scan, key, dates[0] if dates else None)
            setattr(scan, f"{key}_line", self._source(line))
        elif key == "weekly_time" and scan.hours_per_week is None:
            number = _NUMBER_VALUE.search(value)
            scan.hours_per_week = float(number[0]) if number else None

    def _week_line(self, body: str, line: Line, key: str | None, value: str) -> None:
        week = self.week
        assert week is not None
        is_item = line.kind == "item"
        nested = self.week_key is not None and line.depth > self.week_key_depth
        field_key = None if nested or key is None else key_of(key, _WEEK_KEYS)
        if field_key is None and key is not None and not nested and is_self_check(key):
            self._enter_self_check()
            if value:
                self._self_check_item(value)
            return
        if key is None and not is_item and len(body) < 40 and is_self_check(body):
            self._enter_self_check()
            return
        if field_key is not None:
            self.week_key, self.week_key_depth = field_key, line.depth
            self._week_field(week, field_key, value)
        elif nested and is_item and self.week_key in ("tasks", "content", "deliverable", "course"):
            if self.week_key == "course":
                week.courses += split_courses(body)
            else:
                getattr(week, self.week_key).append(body)
        # anything else in a week is prose the plan's reader may enjoy but the format ignores

    @staticmethod
    def _week_field(week: _WeekDraft, key: str, value: str) -> None:
        if key == "course":
            week.courses = [] if is_no_course(value) else split_courses(value)
        elif key == "dates" and len(week.dates) < 2:
            week.dates = find_dates(value)
        elif key == "tasks":
            week.tasks += [task.strip() for task in re.split(r"[；;]", value) if task.strip()]
        elif value and key in ("content", "deliverable"):
            getattr(week, key).append(value)

    def _self_check_item(self, text: str) -> None:
        item = _CHECKBOX.sub("", text).strip()
        if item:
            phase = self.self_check_phase if self.section == "self_check" and self.self_check_phase else None
            (phase or self._current_phase()).self_check.append(item)

    def _resource(self, body: str, line: Line) -> None:
        ref = resource_name(body)
        self.scan.resource_refs.append(ref)
        self.scan.resources.append(course_key(ref))
        self.scan.mentions.append(CourseMention(ref, body, self._source(line), None))

    # tables

    def _row(self, line: Line) -> None:
        """A table row: a week when the table has a week or date column, else a resource in the resources."""
        cells: dict[str, str] = {}
        for label, cell in zip(line.header, line.cells, strict=False):
            key = key_of(_plain(label), _TABLE_KEYS)
            if key and key not in cells:
                cells[key] = cell
        if not {"week", "dates", "start"} & cells.keys():
            if self.section == "resources":
                course = cells.get("course")
                rest = [cell for cell in line.cells if cell and cell != course]
                self._resource(" — ".join([course, *rest] if course else rest), line)
            return
        self._close_week()
        self._table_week(cells, line)

    def _table_week(self, cells: dict[str, str], line: Line) -> None:
        week_cell = _plain(cells.get("week", ""))
        if _MULTI_WEEK.match(week_cell):
            self.scan.multi_week_headings.append(week_cell)
            return
        phase_cell = _plain(cells.get("phase", ""))
        if phase_cell and phase_cell != self.table_phase:
            self.table_phase = phase_cell
            phase = _PHASE.match(phase_cell)
            number = number_value(phase["n"] or phase["zh"]) if phase else len(self.scan.phases) + 1
            self._open_phase(number, phase_cell[phase.end() :] if phase else phase_cell)
        week = _week_match(week_cell) or _LEADING_NUMBER.match(week_cell)
        if week is not None and week.re is not _LEADING_NUMBER:
            self.week_lang = self.week_lang or ("zh" if week.re is _ZH_WEEK else "en")
        previous = self.scan.week_headings[-1].number if self.scan.week_headings else 0
        number = number_value(week[1] if week.re is _LEADING_NUMBER else week["n"]) if week else previous + 1
        dates = find_dates(cells.get("dates", "")) or find_dates(f"{cells.get('start', '')} {cells.get('end', '')}")
        draft = _WeekDraft(number, dates or find_dates(line.text), self._source(line))
        for key in ("course", "content", "tasks", "deliverable"):
            if value := cells.get(key, "").strip():
                items = [item for item in _CELL_ITEMS.split(value) if item.strip()]
                if key == "course":
                    draft.courses = [] if is_no_course(value) else [r for item in items for r in split_courses(item)]
                else:
                    getattr(draft, key).extend(items)
        self._current_phase()
        self.week = draft
        self._close_week()
        self.section = "phase"
        for item in _CELL_ITEMS.split(cells.get("self_check", "")):
            self._self_check_item(item)


_MARKDOWN_FENCE = re.compile(r"^ {0,3}(?:```+|~~~+)\s*(?:markdown|md)?\s*$", re.IGNORECASE | re.MULTILINE)


def scan_plan(text: str) -> PlanScan:
    """Read whatever a plan contains, never failing: the checker reports what is missing.

    Code blocks are not plan content; but a model that wraps its whole plan in a ```markdown fence means the
    plan, so when nothing outside the fences is a week, the fence lines are dropped (line numbers kept).
    """
    scan = _Reader(text).run()
    if not scan.week_headings and _MARKDOWN_FENCE.search(text):
        unwrapped = _Reader(_MARKDOWN_FENCE.sub("", text)).run()
        if unwrapped.week_headings:
            return unwrapped
    return scan


def plan_from_scan(scan: PlanScan) -> PlanDoc:
    """The plan a scan holds; PlanFileError (one line) when its essentials are missing."""
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


def parse_plan(text: str) -> PlanDoc:
    """Parse a plan written by studyplan, an LLM or a person. Raises PlanFileError if essentials are missing.

    Course lists hold the ids written as "[id]", else the course name as written.
    """
    return plan_from_scan(scan_plan(text))


def read_saved_plan(text: str) -> PlanDoc:
    """Parse a saved plan for status, export, check-ins and revise, refusing one whose weeks are broken.

    A hand edit can leave weeks that no longer make a calendar (a week number twice, a week that ends before
    it starts, a gap between weeks); reading on would show wrong progress or export wrong events, so the
    PlanFileError names the line that is wrong: "line 12: '### 第 3 周：...': week 3 appears twice (line 8)".
    """
    scan = scan_plan(text)
    problem = _broken_week(scan.week_headings) or _broken_span(scan)
    if problem is not None:
        line, reason = problem
        raise PlanFileError(f"line {line.number}: {_quoted(line.text)}: {reason}")
    return plan_from_scan(scan)


def _quoted(text: str) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= 80 else text[:77] + "...")


def _broken_week(headings: list[WeekHeading]) -> tuple[SourceLine, str] | None:
    seen: dict[int, WeekHeading] = {}
    previous: WeekHeading | None = None
    for heading in headings:
        if heading.number in seen:
            return (
                heading.line,
                f"week {heading.number} appears twice (first on line {seen[heading.number].line.number})",
            )
        seen[heading.number] = heading
        expected = previous.number + 1 if previous else 1
        if heading.number != expected:
            return heading.line, f"week {heading.number} comes where week {expected} should; weeks run 1, 2, 3, ..."
        if heading.start and heading.end:
            if heading.end < heading.start:
                return heading.line, f"week {heading.number} ends ({heading.end}) before it starts ({heading.start})"
            if (heading.end - heading.start).days != 6:
                return heading.line, f"week {heading.number} is not 7 days ({heading.start} – {heading.end})"
            if previous and previous.end and (heading.start - previous.end).days != 1:
                return heading.line, (
                    f"week {heading.number} starts {heading.start}, but week {previous.number} ends {previous.end}; "
                    "each week must start the day after the one before"
                )
        previous = heading
    return None


def _broken_span(scan: PlanScan) -> tuple[SourceLine, str] | None:
    if scan.start and scan.end and scan.end.value < scan.start.value and scan.end_line:
        return scan.end_line, f"the plan ends ({scan.end.value}) before it starts ({scan.start.value})"
    return None
