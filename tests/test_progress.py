"""Check-ins and status: what a learner records and sees, with a fixed --today."""

from __future__ import annotations

import re
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from datetime import date
from pathlib import Path

import pytest
from plan_samples import valid_plan

from studyplan.app.progress import PROGRESS_FILE_NAME, SCHEMA_VERSION, ProgressStore
from studyplan.cli.exit_codes import EXIT_DATA, EXIT_OK, EXIT_USAGE
from studyplan.cli.main import run_cli
from studyplan.domain.catalog import Catalog
from studyplan.errors import PlanFileError, UsageError

START = date(2026, 3, 2)  # a Monday; six weeks, 12 h a week: ends 2026-04-12


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load()


@pytest.fixture(autouse=True)
def wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    # Rich wraps tables at the terminal width; a wide one keeps each week on one line for the assertions.
    monkeypatch.setenv("COLUMNS", "200")


@pytest.fixture
def plan_path(tmp_path: Path, catalog: Catalog) -> Path:
    path = tmp_path / "plans" / "ml.md"
    path.parent.mkdir()
    path.write_text(valid_plan(catalog, START, lang="en"), encoding="utf-8")
    return path


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run_cli([str(arg) for arg in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def row_of(output: str, week_start: str) -> str:
    """The status table's line for the week starting on `week_start`."""
    return next(line for line in output.splitlines() if week_start in line and "–" in line)


# -- checkin ------------------------------------------------------------------------------------------------


def test_checkin_defaults_to_the_week_containing_today(capsys: pytest.CaptureFixture[str], plan_path: Path) -> None:
    code, out, _ = cli(capsys, "checkin", plan_path, "--hours", "2.5", "--today", "2026-03-11")

    assert code == EXIT_OK
    assert out.count("\n") == 1  # one confirmation line
    assert "week 2 (2026-03-09 – 2026-03-15)" in out
    assert "+2.5 h" in out and "2.5 h of 12 h" in out
    [checkin] = ProgressStore.for_plan(plan_path).checkins(plan_path)
    assert (checkin.week, checkin.hours, checkin.on, checkin.done) == (2, 2.5, date(2026, 3, 11), False)


def test_checkins_of_a_week_add_up(capsys: pytest.CaptureFixture[str], plan_path: Path) -> None:
    cli(capsys, "checkin", plan_path, "--week", "3", "--hours", "4", "--today", "2026-03-16")
    code, out, _ = cli(
        capsys, "checkin", plan_path, "--week", "3", "--hours", "5", "--note", "lists", "--done",
        "--today", "2026-03-18",
    )

    assert code == EXIT_OK
    assert "9 h of 12 h" in out and "done ✓" in out and "note saved" in out
    assert ProgressStore.for_plan(plan_path).done_weeks(plan_path) == {3}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--week", "9", "--hours", "1"], "week 9 is not in the plan (it has weeks 1–6)"),
        (["--week", "0", "--done"], "week 0 is not in the plan"),
        (["--hours", "-1"], "hours must be a number from 0 to 168"),
        (["--hours", "nan"], "hours must be a number from 0 to 168"),
        (["--hours", "1e308"], "hours must be a number from 0 to 168"),
        ([], "nothing to record"),
        (["--hours", "1", "--today", "2026-05-01"], "today (2026-05-01) is outside the plan"),
        (["--hours", "1", "--today", "tomorrow"], "--today must be a date like"),
    ],
)
def test_checkin_refuses_unusable_input_with_one_line(
    capsys: pytest.CaptureFixture[str], plan_path: Path, args: list[str], message: str
) -> None:
    if "--today" not in args:
        args = [*args, "--today", "2026-03-11"]
    code, out, err = cli(capsys, "checkin", plan_path, *args)

    assert code == EXIT_USAGE
    assert out == ""
    assert err.count("\n") == 1 and message in err
    assert ProgressStore.for_plan(plan_path).checkins(plan_path) == []


def test_checkin_on_a_missing_plan_names_the_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = tmp_path / "nope.md"
    code, _, err = cli(capsys, "checkin", missing, "--done", "--today", "2026-03-11")

    assert code == EXIT_DATA
    assert err.count("\n") == 1 and f"{missing}: plan file not found" in err
    assert not (tmp_path / PROGRESS_FILE_NAME).exists()


# -- status -------------------------------------------------------------------------------------------------


def test_status_shows_plan_against_reality(capsys: pytest.CaptureFixture[str], plan_path: Path) -> None:
    cli(capsys, "checkin", plan_path, "--week", "1", "--hours", "12", "--done", "--today", "2026-03-08")
    cli(capsys, "checkin", plan_path, "--hours", "6", "--note", "loops [bold]done[/bold]", "--today", "2026-03-12")

    code, out, _ = cli(capsys, "status", plan_path, "--today", "2026-03-18")

    assert code == EXIT_OK
    week_1, week_2, week_3 = (row_of(out, day) for day in ("2026-03-02", "2026-03-09", "2026-03-16"))
    assert re.search(r"12 h\s+12 h\s+✓", week_1)  # planned, spent, done
    assert "✓" not in week_2 and "6 h" in week_2
    assert "▸ 3" in week_3  # today's week is marked
    assert "loops [bold]done[/bold]" in out  # a note is shown literally, never as markup
    assert "1/6 weeks done (17%)" in out
    assert "18 h of 72 h spent (25%)" in out
    # 16 days of the calendar have passed; the work covers week 1 and half of week 2: 10.5 days.
    assert "behind by 6 days" in out
    next_part = out[out.index("Next:") :]
    assert next_part.startswith("Next: week 2 (2026-03-09 – 2026-03-15)")
    assert "py4e part 2" in next_part and "- watch the lectures" in next_part
    assert "Deliverable: exercise notebook" in next_part


