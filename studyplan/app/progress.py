"""Check-ins and plan-against-reality: what the learner actually did, kept outside the Markdown plan.

Check-ins live in one SQLite file beside the plans (`<plan's folder>/.studyplan-progress.sqlite3`), keyed by
the plan file's stem, so a revision that rewrites `plans/ml.md` in place keeps its progress. The table is an
append-only log: a week's spent hours are the sum of its check-ins and a week is done once any check-in
says so, which is what makes concurrent check-ins from two terminals safe without merging anything.
"""

from __future__ import annotations

import contextlib
import math
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

from studyplan.domain.catalog import Catalog
from studyplan.domain.document import PlanDoc, Week, course_ref_parts, read_saved_plan, render_labels
from studyplan.errors import PlanFileError, UsageError
from studyplan.paths import read_user_file
from studyplan.safe_text import clean_line, has_surrogates

PROGRESS_FILE_NAME = ".studyplan-progress.sqlite3"
SCHEMA_VERSION = 1
_LOCK_TIMEOUT_SECONDS = 10.0  # how long a writer waits for another process's transaction to finish
_DAYS_PER_WEEK = 7
# Plans are moved and extended by up to three years; date arithmetic past year 9999 would overflow.
LAST_PLAN_YEAR = 9000
HOURS_PER_WEEK = 168  # the most one check-in may record: stored sums stay finite

# One migration per schema version, applied in order inside one transaction; index 0 creates version 1.
_MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE checkins (
        id INTEGER PRIMARY KEY,
        plan TEXT NOT NULL,          -- the plan file's stem: survives revisions that rewrite the file
        week INTEGER NOT NULL,
        day TEXT NOT NULL,           -- ISO date the learner checked in for
        hours REAL,
        note TEXT,
        done INTEGER NOT NULL,
        recorded_at TEXT NOT NULL    -- UTC timestamp, for the record only
    );
    CREATE INDEX checkins_by_plan ON checkins (plan, week);
    """,
)


@dataclass(frozen=True)
class Checkin:
    week: int
    on: date
    hours: float | None
    note: str | None
    done: bool


def read_plan_file(plan_path: Path) -> PlanDoc:
    """Read and parse a saved plan; every problem is one PlanFileError line naming the file."""
    return read_plan_source(plan_path)[1]


def is_unchecked_draft(path: Path) -> bool:
    """Whether `path` is a model's unsaved answer kept as `<topic>.draft-unchecked.md` (or `-2.md`, ...)."""
    from studyplan.app.plan import DRAFT_SUFFIX

    marker = re.escape(DRAFT_SUFFIX.removesuffix(".md"))
    return re.fullmatch(rf".+{marker}(?:-\d+)?\.md", path.name) is not None


def read_plan_source(plan_path: Path) -> tuple[str, PlanDoc]:
    """The saved plan's text and its reading; PlanFileError naming the file when it is an unchecked draft, it
    cannot be read, parsed, or its dates are too close to the calendar's end (year 9999) to be moved or extended."""
    if is_unchecked_draft(plan_path):
        raise PlanFileError(
            f"{plan_path}: an unchecked draft (the model's answer, never checked or saved as a plan), "
            "not a plan studyplan can track: run the goal again to get a checked plan"
        )
    text = read_user_file(plan_path, PlanFileError, "plan file")
    try:
        plan = read_saved_plan(text)
    except PlanFileError as error:
        raise PlanFileError(f"{plan_path}: {error}") from None
    latest = max([plan.start, plan.end, *(week.end for week in plan.weeks)])
    if latest.year > LAST_PLAN_YEAR:
        raise PlanFileError(
            f"{plan_path}: the plan runs to {latest.isoformat()}; dates after {LAST_PLAN_YEAR} cannot be planned"
        )
    return text, plan


