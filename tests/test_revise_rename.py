"""A revision that changes the plan's length renames its file to follow (issue 11 point 7), keeps the old
version in .versions/, never overwrites a file and takes the check-ins along; -q shows what the reviser says
when it cannot do a request; unchecked drafts are no plans for list, show and status."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from studyplan.app.progress import ProgressStore
from studyplan.cli.exit_codes import EXIT_DATA, EXIT_NO_PLAN, EXIT_OK
from studyplan.cli.main import run_cli
from studyplan.domain.document import parse_plan

START = date(2026, 11, 30)  # a Monday


@pytest.fixture
def studyplan(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    monkeypatch.chdir(tmp_path)

    def run(*args: str) -> tuple[int, str, str]:
        code = run_cli(list(args))
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


@pytest.fixture
def ml_13w(studyplan, tmp_path: Path) -> Path:
    """The offline planner's 13-week machine-learning plan, week 1 checked in as done (3 h)."""
    code, _, _ = studyplan("零基础3个月学机器学习", "--today", START.isoformat(), "-q")
    assert code == EXIT_OK
    path = Path("plans/machine-learning-13w.md")
    assert path.is_file()
    code, _, _ = studyplan("checkin", str(path), "--week", "1", "--hours", "3", "--done", "--today", "2026-12-06")
    assert code == EXIT_OK
    return path


def weeks_of(path: Path) -> int:
    return len(parse_plan(path.read_text(encoding="utf-8")).weeks)


def test_a_shorter_plan_is_saved_under_the_name_of_its_new_length(studyplan, ml_13w: Path) -> None:
    original = ml_13w.read_text(encoding="utf-8")
    code, out, _ = studyplan("revise", str(ml_13w), "make it 10 weeks", "--today", "2026-12-07")
    assert code == EXIT_OK
    new = Path("plans/machine-learning-10w.md")
    assert weeks_of(new) == 10 and "10 周" in parse_plan(new.read_text(encoding="utf-8")).title
    assert not ml_13w.exists()  # one file is the current plan
    (kept,) = Path("plans/.versions").glob("machine-learning-13w.*.md")
    assert kept.read_text(encoding="utf-8") == original
    assert "The plan is now plans/machine-learning-10w.md (renamed from plans/machine-learning-13w.md" in out
    # The check-ins went with the plan: status and checkin on the new name see week 1 done.
    assert ProgressStore.for_plan(new).done_weeks(new) == {1}
    code, out, _ = studyplan("status", str(new), "--today", "2026-12-07", "--json")
    assert code == EXIT_OK and json.loads(out)["done_weeks"] == 1
    code, _, err = studyplan("status", str(ml_13w), "--today", "2026-12-07")
    assert code != EXIT_OK and "machine-learning-13w.md" in err and len(err.strip().splitlines()) == 1


def test_the_new_name_never_overwrites_a_file_and_q_says_where_the_plan_is(studyplan, ml_13w: Path) -> None:
    mine = Path("plans/machine-learning-10w.md")
    mine.write_text("my own notes\n", encoding="utf-8")
    code, out, _ = studyplan("revise", str(ml_13w), "make it 10 weeks", "--today", "2026-12-07", "-q")
    assert code == EXIT_OK
    assert mine.read_text(encoding="utf-8") == "my own notes\n"
    new = Path("plans/machine-learning-10w-2.md")
    assert weeks_of(new) == 10 and not ml_13w.exists()
    assert out.splitlines()[0] == "plans/machine-learning-10w-2.md"  # -q: the path first, for scripts
    assert "The plan is now plans/machine-learning-10w-2.md" in out


def test_revise_json_names_the_new_path_and_the_old_one(studyplan, ml_13w: Path) -> None:
    code, out, _ = studyplan("revise", str(ml_13w), "extend to 16 weeks", "--today", "2026-12-07", "--json")
    assert code == EXIT_OK
    document = json.loads(out)
    assert document["plan"] == "plans/machine-learning-16w.md"
    assert document["renamed_from"] == "plans/machine-learning-13w.md"
    assert document["kept_version"].startswith("plans/.versions/machine-learning-13w.")


def test_same_length_or_a_name_without_a_length_stays_in_place(studyplan, ml_13w: Path) -> None:
    code, _, _ = studyplan("revise", str(ml_13w), "swap weeks 2 and 3", "--today", "2026-12-07", "-q")
    assert code == EXIT_OK and weeks_of(ml_13w) == 13
    plain = ml_13w.rename(ml_13w.with_name("ml.md"))
    code, _, _ = studyplan("revise", str(plain), "make it 10 weeks", "--today", "2026-12-07", "-q")
    assert code == EXIT_OK and weeks_of(plain) == 10
    assert sorted(path.name for path in Path("plans").glob("*.md")) == ["ml.md"]


def test_q_shows_what_the_reviser_understands_when_it_cannot_do_a_request(studyplan, ml_13w: Path) -> None:
    text = ml_13w.read_text(encoding="utf-8")
    code, out, err = studyplan("revise", str(ml_13w), "make it sparkle", "--today", "2026-12-07", "-q")
    assert code == EXIT_NO_PLAN and out == ""
    assert err.startswith("Error: The model finished without saving a plan.")
    assert "swap weeks 2 and 3" in err and "skip week 5" in err and "project-based" in err
    assert ml_13w.read_text(encoding="utf-8") == text


DRAFT = "<!-- studyplan: the model wrote this -->\n\n# Rust plan\n\nWeek 1: read the book.\n"


def test_list_puts_unchecked_drafts_on_their_own_line_and_show_status_refuse_them(studyplan, ml_13w: Path) -> None:
    for name in ("rust.draft-unchecked.md", "rust.draft-unchecked-2.md"):
        (ml_13w.parent / name).write_text(DRAFT, encoding="utf-8")
    code, out, _ = studyplan("list", "--today", "2026-12-07")
    assert code == EXIT_OK
    lines = out.splitlines()
    assert lines[0] == "1 plan in plans:"
    assert not any(line.startswith("Not a plan") for line in lines)
    assert lines[-1] == (
        "Unchecked drafts (not plans, never checked): plans/rust.draft-unchecked-2.md, plans/rust.draft-unchecked.md"
    )
    code, out, _ = studyplan("list", "--today", "2026-12-07", "--json")
    document = json.loads(out)
    assert [entry["plan"] for entry in document["plans"]] == ["plans/machine-learning-13w.md"]
    assert document["not_plans"] == [] and len(document["unchecked_drafts"]) == 2
    for command in ("show", "status"):
        code, out, err = studyplan(command, "plans/rust.draft-unchecked.md", "--today", "2026-12-07")
        assert code == EXIT_DATA and out == ""
        assert err == (
            "Error: plans/rust.draft-unchecked.md: an unchecked draft (the model's answer, never checked or saved "
            "as a plan), not a plan studyplan can track: run the goal again to get a checked plan\n"
        )
