"""`studyplan export`: the .ics and .json files read back and compared with the plan."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from icalendar import Calendar
from plan_samples import valid_plan

from studyplan.app.export import session_schedule
from studyplan.cli.exit_codes import EXIT_DATA, EXIT_OK, EXIT_USAGE
from studyplan.cli.main import run_cli
from studyplan.domain.catalog import Catalog
from studyplan.domain.document import PlanDoc, parse_plan
from studyplan.errors import UsageError

START = date(2026, 3, 4)  # a Wednesday: weeks need not start on Monday


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load()


@pytest.fixture
def plan_path(tmp_path: Path, catalog: Catalog) -> Path:
    path = tmp_path / "plans" / "ml.md"
    path.parent.mkdir()
    path.write_text(valid_plan(catalog, START, lang="en"), encoding="utf-8")
    return path


def plan_of(path: Path) -> PlanDoc:
    return parse_plan(path.read_text(encoding="utf-8"))


def cli(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    code = run_cli([str(arg) for arg in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def read_calendar(path: Path) -> Calendar:
    return Calendar.from_ical(path.read_bytes())


def test_ics_has_one_all_day_event_per_week(
    capsys: pytest.CaptureFixture[str], plan_path: Path, catalog: Catalog
) -> None:
    code, out, _ = cli(capsys, "export", plan_path, "--ics")

    assert code == EXIT_OK
    ics_path = plan_path.with_suffix(".ics")
    assert "6 all-day week events written" in out and "ml.ics" in out
    raw = ics_path.read_bytes()
    assert raw.startswith(b"BEGIN:VCALENDAR\r\n")  # RFC 5545 lines end in CRLF
    calendar = read_calendar(ics_path)
    assert str(calendar["VERSION"]) == "2.0"
    assert str(calendar["PRODID"]).startswith("-//studyplan//")
    events = calendar.walk("VEVENT")
    weeks = plan_of(plan_path).weeks
    assert len(events) == len(weeks) == 6
    for event, week in zip(events, weeks, strict=True):
        start, end = event["DTSTART"].dt, event["DTEND"].dt
        assert not isinstance(start, datetime)  # an all-day DATE, not a time
        assert (start, end) == (week.start, week.end + timedelta(days=1))  # DTEND is exclusive
        assert str(event["UID"]) == f"ml-week-{week.number}@studyplan"
        assert isinstance(event["DTSTAMP"].dt, datetime)
    first = events[0]
    assert str(first["SUMMARY"]) == "Week 1: Programming for Everybody (Getting Started with Python)"
    description = str(first["DESCRIPTION"])
    assert "py4e part 1" in description and "do the exercises" in description and "exercise notebook" in description
    assert str(first["URL"]) == catalog.get("py4e").url  # type: ignore[union-attr]


def test_a_re_export_updates_its_own_calendar_with_the_same_uids_and_a_new_sequence(
    capsys: pytest.CaptureFixture[str], plan_path: Path
) -> None:
    cli(capsys, "export", plan_path, "--ics")
    ics_path = plan_path.with_suffix(".ics")
    first = read_calendar(ics_path)

    code, out, _ = cli(capsys, "export", plan_path, "--ics")

    assert code == EXIT_OK
    assert "updated (revision 1" in out and "ml.ics" in out
    assert sorted(path.name for path in ics_path.parent.iterdir()) == ["ml.ics", "ml.md"]  # no ml-2.ics
    second = read_calendar(ics_path)
    uids = [[str(event["UID"]) for event in calendar.walk("VEVENT")] for calendar in (first, second)]
    assert uids[0] == uids[1]  # a re-import updates the same events instead of duplicating them
    assert {int(event["SEQUENCE"]) for event in first.walk("VEVENT")} == {0}
    assert {int(event["SEQUENCE"]) for event in second.walk("VEVENT")} == {1}
    cli(capsys, "export", plan_path, "--ics", "--sessions")
    assert {int(event["SEQUENCE"]) for event in read_calendar(ics_path).walk("VEVENT")} == {2}


def test_a_file_the_user_made_is_never_overwritten(capsys: pytest.CaptureFixture[str], plan_path: Path) -> None:
    ics_path = plan_path.with_suffix(".ics")
    ics_path.write_text("my own calendar notes\n", encoding="utf-8")
    other_calendar = plan_path.with_name("other.ics")
    cli(capsys, "export", plan_path.with_name("ml.md"), "--ics", "-o", other_calendar)
    other_bytes = other_calendar.read_bytes()
    foreign = plan_path.with_name("ai.md")
    foreign.write_text(plan_path.read_text(encoding="utf-8"), encoding="utf-8")

    code, out, _ = cli(capsys, "export", plan_path, "--ics")
    assert code == EXIT_OK
    assert ics_path.read_text(encoding="utf-8") == "my own calendar notes\n"
    assert "ml-2.ics" in out and "ml.ics already exists and was left as it is" in out
    # Another plan's calendar at the name asked for is not this plan's to replace.
    code, out, _ = cli(capsys, "export", foreign, "--ics", "-o", other_calendar)
    assert code == EXIT_OK and other_calendar.read_bytes() == other_bytes and "other-2.ics" in out


def test_another_path_gets_its_own_file(capsys: pytest.CaptureFixture[str], plan_path: Path, tmp_path: Path) -> None:
    cli(capsys, "export", plan_path, "--ics")
    code, _, _ = cli(capsys, "export", plan_path, "--ics", "-o", tmp_path / "elsewhere.ics")
    assert code == EXIT_OK
    assert int(read_calendar(tmp_path / "elsewhere.ics").walk("VEVENT")[0]["SEQUENCE"]) == 0
    assert int(read_calendar(plan_path.with_suffix(".ics")).walk("VEVENT")[0]["SEQUENCE"]) == 0


def test_remind_adds_an_alarm_to_every_session(capsys: pytest.CaptureFixture[str], plan_path: Path) -> None:
    code, out, _ = cli(capsys, "export", plan_path, "--ics", "--remind", "15")

    assert code == EXIT_OK and "study sessions" in out  # a reminder means sessions
    events = read_calendar(plan_path.with_suffix(".ics")).walk("VEVENT")
    assert events
    for event in events:
        (alarm,) = event.walk("VALARM")
        assert str(alarm["ACTION"]) == "DISPLAY"
        assert alarm["TRIGGER"].dt == -timedelta(minutes=15)
        assert str(alarm["DESCRIPTION"]) == str(event["SUMMARY"])
    assert cli(capsys, "export", plan_path, "--ics", "--remind", "-5")[0] == EXIT_USAGE
    assert cli(capsys, "export", plan_path, "--json", "--remind", "15")[0] == EXIT_USAGE


def test_sessions_spread_the_weekly_hours(capsys: pytest.CaptureFixture[str], plan_path: Path) -> None:
    code, out, _ = cli(capsys, "export", plan_path, "--ics", "--sessions")

    assert code == EXIT_OK
    assert "36 study sessions (Mon, Tue, Wed, Thu, Fri, Sat, 19:00–21:00)" in out
    events = read_calendar(plan_path.with_suffix(".ics")).walk("VEVENT")
    for week in plan_of(plan_path).weeks:
        own = [event for event in events if f"-week-{week.number}-session-" in str(event["UID"])]
        starts = [event["DTSTART"].dt for event in own]
        assert all(week.start <= start.date() <= week.end for start in starts)
        assert all(start.tzinfo is None and start.hour == 19 for start in starts)  # floating local time
        minutes = sum((event["DTEND"].dt - event["DTSTART"].dt).total_seconds() / 60 for event in own)
        assert minutes == 12 * 60  # the plan's hours per week
        assert sorted({start.weekday() for start in starts}) == [0, 1, 2, 3, 4, 5]
    assert len({str(event["UID"]) for event in events}) == len(events) == 36


def test_sessions_on_chosen_days(capsys: pytest.CaptureFixture[str], plan_path: Path) -> None:
    output = plan_path.parent / "evenings.ics"
    code, out, _ = cli(capsys, "export", plan_path, "--ics", "--days", "mon,周三,Fri", "--at", "18:30", "-o", output)

    assert code == EXIT_OK and "evenings.ics" in out
    events = read_calendar(output).walk("VEVENT")
    assert len(events) == 18
    week_1 = sorted(event["DTSTART"].dt for event in events if "-week-1-" in str(event["UID"]))
    # Week 1 runs Wednesday 2026-03-04 to Tuesday 2026-03-10: 12 h as three 4-hour sessions.
    assert week_1 == [datetime(2026, 3, 4, 18, 30), datetime(2026, 3, 6, 18, 30), datetime(2026, 3, 9, 18, 30)]
    assert all(event["DTEND"].dt - event["DTSTART"].dt == timedelta(hours=4) for event in events)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--ics", "--days", "mon,someday"], "unknown weekday 'someday'"),
        (["--ics", "--at", "7pm"], "--at must be a time like 19:00"),
        (["--ics", "--days", "sat", "--at", "20:00"], "would run past midnight"),
        ([], "choose one format: --ics or --json"),
        (["--ics", "--json"], "choose one format"),
        (["--json", "--sessions"], "only apply to --ics"),
    ],
)
def test_export_refuses_unusable_options(
    capsys: pytest.CaptureFixture[str], plan_path: Path, args: list[str], message: str
) -> None:
    code, out, err = cli(capsys, "export", plan_path, *args)

    assert code == EXIT_USAGE
    assert out == ""
    assert err.count("\n") == 1 and message in err
    assert sorted(path.name for path in plan_path.parent.iterdir()) == ["ml.md"]


def test_export_of_a_missing_plan(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = cli(capsys, "export", tmp_path / "gone.md", "--ics")

    assert code == EXIT_DATA
    assert err.count("\n") == 1 and "gone.md: plan file not found" in err


def test_session_lengths_round_to_quarter_hours() -> None:
    schedule = session_schedule(5, "mon,wed,fri")
    assert schedule.minutes == 105  # 100 minutes each, to the nearest 15
    assert session_schedule(1).weekdays == (0,)  # one short session, on Monday
    with pytest.raises(UsageError):
        session_schedule(0)


def test_a_chinese_plan_gets_chinese_event_titles(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, catalog: Catalog
) -> None:
    path = tmp_path / "机器学习.md"
    path.write_text(valid_plan(catalog, START, lang="zh"), encoding="utf-8")

    code, _, _ = cli(capsys, "export", path, "--ics")

    assert code == EXIT_OK
    first = read_calendar(path.with_suffix(".ics")).walk("VEVENT")[0]
    assert str(first["SUMMARY"]) == "第 1 周：人人学 Python：Python 入门"
    assert str(first["UID"]) == "机器学习-week-1@studyplan"
    assert "- 任务：" in str(first["DESCRIPTION"])


# -- JSON ---------------------------------------------------------------------------------------------------


def test_json_export_has_the_plan_structure(
    capsys: pytest.CaptureFixture[str], plan_path: Path, catalog: Catalog
) -> None:
    code, out, _ = cli(capsys, "export", plan_path, "--json")

    assert code == EXIT_OK and "ml.json" in out
    data = json.loads(plan_path.with_suffix(".json").read_text(encoding="utf-8"))
    plan = plan_of(plan_path)
    assert (data["title"], data["goal"], data["hours_per_week"]) == ("Test plan", "test goal", 12)
    assert (data["start"], data["end"]) == ("2026-03-04", "2026-04-14")
    assert [phase["title"] for phase in data["phases"]] == ["Phase 1", "Phase 2", "Phase 3"]
    weeks = [week for phase in data["phases"] for week in phase["weeks"]]
    assert [(week["number"], week["start"], week["end"]) for week in weeks] == [
        (week.number, week.start.isoformat(), week.end.isoformat()) for week in plan.weeks
    ]
    course = weeks[0]["courses"][0]
    py4e = catalog.get("py4e")
    assert py4e is not None
    assert (course["id"], course["url"], course["in_catalog"]) == ("py4e", py4e.url, True)
    assert weeks[0]["tasks"] == ["watch the lectures", "do the exercises"]
    assert [resource["id"] for resource in data["resources"]] == ["py4e", "cs50p", "ml-supervised"]


def test_json_keeps_a_course_the_catalog_does_not_know(
    capsys: pytest.CaptureFixture[str], plan_path: Path, tmp_path: Path
) -> None:
    text = plan_path.read_text(encoding="utf-8")
    plan_path.write_text(
        text.replace("[cs50p] CS50's Introduction to Programming with Python", "A Course From Elsewhere"),
        encoding="utf-8",
    )
    output = tmp_path / "out"
    output.mkdir()

    code, _, _ = cli(capsys, "export", plan_path, "--json", "-o", output)

    assert code == EXIT_OK
    data = json.loads((output / "ml.json").read_text(encoding="utf-8"))
    week_3 = data["phases"][1]["weeks"][0]
    assert week_3["courses"] == [{"id": None, "name": "A Course From Elsewhere", "in_catalog": False}]
