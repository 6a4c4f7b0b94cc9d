"""Every text the study-plan tools answer with, and the data beside it that code reads.

The model reads `ToolResult.text`; the offline policies, `revise`, `evaluate` and the task's rules read
`ToolResult.data` (or `ToolError.data`), so the wording here can change without breaking any of them.
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

from studyplan.core.journal import ToolResult
from studyplan.domain.catalog import LEVELS, Course
from studyplan.errors import ToolError
from studyplan.paths import display_path

_COURSE_REF = re.compile(r"\[([^\]]+)\]")

# --- get_current_date, search_courses, plan_calendar --------------------------------------------------------


def current_date(today: date) -> ToolResult:
    text = f"{today.isoformat()} ({today:%A}, ISO week {today.isocalendar().week})"
    return ToolResult(text, {"today": today.isoformat()})


def course_line(course: Course) -> str:
    """One compact line describing a course, as shown to the model and in listings."""
    name = course.name
    if course.name_zh and course.name_zh != course.name:
        name += f" ({course.name_zh})"
    prerequisites = ", ".join(course.prerequisites) or "none"
    return (
        f"- [{course.id}] {name} | {course.provider} | {course.level} | "
        f"{_count(course.weeks, 'week')} × {course.hours_per_week:g} h/week | prerequisites: {prerequisites}"
    )


def search_result(
    courses: list[Course], total: int, limit: int, topic: str, level: str | None, known_topics: list[str]
) -> ToolResult:
    """A header, then at most `limit` course lines; the data lists the ids shown, in order."""
    shown = courses[:limit]
    data = {"topic": topic, "level": level, "total": total, "course_ids": [course.id for course in shown]}
    if total == 0 or not shown:
        level_part = f" (level {level})" if level else ""
        topics_text = ", ".join(known_topics) if known_topics else "none"
        text = f"No course matches topic '{topic}'{level_part}. Topics in the catalog: {topics_text}."
        if level:
            text += f" Levels: {', '.join(LEVELS)}."
        return ToolResult(text, data)
    level_part = f" ({level})" if level else ""
    lines = [f"Found {_count(total, 'course')} for '{topic}'{level_part}; showing {len(shown)} of {total}:"]
    lines += [course_line(course) for course in shown]
    hidden = total - len(shown)
    if hidden > 0:
        hint = "" if level else "; add a level (beginner, intermediate, advanced) to narrow the list"
        lines.append(f"({hidden} more not shown{hint}.)")
    return ToolResult("\n".join(lines), data)


def calendar(weeks: list[tuple[date, date]]) -> ToolResult:
    """The weeks with their weekdays; the data holds them as ISO dates [[first, last], ...]."""
    lines = [
        f"Week {number}: {first.isoformat()} ({first:%a}) – {last.isoformat()} ({last:%a})"
        for number, (first, last) in enumerate(weeks, start=1)
    ]
    start, end = weeks[0][0], weeks[-1][1]
    lines.append(f"The plan runs from {start.isoformat()} ({start:%A}) to {end.isoformat()} ({end:%A}).")
    data = {"weeks": [[first.isoformat(), last.isoformat()] for first, last in weeks]}
    return ToolResult("\n".join(lines), data)


def not_a_date(start_date: str) -> ToolError:
    return ToolError(f"start_date {start_date!r} is not a date in YYYY-MM-DD form")


def weeks_out_of_range(weeks: int, most: int) -> ToolError:
    return ToolError(f"weeks must be between 1 and {most}, got {weeks}")


# --- save_plan -------------------------------------------------------------------------------------------


def plan_saved(path: Path, requested_name: str, filled: str = "") -> ToolResult:
    """`filled`: what save_plan derived and filled in ("the end date line, ..."), told on a line of its own."""
    clash = f" ({requested_name} already existed, so it was saved under a new name)"
    note = "" if path.name == requested_name else clash
    filled_line = f"\nFilled in: {filled}." if filled else ""
    return ToolResult(f"Saved plan to {display_path(path)}{note}{filled_line}", {"path": str(path)})


def plan_rejected(problems: list[str], tool: str = "save_plan", advice: str = "") -> ToolError:
    """A refusal listing the checker's problems; the data keeps them and, as `course_ids`, the course each
    problem is about (the first id it names: later ones are the checker's suggestions)."""
    listed = "\n".join(f"- {problem}" for problem in problems)
    what = "revision" if tool == "save_revision" else "plan"
    subjects = (_COURSE_REF.search(problem) for problem in problems)
    course_ids = list(dict.fromkeys(found.group(1).strip() for found in subjects if found))
    return ToolError(
        f"{what} rejected, nothing was saved. Fix these and call {tool} again:\n{listed}"
        + (f"\n\n{advice}" if advice else ""),
        {"problems": list(problems), "course_ids": course_ids},
    )


def filename_with_folders(filename: str) -> ToolError:
    return ToolError(f"filename {filename!r} must be a plain file name inside the plans folder, without folders")


def filename_without_md(filename: str) -> ToolError:
    return ToolError(f"filename {filename!r} must end with .md")


def filename_too_long(name: str, most: int) -> ToolError:
    size = len(name.encode("utf-8", errors="surrogatepass"))
    return ToolError(
        f"filename is too long ({len(name)} characters, {size} bytes in UTF-8; at most {most} characters and "
        "255 bytes): use a short English name"
    )


def filename_not_allowed(filename: str) -> ToolError:
    return ToolError(f"filename {filename!r} is not allowed; use letters, digits, '-' and '_' and end with .md")


def no_free_name(name: str) -> ToolError:
    return ToolError(f"could not find a free file name for {name}")


# --- read_plan and save_revision (revise) ----------------------------------------------------------------

DONE_WEEKS_LABEL = "Weeks checked in as done"
PLAN_FOLLOWS = "The saved plan (Markdown) follows:"


def no_plan_to_revise() -> ToolError:
    return ToolError("there is no saved plan to revise in this run")


def plan_read(path: Path, weeks: int, start: date, end: date, hours: float, done: set[int], text: str) -> ToolResult:
    """The saved plan with its done weeks; the data holds both (the Markdown as read)."""
    if done:
        done_line = (
            f"{DONE_WEEKS_LABEL}: {', '.join(map(str, sorted(done)))}. They must stay exactly as they are (same "
            "number, dates, courses, content, tasks and deliverable): change only other weeks."
        )
    else:
        done_line = f"{DONE_WEEKS_LABEL}: none. Any week may change."
    lines = [
        f"Plan file: {display_path(path)} — {weeks} weeks, {start.isoformat()} to {end.isoformat()}, "
        f"{hours:g} hours per week.",
        done_line,
        PLAN_FOLLOWS,
        "",
        text.rstrip(),
    ]
    data = {"path": str(path), "done_weeks": sorted(done), "markdown": text.strip() + "\n"}
    return ToolResult("\n".join(lines), data)


def revision_saved(path: Path, kept: Path, changes: str) -> ToolResult:
    text = (
        f"Saved the revision to {display_path(path)} (the previous version is kept as {display_path(kept)}).\n"
        f"Changes: {changes}"
    )
    return ToolResult(text, {"path": str(path), "kept": str(kept)})


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