@pytest.mark.parametrize(
    ("done_weeks", "today", "pace"),
    [
        ([], "2026-03-02", "on schedule"),
        ([1], "2026-03-09", "on schedule"),
        ([1, 2, 3], "2026-03-10", "ahead by 13 days"),
        ([1], "2026-03-10", "behind by 1 day —"),
        ([], "2026-05-01", "behind by 42 days"),  # after the plan: the whole plan was due
    ],
)
def test_status_pace_in_days(
    capsys: pytest.CaptureFixture[str], plan_path: Path, done_weeks: list[int], today: str, pace: str
) -> None:
    for week in done_weeks:
        cli(capsys, "checkin", plan_path, "--week", str(week), "--done", "--today", today)

    code, out, _ = cli(capsys, "status", plan_path, "--today", today)

    assert code == EXIT_OK
    assert f"Pace: {pace}" in out


def test_status_when_every_week_is_done(capsys: pytest.CaptureFixture[str], plan_path: Path) -> None:
    for week in range(1, 7):
        cli(capsys, "checkin", plan_path, "--week", str(week), "--done", "--today", "2026-04-12")

    _, out, _ = cli(capsys, "status", plan_path, "--today", "2026-04-12")

    assert "All 6 weeks are done." in out
    assert "Next:" not in out
    assert "6/6 weeks done (100%)" in out


def test_status_of_a_plan_without_checkins_creates_no_file(
    capsys: pytest.CaptureFixture[str], plan_path: Path
) -> None:
    code, out, _ = cli(capsys, "status", plan_path, "--today", "2026-03-04")

    assert code == EXIT_OK
    assert "0/6 weeks done" in out and "Next: week 1" in out
    assert not (plan_path.parent / PROGRESS_FILE_NAME).exists()


@pytest.mark.parametrize(
    ("content", "problem"),
    [(None, "plan file not found"), ("# Just a title\n\nNo weeks here.\n", "the plan has no week headings")],
)
def test_status_of_an_unusable_plan_names_the_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str | None, problem: str
) -> None:
    path = tmp_path / "broken.md"
    if content is not None:
        path.write_text(content, encoding="utf-8")

    code, out, err = cli(capsys, "status", path, "--today", "2026-03-04")

    assert code == EXIT_DATA
    assert out == ""
    assert err.count("\n") == 1 and str(path) in err and problem in err


def test_status_with_corrupt_progress_data_is_one_line(
    capsys: pytest.CaptureFixture[str], plan_path: Path
) -> None:
    database = plan_path.parent / PROGRESS_FILE_NAME
    database.write_bytes(b"this is not a database, just some bytes " * 40)

    code, _, err = cli(capsys, "status", plan_path, "--today", "2026-03-04")

    assert code == EXIT_DATA
    assert err.count("\n") == 1 and str(database) in err


# -- the store ----------------------------------------------------------------------------------------------


def test_checkins_survive_a_revision_that_rewrites_the_plan(catalog: Catalog, plan_path: Path) -> None:
    store = ProgressStore.for_plan(plan_path)
    store.record(plan_path, 1, 10.0, "first week", True, date(2026, 3, 8))
    plan_path.write_text(valid_plan(catalog, START, hours_per_week=8, lang="en"), encoding="utf-8")

    reopened = ProgressStore.for_plan(plan_path)
    assert reopened.done_weeks(plan_path) == {1}
    assert [checkin.note for checkin in reopened.checkins(plan_path)] == ["first week"]


def test_plans_in_one_folder_keep_separate_checkins(plan_path: Path) -> None:
    other = plan_path.with_name("web.md")
    store = ProgressStore.for_plan(plan_path)
    store.record(plan_path, 2, None, None, True, date(2026, 3, 9))

    assert store.done_weeks(other) == set()
    assert ProgressStore.for_plan(other).db_path == plan_path.parent / PROGRESS_FILE_NAME


def test_the_schema_is_versioned(plan_path: Path) -> None:
    store = ProgressStore.for_plan(plan_path)
    store.record(plan_path, 1, 1.0, None, False, date(2026, 3, 2))

    with sqlite3.connect(store.db_path) as connection:
        assert connection.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    connection.close()

    with pytest.raises(PlanFileError, match="written by a newer studyplan"):
        store.checkins(plan_path)


def test_the_store_refuses_negative_hours(plan_path: Path) -> None:
    with pytest.raises(UsageError):
        ProgressStore.for_plan(plan_path).record(plan_path, 1, -0.5, None, False, date(2026, 3, 2))


def test_concurrent_checkins_are_all_kept(plan_path: Path) -> None:
    # Separate stores stand for separate processes: each call opens its own connection.
    def record_many(writer: int) -> None:
        store = ProgressStore.for_plan(plan_path)
        for index in range(20):
            store.record(plan_path, 1 + index % 6, 0.5, f"writer {writer}", False, date(2026, 3, 2))

    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(record_many, range(4)))

    checkins = ProgressStore.for_plan(plan_path).checkins(plan_path)
    assert len(checkins) == 80
    assert sum(checkin.hours or 0 for checkin in checkins) == 40