class ProgressStore:
    """The check-in log of every plan in one folder.

    Each call opens its own short connection, so a store can be shared freely and never holds a lock
    between calls. Reading a folder without check-ins creates nothing; the file appears on the first record.
    """

    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path

    @classmethod
    def for_plan(cls, plan_path: Path) -> ProgressStore:
        """The store beside `plan_path` (the plan's folder holds one progress file for all its plans)."""
        return cls(plan_path.parent / PROGRESS_FILE_NAME)

    @staticmethod
    def plan_key(plan_path: Path) -> str:
        """What check-ins are filed under: the plan file's name without its extension."""
        return plan_path.stem

    def record(
        self, plan_path: Path, week: int, hours: float | None, note: str | None, done: bool, on: date
    ) -> Checkin:
        """Append one check-in. Raises UsageError for impossible values, PlanFileError if it cannot be saved."""
        if week < 1:
            raise UsageError(f"week numbers start at 1, got {week}")
        if hours is not None and not (math.isfinite(hours) and 0 <= hours <= HOURS_PER_WEEK):
            raise UsageError(f"hours must be a number from 0 to {HOURS_PER_WEEK} (the hours in a week), got {hours:g}")
        if note is not None and has_surrogates(note):
            raise UsageError("the note is not valid UTF-8 text: check the terminal's encoding")
        note = clean_line(note).strip() if note else None
        note = note or None
        checkin = Checkin(week=week, on=on, hours=hours, note=note, done=done)
        recorded_at = datetime.now(UTC).isoformat(timespec="seconds")
        with self._transaction(create=True) as connection:
            assert connection is not None  # create=True always connects
            connection.execute(
                "INSERT INTO checkins (plan, week, day, hours, note, done, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (self.plan_key(plan_path), week, on.isoformat(), hours, note, int(done), recorded_at),
            )
        return checkin

    def checkins(self, plan_path: Path) -> list[Checkin]:
        """Every check-in of the plan, oldest first."""
        with self._transaction(create=False) as connection:
            if connection is None:
                return []
            rows = connection.execute(
                "SELECT week, day, hours, note, done FROM checkins WHERE plan = ? ORDER BY id",
                (self.plan_key(plan_path),),
            ).fetchall()
        return [
            Checkin(week=week, on=date.fromisoformat(day), hours=hours, note=note, done=bool(done))
            for week, day, hours, note, done in rows
        ]

    def move_plan(self, old_path: Path, new_path: Path) -> None:
        """File the check-ins of `old_path` under `new_path` (a revision renamed the plan); nothing to move
        creates nothing."""
        with self._transaction(create=False) as connection:
            if connection is not None:
                connection.execute(
                    "UPDATE checkins SET plan = ? WHERE plan = ?", (self.plan_key(new_path), self.plan_key(old_path))
                )

    def done_weeks(self, plan_path: Path) -> set[int]:
        """The week numbers checked in as done (weeks a revision must leave as they are)."""
        return {checkin.week for checkin in self.checkins(plan_path) if checkin.done}

    # -- storage ---------------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _transaction(self, create: bool) -> Iterator[sqlite3.Connection | None]:
        """One transaction on a fresh connection (None when the file is missing and `create` is False).

        BEGIN IMMEDIATE takes the write lock up front, so two processes creating the schema at the same
        time run one after the other and the second sees the first's tables.
        """
        if not create and not self.db_path.exists():
            yield None
            return
        try:
            connection = sqlite3.connect(self.db_path, timeout=_LOCK_TIMEOUT_SECONDS, isolation_level=None)
        except sqlite3.Error as error:
            raise PlanFileError(f"{self.db_path}: progress data cannot be opened ({error})") from None
        try:
            connection.execute("BEGIN IMMEDIATE" if create else "BEGIN")
            self._migrate(connection)
            yield connection
            connection.execute("COMMIT")
        except sqlite3.Error as error:
            _rollback(connection)
            raise PlanFileError(f"{self.db_path}: progress data cannot be used ({error})") from None
        except BaseException:
            _rollback(connection)
            raise
        finally:
            connection.close()

    def _migrate(self, connection: sqlite3.Connection) -> None:
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise PlanFileError(
                f"{self.db_path}: progress data was written by a newer studyplan (schema {version}, "
                f"this version reads up to {SCHEMA_VERSION}); upgrade studyplan"
            )
        for target in range(version + 1, SCHEMA_VERSION + 1):
            for statement in _MIGRATIONS[target - 1].split(";"):
                if statement.strip():
                    connection.execute(statement)
            # PRAGMA takes no parameters; `target` is an int from range().
            connection.execute(f"PRAGMA user_version = {target}")


def _rollback(connection: sqlite3.Connection) -> None:
    # A failed rollback (the file is not a database at all) must not hide the error that caused it.
    with contextlib.suppress(sqlite3.Error):
        if connection.in_transaction:
            connection.execute("ROLLBACK")


# -- plan against reality -----------------------------------------------------------------------------


@dataclass(frozen=True)
class WeekStatus:
    week: Week
    course_labels: list[str]  # catalog names where the catalog knows the course, else as written
    planned_hours: float
    spent_hours: float
    done: bool
    notes: list[str]
    is_current: bool  # today falls in this week

    @property
    def share_of_week_done(self) -> float:
        """1 for a done week, else the share of the planned hours spent (capped at 1)."""
        if self.done:
            return 1.0
        if self.planned_hours <= 0:
            return 0.0
        return min(1.0, self.spent_hours / self.planned_hours)


