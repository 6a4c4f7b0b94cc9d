"""Exports of a saved plan: an iCalendar file (RFC 5545, through icalendar) and a JSON structure.

The calendar is what Google Calendar and Apple Calendar import: VERSION 2.0, a PRODID, and per event a
stable UID (so re-importing a revised plan updates events instead of duplicating them), a DTSTAMP, and
all-day DATE values whose DTEND is the day after the week's last day (DTEND is exclusive). Study sessions
use floating local times: they happen in the evening wherever the learner is, with no time zone to pick.

Re-exporting a plan updates the calendar this tool wrote for it (same name, same UIDs, SEQUENCE one higher,
so calendar apps replace the events); any other file at that name is left alone and a new name is used.
Reminders (`--remind MINUTES`) are VALARMs on the study sessions.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any, Literal

from icalendar import Alarm, Calendar, Event

from studyplan import __version__
from studyplan.app.progress import course_labels, read_plan_file
from studyplan.domain.catalog import Catalog, Course
from studyplan.domain.document import PlanDoc, Week, course_ref_parts, render_labels, weekday_of_token
from studyplan.errors import UsageError

ExportKind = Literal["ics", "json"]
JSON_FORMAT = "studyplan-plan"
JSON_VERSION = 1
PRODID = f"-//studyplan//studyplan {__version__}//EN"
# Event titles per plan language (the plan's own Markdown wording has no short week label).
_SUMMARY = {"zh": "第 {number} 周：{courses}", "en": "Week {number}: {courses}"}
# Default sessions: about two hours each, spread over the week in this order of preference (Monday=0).
_SESSION_HOURS = 2
_SESSION_DAY_PREFERENCE = (0, 2, 4, 1, 3, 5, 6)
_MINUTES_STEP = 15
DEFAULT_SESSION_START = "19:00"
# The calendar property naming the plan a file was exported from: how a re-export recognizes its own file.
PLAN_PROPERTY = "X-STUDYPLAN-PLAN"
# A calendar of a plan is a few hundred KB at most; a bigger file at that name is not ours and is not read.
MAX_OWN_CALENDAR_BYTES = 5_000_000
MAX_REMIND_MINUTES = 7 * 24 * 60


@dataclass(frozen=True)
class SessionSchedule:
    """When the week's hours are studied: the same time on the same weekdays every week."""

    weekdays: tuple[int, ...]  # Monday=0, ascending
    start: time
    minutes: int  # length of each session

    @property
    def end(self) -> time:
        finish = datetime.combine(date.min, self.start) + timedelta(minutes=self.minutes)
        return finish.time()


def session_schedule(
    hours_per_week: float, days: str | None = None, at: str = DEFAULT_SESSION_START
) -> SessionSchedule:
    """Split the weekly hours into equal sessions on `days` ("mon,wed,fri", "周一,周三") at `at` ("19:00").

    Without `days`, sessions of about two hours go on Monday, Wednesday, Friday, Tuesday, ... as needed.
    Raises UsageError for unknown weekdays, a bad time, or sessions that would run past midnight.
    """
    if hours_per_week <= 0:
        raise UsageError("the plan has no weekly hours to spread over study sessions")
    if days is None or not days.strip():
        count = min(max(math.ceil(hours_per_week / _SESSION_HOURS), 1), len(_SESSION_DAY_PREFERENCE))
        weekdays = tuple(sorted(_SESSION_DAY_PREFERENCE[:count]))
    else:
        weekdays = tuple(sorted({_weekday(token) for token in days.replace("，", ",").split(",") if token.strip()}))
        if not weekdays:
            raise UsageError(f"--days needs weekdays such as mon,wed,fri, got {days!r}")
    try:
        start = datetime.strptime(at.strip(), "%H:%M").time()
    except ValueError:
        raise UsageError(f"--at must be a time like 19:00, got {at!r}") from None
    steps = round(hours_per_week * 60 / len(weekdays) / _MINUTES_STEP)
    minutes = max(steps, 1) * _MINUTES_STEP
    if start.hour * 60 + start.minute + minutes > 24 * 60:
        raise UsageError(
            f"{len(weekdays)} sessions of {minutes} minutes starting at {start:%H:%M} would run past "
            "midnight: start earlier (--at) or study on more days (--days)"
        )
    return SessionSchedule(weekdays, start, minutes)


def _weekday(token: str) -> int:
    weekday = weekday_of_token(token)
    if weekday is None:
        raise UsageError(f"unknown weekday {token.strip()!r} in --days (use mon,tue,wed,thu,fri,sat,sun)")
    return weekday


# -- iCalendar ----------------------------------------------------------------------------------------------


def week_summary(week: Week, plan: PlanDoc, catalog: Catalog) -> str:
    separator = render_labels(plan.lang)["course_separator"]
    return _SUMMARY[plan.lang].format(number=week.number, courses=separator.join(course_labels(week, catalog, plan)))


