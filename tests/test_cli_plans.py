"""Living with plans through the real CLI: list them, show one, open it as a page, and script it (--json, -o -)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest
from plan_samples import valid_plan

from studyplan.app.progress import ProgressStore
from studyplan.cli.exit_codes import EXIT_DATA, EXIT_OK, EXIT_OUTPUT_CLOSED, EXIT_USAGE
from studyplan.cli.main import run_cli
from studyplan.domain.catalog import Catalog

START = date(2026, 11, 30)  # a Monday: the sample plan's weeks are Nov 30, Dec 7, 14, 21, 28, Jan 4
BOX_DRAWING = re.compile("[\u2500-\u257f]")


@pytest.fixture
def studyplan(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys):
    monkeypatch.chdir(tmp_path)

    def run(*args: str) -> tuple[int, str, str]:
        code = run_cli(list(args))
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


@pytest.fixture
def plans(tmp_path: Path) -> Path:
    """plans/ with two plans (one with check-ins: week 1 done, 10 h) and a file that is not a plan."""
    folder = tmp_path / "plans"
    folder.mkdir()
    catalog = Catalog.load()
    (folder / "ml.md").write_text(valid_plan(catalog, START), encoding="utf-8")
    (folder / "later.md").write_text(valid_plan(catalog, date(2027, 1, 4), lang="en"), encoding="utf-8")
    (folder / "notes.md").write_text("# My notes\n\nnot a plan\n", encoding="utf-8")
    store = ProgressStore.for_plan(folder / "ml.md")
    store.record(folder / "ml.md", 1, hours=10, note=None, done=True, on=START)
    return folder


def test_list_shows_each_plan_with_dates_weeks_progress_and_pace(studyplan, plans: Path) -> None:
    code, out, _ = studyplan("list", "--today", "2026-12-09")
    assert code == EXIT_OK
    lines = out.splitlines()
    assert lines[0] == "2 plans in plans:"
    assert lines[1].split() == ["Plan", "Dates", "Weeks", "done", "Hours", "Pace"]
    # Earliest start first; week 1 done by day 9 of the plan: 2 days behind.
    assert lines[2].split() == ["ml.md", "2026-11-30", "–", "2027-01-10", "1/6", "10/72", "behind", "2", "days"]
    assert lines[3].split() == ["later.md", "2027-01-04", "–", "2027-02-14", "0/6", "0/72", "not", "started"]
    assert lines[4].startswith("Not a plan: plans/notes.md (the plan has no week headings")
    assert not BOX_DRAWING.search(out)


def test_list_json(studyplan, plans: Path) -> None:
    code, out, _ = studyplan("list", "--today", "2026-12-09", "--json")
    assert code == EXIT_OK
    document = json.loads(out)
    first, second = document["plans"]
    assert first["plan"] == "plans/ml.md" and second["plan"] == "plans/later.md"
    assert (first["start"], first["end"], first["weeks"]) == ("2026-11-30", "2027-01-10", 6)
    assert (first["done_weeks"], first["spent_hours"], first["days_ahead"]) == (1, 10, -2)
    assert (first["pace"], first["current_week"]) == ("behind 2 days", 2)
    assert second["pace"] == "not started" and second["current_week"] is None
    assert [entry["path"] for entry in document["not_plans"]] == ["plans/notes.md"]


def test_list_of_an_empty_or_missing_folder(studyplan, tmp_path: Path) -> None:
    (tmp_path / "plans").mkdir()
    code, out, _ = studyplan("list")
    assert code == EXIT_OK and out.startswith("No plans in plans yet")
    code, _, err = studyplan("list", "--plans-dir", "nowhere")
    assert code == EXIT_DATA and err == "Error: nowhere: no such plans folder\n"


def test_show_prints_the_plan_with_this_week_marked_and_done_weeks_ticked(studyplan, plans: Path) -> None:
    code, out, _ = studyplan("show", "plans/ml.md", "--today", "2026-12-09")
    assert code == EXIT_OK
    lines = out.splitlines()
    assert lines[0] == "Test plan · plans/ml.md · as of 2026-12-09"
    assert lines[1] == (
        "1/6 weeks done · 10 h of 72 h spent · behind 2 days · this week: week 2 (2026-12-07 – 2026-12-13)"
    )
    headings = [line for line in lines if line.startswith("### 第")]
    assert headings[0].endswith(" ✓") and headings[1].endswith(" ◀ this week")
    assert not any(mark in heading for heading in headings[2:] for mark in ("✓", "◀"))
    assert "\n- 课程：[py4e] Programming for Everybody" in out  # the Markdown itself, readable in a pipe
    assert not BOX_DRAWING.search(out)


def test_show_on_a_terminal_puts_this_week_in_a_panel(
    studyplan, plans: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    code, out, _ = studyplan("--no-color", "show", "plans/ml.md", "--today", "2026-12-09")
    assert code == EXIT_OK
    assert "╭─ ◀ this week" in out


def test_show_of_a_missing_plan_is_one_line(studyplan, plans: Path) -> None:
    code, out, err = studyplan("show", "plans/nope.md")
    assert code == EXIT_DATA and out == "" and err == "Error: plans/nope.md: plan file not found\n"


def test_open_writes_a_self_contained_page_and_updates_its_own(
    studyplan, plans: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[str] = []
    monkeypatch.setattr("webbrowser.open", lambda uri: opened.append(uri) or True)
    monkeypatch.setenv("CI", "1")
    code, out, _ = studyplan("open", "plans/ml.md", "--today", "2026-12-09")
    assert code == EXIT_OK and out == "✓ Plan page written: plans/ml.html\n"
    assert opened == []  # never a browser in CI
    page = (plans / "ml.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "<style>" in page
    assert "<script" not in page and "http" not in page.split("<body>")[0]  # nothing fetched, nothing run
    this_week = page.split('<section class="this-week" id="this-week">')[1].split("</section>")[0]
    assert "2026-12-07" in this_week and "2026-11-30" not in this_week
    assert "1/6 weeks done" in page

    monkeypatch.delenv("CI")
    monkeypatch.setenv("DISPLAY", ":0")
    code, out, _ = studyplan("open", "plans/ml.md", "--today", "2026-12-16")
    assert code == EXIT_OK and "plans/ml.html" in out and "Opened in your browser." in out
    assert opened == [(plans / "ml.html").resolve().as_uri()]
    assert sorted(path.name for path in plans.glob("*.html")) == ["ml.html"]  # updated in place


def test_a_page_never_replaces_a_users_file(studyplan, plans: Path) -> None:
    (plans / "ml.html").write_text("<p>mine</p>\n", encoding="utf-8")
    for _ in range(2):
        code, out, _ = studyplan("show", "plans/ml.md", "--html", "--today", "2026-12-09")
        assert code == EXIT_OK and "plans/ml-2.html" in out and "left as it is" in out
    assert (plans / "ml.html").read_text(encoding="utf-8") == "<p>mine</p>\n"
    assert sorted(path.name for path in plans.glob("*.html")) == ["ml-2.html", "ml.html"]


def test_raw_html_in_a_plan_is_shown_not_run(studyplan, plans: Path) -> None:
    plan = plans / "ml.md"
    plan.write_text(plan.read_text(encoding="utf-8") + "\n<script>alert(1)</script>\n", encoding="utf-8")
    assert studyplan("show", "plans/ml.md", "--html")[0] == EXIT_OK
    page = (plans / "ml.html").read_text(encoding="utf-8")
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_output_needs_html(studyplan, plans: Path) -> None:
    code, _, err = studyplan("show", "plans/ml.md", "-o", "page.html")
    assert code == EXIT_USAGE and "--html" in err


def test_status_json(studyplan, plans: Path) -> None:
    code, out, _ = studyplan("status", "plans/ml.md", "--today", "2026-12-09", "--json")
    assert code == EXIT_OK
    document = json.loads(out)
    assert (document["plan"], document["today"], document["weeks"]) == ("plans/ml.md", "2026-12-09", 6)
    assert (document["done_weeks"], document["days_ahead"], document["next_week"]) == (1, -2, 2)
    assert [week["done"] for week in document["week_status"]] == [True] + [False] * 5
    assert [week["current"] for week in document["week_status"]].index(True) == 1


def test_status_on_a_pipe_has_no_boxes_or_bars(studyplan, plans: Path) -> None:
    code, out, _ = studyplan("status", "plans/ml.md", "--today", "2026-12-09")
    assert code == EXIT_OK and not BOX_DRAWING.search(out)
    assert "Weeks: 1/6 weeks done (17%)" in out and "Hours: 10 h of 72 h spent (14%)" in out


@pytest.mark.parametrize(("kind", "first_line"), [("--json", "{"), ("--ics", "BEGIN:VCALENDAR")])
def test_export_to_stdout_writes_no_file(studyplan, plans: Path, kind: str, first_line: str) -> None:
    before = sorted(plans.iterdir())
    code, out, _ = studyplan("export", "plans/ml.md", kind, "-o", "-")
    assert code == EXIT_OK and out.splitlines()[0].strip() == first_line
    if kind == "--json":
        assert json.loads(out)["start"] == "2026-11-30"
    else:
        assert out.count("BEGIN:VEVENT") == 6
    assert sorted(plans.iterdir()) == before and not Path("-").exists()


def test_revise_json(studyplan, plans: Path) -> None:
    code, out, _ = studyplan("revise", "plans/ml.md", "压缩到4周", "--today", "2026-12-09", "--json")
    assert code == EXIT_OK
    document = json.loads(out)
    assert document["status"] == "saved" and document["plan"] == "plans/ml.md"
    assert document["kept_version"].startswith("plans/.versions/ml.")
    changes = document["changes"]
    assert (changes["weeks_before"], changes["weeks_after"]) == (6, 4)
    assert changes["summary"].startswith(("changed", "removed", "added", "moved"))
    assert {week["change"] for week in changes["weeks"]} <= {"changed", "added", "removed", "moved"}


def test_a_reader_that_stops_early_is_not_an_error(plans: Path, tmp_path: Path) -> None:
    """`studyplan show plan.md | head -1`: the closed pipe ends the command quietly with 141, as SIGPIPE would."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first line is written
    try:
        result = subprocess.run(
            [sys.executable, "-m", "studyplan", "show", "plans/ml.md", "--today", "2026-12-09"],
            cwd=tmp_path, stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=60,
        )
    finally:
        os.close(write_end)
    assert result.returncode == EXIT_OUTPUT_CLOSED
    assert result.stderr == ""


def test_revise_and_replan_on_a_pipe_are_plain_lines(studyplan, plans: Path) -> None:
    code, out, _ = studyplan("revise", "plans/ml.md", "压缩到4周", "--today", "2026-12-09")
    assert code == EXIT_OK and not BOX_DRAWING.search(out)
    assert "What changed: 6 → 4 weeks" in out and "Previous version kept: plans/.versions/ml." in out
    code, out, _ = studyplan("replan", "plans/ml.md", "--today", "2026-12-30")
    assert code == EXIT_OK and not BOX_DRAWING.search(out) and out.startswith("Measured pace: ")
