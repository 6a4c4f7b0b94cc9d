"""The plans a learner has: the plans folder listed with progress and pace, one plan cut into sections to view,
and the HTML page of a plan written beside it (studyplan list / show / open). Nothing here prints.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path

from markdown_it import MarkdownIt

from studyplan.app.progress import (
    ProgressStore,
    StatusReport,
    WeekStatus,
    build_status,
    is_unchecked_draft,
    read_plan_file,
)
from studyplan.domain.catalog import Catalog
from studyplan.domain.document import find_dates
from studyplan.errors import PlanFileError

# A plans folder is a few dozen plans; a file bigger than this is not a plan someone will read.
MAX_PLAN_BYTES = 1_000_000
MAX_LISTED_FILES = 1_000
# The line after the doctype of every page this tool writes: a page with it is ours to update, no other file is.
PAGE_MARKER = "<!-- studyplan: plan page -->"


@dataclass(frozen=True)
class PlanEntry:
    """One Markdown file of the plans folder: its status report, or why it is not a readable plan (an unchecked
    draft, a model's answer kept beside the plans, is never read as one: `draft` is set instead)."""

    path: Path
    report: StatusReport | None
    problem: str | None = None
    draft: bool = False


def list_plans(plans_dir: Path, today: date, catalog: Catalog) -> list[PlanEntry]:
    """Every `*.md` directly in `plans_dir` (earliest start first; files that are no plan last, by name)."""
    if not plans_dir.is_dir():
        raise PlanFileError(f"{plans_dir}: no such plans folder")
    entries = []
    for path in sorted(plans_dir.glob("*.md"))[:MAX_LISTED_FILES]:
        if is_unchecked_draft(path):
            entries.append(PlanEntry(path, None, "unchecked draft", draft=True))
            continue
        if path.stat().st_size > MAX_PLAN_BYTES:
            entries.append(PlanEntry(path, None, f"larger than {MAX_PLAN_BYTES:,} bytes"))
            continue
        try:
            entries.append(PlanEntry(path, plan_report(path, today, catalog)))
        except PlanFileError as error:
            entries.append(PlanEntry(path, None, str(error).removeprefix(f"{path}: ")))
    return sorted(entries, key=lambda entry: (entry.report is None, _start(entry), entry.path.name))


def _start(entry: PlanEntry) -> date:
    return entry.report.plan.start if entry.report is not None else date.min


def plan_report(plan_path: Path, today: date, catalog: Catalog) -> StatusReport:
    plan = read_plan_file(plan_path)
    return build_status(plan_path, plan, ProgressStore.for_plan(plan_path).checkins(plan_path), today, catalog)


def pace_words(report: StatusReport) -> str:
    """The pace in a few words: "not started", "on schedule", "ahead 3 days", "behind 1 day", "finished"."""
    if report.next_week is None:
        return "finished"
    if report.today < report.plan.start and report.done_weeks == 0:
        return "not started"
    ahead = report.days_ahead
    if ahead == 0:
        return "on schedule"
    days = f"{abs(ahead)} day{'s' if abs(ahead) != 1 else ''}"
    return f"ahead {days}" if ahead > 0 else f"behind {days}"


# -- one plan, in sections --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Section:
    """A piece of the plan's Markdown: the text before the first week, a week (heading to the next heading of
    the same or a higher level), or what follows the weeks."""

    markdown: str
    week: WeekStatus | None = None


@dataclass(frozen=True)
class PlanView:
    report: StatusReport
    markdown: str
    sections: list[Section]

    @property
    def current(self) -> WeekStatus | None:
        return next((status for status in self.report.weeks if status.is_current), None)


def plan_view(plan_path: Path, today: date, catalog: Catalog) -> PlanView:
    """The plan cut at its week headings, each week section paired with its status as of `today`."""
    report = plan_report(plan_path, today, catalog)
    if plan_path.stat().st_size > MAX_PLAN_BYTES:
        raise PlanFileError(f"{plan_path}: larger than {MAX_PLAN_BYTES:,} bytes, not a plan")
    markdown = plan_path.read_text(encoding="utf-8-sig")
    return PlanView(report, markdown, split_weeks(markdown, report.weeks))


def split_weeks(markdown: str, weeks: list[WeekStatus]) -> list[Section]:
    """Sections at the headings that carry a week's first date (headings in code blocks are not headings)."""
    lines = markdown.splitlines(keepends=True)
    tokens = MarkdownIt("commonmark").parse(markdown)
    by_start = {status.week.start: status for status in weeks}
    cuts: list[tuple[int, WeekStatus | None]] = []  # (first line, the week it opens)
    week_level: int | None = None  # the level of the last week heading: a heading as high ends that week
    for index, token in enumerate(tokens):
        if token.type != "heading_open" or token.map is None:
            continue
        level = int(token.tag[1:])
        dates = find_dates(tokens[index + 1].content)
        week = by_start.get(dates[0].value) if dates else None
        if week is not None:
            cuts.append((token.map[0], week))
            week_level = level
        elif week_level is not None and level <= week_level:
            cuts.append((token.map[0], None))
    sections = []
    bounds = [0, *[line for line, _ in cuts], len(lines)]
    owners: list[WeekStatus | None] = [None, *[week for _, week in cuts]]
    for start, end, week in zip(bounds, bounds[1:], owners, strict=False):
        if start < end:
            sections.append(Section("".join(lines[start:end]), week))
    return sections


# -- the HTML page ----------------------------------------------------------------------------------------


def page_path(plan_path: Path, output: Path | None = None) -> Path:
    """Where the page goes: `-o` as given (a folder: the plan's name in it), else beside the plan."""
    name = plan_path.with_suffix(".html").name
    if output is None:
        return plan_path.with_name(name)
    return output / name if output.is_dir() else output


def write_page(path: Path, html: str) -> Path:
    """Write the page and return where it went. A page this tool wrote is updated in place; any other file is
    left alone, and the page takes the next name (`-2`, `-3`, ...), updated in turn on the next run."""
    from studyplan.app.revise import replace_file
    from studyplan.planner.tools import write_new_file

    head, _, rest = html.partition("\n")
    content = f"{head}\n{PAGE_MARKER}\n{rest}"  # the marker right after the doctype
    try:
        for attempt in range(1, MAX_LISTED_FILES):
            candidate = path if attempt == 1 else path.with_name(f"{path.stem}-{attempt}{path.suffix}")
            if _is_our_page(candidate):
                replace_file(candidate, content)
                return candidate
            if not candidate.exists() and not candidate.is_symlink():
                return write_new_file(candidate.parent, candidate.name, content)
        raise PlanFileError(f"{path}: no free name for the page")
    except OSError as error:
        raise PlanFileError(f"{path}: cannot be written ({error.strerror or error})") from None


def _is_our_page(path: Path) -> bool:
    if not path.is_file() or path.is_symlink():
        return False
    with path.open(encoding="utf-8", errors="replace") as handle:
        handle.readline(100)  # the doctype
        return handle.readline(len(PAGE_MARKER) + 2).strip() == PAGE_MARKER