def week_description(week: Week, plan: PlanDoc) -> str:
    """The week's content, tasks and deliverable, worded as in the plan itself."""
    labels = render_labels(plan.lang)
    lines = [labels["content"].format(content=week.content), labels["tasks"]]
    lines += [f"  - {task}" for task in week.tasks]
    lines.append(labels["deliverable"].format(deliverable=week.deliverable))
    return "\n".join(lines)


def build_calendar(
    plan: PlanDoc,
    plan_key: str,
    catalog: Catalog,
    schedule: SessionSchedule | None = None,
    stamp: datetime | None = None,
    remind: int | None = None,
    sequence: int = 0,
) -> Calendar:
    """The plan as an iCalendar file: one all-day event per week, or one timed event per study session.

    `remind` adds a reminder that many minutes before each session; `sequence` is the events' revision."""
    stamp = stamp or datetime.now(UTC)
    calendar = Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("method", "PUBLISH")
    calendar.add("x-wr-calname", plan.title or plan_key)  # the calendar's name when imported as a new one
    calendar.add(PLAN_PROPERTY, plan_key)
    for week in plan.weeks:
        summary = week_summary(week, plan, catalog)
        description = week_description(week, plan)
        url = _first_course_url(week, catalog)
        if schedule is None:
            event = _event(f"{plan_key}-week-{week.number}@studyplan", stamp, summary, description, url, sequence)
            event.add("dtstart", week.start)
            event.add("dtend", week.end + timedelta(days=1))
            event.add("transp", "TRANSPARENT")  # a week-long reminder must not mark the whole week busy
            calendar.add_component(event)
            continue
        days = [day for day in _days_of(week) if day.weekday() in schedule.weekdays]
        for index, day in enumerate(days, start=1):
            event = _event(
                f"{plan_key}-week-{week.number}-session-{index}@studyplan",
                stamp,
                f"{summary} ({index}/{len(days)})",
                description,
                url,
                sequence,
            )
            start = datetime.combine(day, schedule.start)  # naive: a floating local time
            event.add("dtstart", start)
            event.add("dtend", start + timedelta(minutes=schedule.minutes))
            if remind is not None:
                event.add_component(_reminder(remind, f"{summary} ({index}/{len(days)})"))
            calendar.add_component(event)
    return calendar


def _reminder(minutes: int, summary: str) -> Alarm:
    alarm = Alarm()
    alarm.add("action", "DISPLAY")  # DISPLAY needs a DESCRIPTION: the text the reminder shows
    alarm.add("description", summary)
    alarm.add("trigger", timedelta(minutes=-minutes))  # relative to the session's start
    return alarm


def _event(uid: str, stamp: datetime, summary: str, description: str, url: str | None, sequence: int) -> Event:
    event = Event()
    event.add("uid", uid)
    event.add("dtstamp", stamp)
    event.add("sequence", sequence)
    event.add("summary", summary)
    event.add("description", description)
    if url:
        event.add("url", url)
    return event


def _days_of(week: Week) -> list[date]:
    return [week.start + timedelta(days=offset) for offset in range((week.end - week.start).days + 1)]


def _find_course(ref: str, catalog: Catalog) -> Course | None:
    course_id, name = course_ref_parts(ref)
    return catalog.find(course_id or name)


def _first_course_url(week: Week, catalog: Catalog) -> str | None:
    courses = (_find_course(ref, catalog) for ref in week.courses)
    return next((course.url for course in courses if course is not None), None)


# -- JSON ---------------------------------------------------------------------------------------------------


def plan_to_json(plan: PlanDoc, catalog: Catalog) -> dict[str, Any]:
    """The plan's structure for other tools: dates as ISO strings, courses resolved to catalog entries."""
    return {
        "format": JSON_FORMAT,
        "version": JSON_VERSION,
        "title": plan.title,
        "goal": plan.goal,
        "lang": plan.lang,
        "start": plan.start.isoformat(),
        "end": plan.end.isoformat(),
        "hours_per_week": plan.hours_per_week,
        "time_note": plan.time_note,
        "assumptions": plan.assumptions,
        "phases": [
            {
                "number": phase.number,
                "title": phase.title,
                "weeks": [
                    {
                        "number": week.number,
                        "start": week.start.isoformat(),
                        "end": week.end.isoformat(),
                        "courses": [_course_json(ref, catalog) for ref in week.courses],
                        "content": week.content,
                        "tasks": week.tasks,
                        "deliverable": week.deliverable,
                    }
                    for week in phase.weeks
                ],
                "self_check": phase.self_check,
            }
            for phase in plan.phases
        ],
        "resources": [_course_json(ref, catalog) for ref in plan.resources],
    }