@dataclass(frozen=True)
class StatusReport:
    plan_path: Path
    plan: PlanDoc
    today: date
    weeks: list[WeekStatus]
    expected_days: float  # plan days the calendar says are behind the learner by today
    actual_days: float  # plan days the learner's work covers: 7 per done week, a share for partial weeks

    @property
    def total_days(self) -> int:
        return len(self.weeks) * _DAYS_PER_WEEK

    @property
    def done_weeks(self) -> int:
        return sum(status.done for status in self.weeks)

    @property
    def planned_hours(self) -> float:
        return sum(status.planned_hours for status in self.weeks)

    @property
    def spent_hours(self) -> float:
        return sum(status.spent_hours for status in self.weeks)

    @property
    def days_ahead(self) -> int:
        """Whole days ahead of the calendar (negative: behind), rounded half away from zero."""
        difference = self.actual_days - self.expected_days
        return int(math.copysign(math.floor(abs(difference) + 0.5), difference))

    @property
    def next_week(self) -> WeekStatus | None:
        """The first week not done yet: what to work on next."""
        return next((status for status in self.weeks if not status.done), None)


def course_labels(week: Week, catalog: Catalog, plan: PlanDoc) -> list[str]:
    """The week's courses as a learner recognizes them (Chinese name in a Chinese plan where there is one)."""
    labels = []
    for ref in week.courses:
        course_id, name = course_ref_parts(ref)
        course = catalog.find(course_id or name)
        if course is None:
            labels.append(name)
        else:
            labels.append(course.name_zh if plan.lang == "zh" and course.name_zh else course.name)
    return labels or [render_labels(plan.lang)["no_course"]]


def build_status(
    plan_path: Path, plan: PlanDoc, checkins: list[Checkin], today: date, catalog: Catalog
) -> StatusReport:
    """Compare the plan's weeks with the check-ins as of `today`; check-ins for weeks not in the plan are ignored."""
    statuses = []
    for week in plan.weeks:
        own = [checkin for checkin in checkins if checkin.week == week.number]
        statuses.append(
            WeekStatus(
                week=week,
                course_labels=course_labels(week, catalog, plan),
                planned_hours=plan.hours_per_week,
                spent_hours=sum(checkin.hours or 0.0 for checkin in own),
                done=any(checkin.done for checkin in own),
                notes=[checkin.note for checkin in own if checkin.note],
                is_current=week.start <= today <= week.end,
            )
        )
    first_day = plan.weeks[0].start
    total_days = len(statuses) * _DAYS_PER_WEEK
    # On the first day of week N the learner should have finished weeks 1..N-1: days before today count.
    expected_days = float(min(max((today - first_day).days, 0), total_days))
    actual_days = sum(status.share_of_week_done for status in statuses) * _DAYS_PER_WEEK
    return StatusReport(plan_path, plan, today, statuses, expected_days, actual_days)


def week_for_checkin(plan: PlanDoc, week_number: int | None, today: date) -> Week:
    """The week a check-in is for: the one asked for, else the one containing `today`. Raises UsageError."""
    weeks = plan.weeks
    span = f"weeks {weeks[0].number}–{weeks[-1].number}" if len(weeks) > 1 else f"week {weeks[0].number}"
    if week_number is not None:
        week = next((week for week in weeks if week.number == week_number), None)
        if week is None:
            raise UsageError(f"week {week_number} is not in the plan (it has {span})")
        return week
    week = next((week for week in weeks if week.start <= today <= week.end), None)
    if week is None:
        raise UsageError(
            f"today ({today.isoformat()}) is outside the plan ({weeks[0].start.isoformat()} – "
            f"{weeks[-1].end.isoformat()}); say which week with --week N ({span})"
        )
    return week


@dataclass(frozen=True)
class CheckinResult:
    """What `studyplan checkin` confirms: the new check-in and the week's totals after it."""

    plan_path: Path
    week: Week
    checkin: Checkin
    week_spent_hours: float
    planned_hours: float
    week_done: bool


def check_in(
    plan_path: Path,
    week_number: int | None,
    hours: float | None,
    note: str | None,
    done: bool,
    today: date,
    store: ProgressStore | None = None,
) -> CheckinResult:
    """Record a check-in for a saved plan and return the week's totals. Raises UsageError or PlanFileError."""
    plan = read_plan_file(plan_path)
    if hours is None and not done and not (note and note.strip()):
        raise UsageError("nothing to record: give --hours H, --note \"...\" or --done")
    week = week_for_checkin(plan, week_number, today)
    store = store or ProgressStore.for_plan(plan_path)
    checkin = store.record(plan_path, week.number, hours, note, done, today)
    own = [entry for entry in store.checkins(plan_path) if entry.week == week.number]
    return CheckinResult(
        plan_path=plan_path,
        week=week,
        checkin=checkin,
        week_spent_hours=sum(entry.hours or 0.0 for entry in own),
        planned_hours=plan.hours_per_week,
        week_done=any(entry.done for entry in own),
    )


def plan_status(plan_path: Path, today: date, catalog: Catalog, store: ProgressStore | None = None) -> StatusReport:
    """The status report of a saved plan as of `today`. Raises PlanFileError."""
    plan = read_plan_file(plan_path)
    store = store or ProgressStore.for_plan(plan_path)
    return build_status(plan_path, plan, store.checkins(plan_path), today, catalog)