def _course_json(ref: str, catalog: Catalog) -> dict[str, Any]:
    course = _find_course(ref, catalog)
    if course is None:  # a course the catalog does not know stays as the plan wrote it
        course_id, name = course_ref_parts(ref)
        return {"id": course_id, "name": name, "in_catalog": False}
    return {
        "id": course.id,
        "name": course.name,
        "name_zh": course.name_zh,
        "provider": course.provider,
        "url": course.url,
        "level": course.level,
        "weeks": course.weeks,
        "hours_per_week": course.hours_per_week,
        "in_catalog": True,
    }


# -- writing ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExportResult:
    kind: ExportKind
    path: Path  # where the file was written
    requested: Path  # where it was asked for; differs when that name was taken
    events: int  # calendar events written (0 for JSON)
    schedule: SessionSchedule | None
    updated: bool = False  # the calendar this tool wrote before for the plan was replaced (a new SEQUENCE)
    sequence: int = 0


def export_plan(
    plan_path: Path,
    kind: ExportKind,
    catalog: Catalog,
    output: Path | None = None,
    sessions: bool = False,
    days: str | None = None,
    at: str = DEFAULT_SESSION_START,
    stamp: datetime | None = None,
    remind: int | None = None,
) -> ExportResult:
    """Write the plan as .ics or .json, next to the plan unless `output` says otherwise.

    A calendar this tool exported before for the same plan is updated in place (SEQUENCE one higher); any
    other existing file is never overwritten: the next free name is used.
    Raises PlanFileError (unreadable plan, unwritable output) or UsageError (bad session options).
    """
    from studyplan.paths import replace_file, write_new_file

    requested = _output_path(plan_path, kind, output)
    previous = own_calendar_sequence(requested, plan_path.stem) if kind == "ics" else None
    sequence = 0 if previous is None else previous + 1
    content, events, schedule = export_content(plan_path, kind, catalog, sessions, days, at, stamp, remind, sequence)
    if previous is not None:  # our own earlier export of this plan: replaced, so calendars update in place
        replace_file(requested, content)
        written = requested.resolve()
    else:
        written = write_new_file(requested.parent, requested.name, content)
    requested_path = requested.parent.resolve() / requested.name
    return ExportResult(kind, written, requested_path, events, schedule, previous is not None, sequence)


def export_content(
    plan_path: Path,
    kind: ExportKind,
    catalog: Catalog,
    sessions: bool = False,
    days: str | None = None,
    at: str = DEFAULT_SESSION_START,
    stamp: datetime | None = None,
    remind: int | None = None,
    sequence: int = 0,
) -> tuple[str, int, SessionSchedule | None]:
    """The export's text (for a file, or stdout with `-o -`), its number of calendar events, its sessions."""
    if remind is not None and not 0 <= remind <= MAX_REMIND_MINUTES:
        raise UsageError(f"--remind must be between 0 and {MAX_REMIND_MINUTES} minutes (a week), got {remind}")
    plan = read_plan_file(plan_path)
    schedule = session_schedule(plan.hours_per_week, days, at) if sessions or remind is not None else None
    if kind == "ics":
        calendar = build_calendar(plan, plan_path.stem, catalog, schedule, stamp, remind, sequence)
        return calendar.to_ical().decode("utf-8"), len(calendar.walk("VEVENT")), schedule
    return json.dumps(plan_to_json(plan, catalog), ensure_ascii=False, indent=2), 0, schedule


def own_calendar_sequence(path: Path, plan_key: str) -> int | None:
    """The highest SEQUENCE of the calendar at `path` if this tool exported it for this plan, else None
    (no file, or one the user made, or another plan's: those are never replaced)."""
    try:
        if not path.is_file() or path.is_symlink() or path.stat().st_size > MAX_OWN_CALENDAR_BYTES:
            return None
        calendar = Calendar.from_ical(path.read_bytes())
    except (OSError, ValueError):
        return None
    if not str(calendar.get("PRODID", "")).startswith("-//studyplan//"):
        return None
    events = calendar.walk("VEVENT")
    uids = [str(event.get("UID", "")) for event in events]
    marked = str(calendar.get(PLAN_PROPERTY, "")) == plan_key
    if not marked and not (uids and all(uid.startswith(f"{plan_key}-week-") for uid in uids)):
        return None
    return max((int(event.get("SEQUENCE", 0)) for event in events), default=0)


def _output_path(plan_path: Path, kind: ExportKind, output: Path | None) -> Path:
    """Where the export goes: next to the plan, into the folder `-o` names, or the file it names. Only a regular
    file on a file system: `-o /dev/full` or a path in /proc is refused (UsageError), not written beside."""
    from studyplan.paths import is_virtual

    if output is None:
        return plan_path.with_suffix(f".{kind}")
    if is_virtual(output):
        raise UsageError(f"{output}: exports go on a file system, not into {output.resolve().parent}")
    if output.is_dir():  # -o some/folder: the plan's name inside it
        return output / plan_path.with_suffix(f".{kind}").name
    if output.exists() and not output.is_file():
        raise UsageError(f"{output}: not a regular file or a folder; give a file name or a folder for the export")
    return output
