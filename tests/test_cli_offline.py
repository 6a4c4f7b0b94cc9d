"""The main command on a fresh machine: no key, no network, the built-in planner, through the real CLI."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path

import pytest

from studyplan.cli.exit_codes import EXIT_DATA, EXIT_NO_PLAN, EXIT_OK, EXIT_USAGE
from studyplan.cli.main import run_cli

ROOT = Path(__file__).resolve().parent.parent
CATALOG_IDS = {course["id"] for course in json.loads((ROOT / "courses.json").read_text(encoding="utf-8"))["courses"]}
WEEKDAYS_ZH = ["周一", "周二", "周三", "周四", "周五", "周六", "周日"]
WEEKDAYS_EN = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
DATE = r"(\d{4}-\d{2}-\d{2})\s*[（(]([^）)]+)[）)]"
WEEK_HEADING = re.compile(rf"^### (?:第 (\d+) 周|Week (\d+))[：:]\s*{DATE}\s*–\s*{DATE}", re.MULTILINE)


@pytest.fixture
def studyplan(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys):
    monkeypatch.chdir(tmp_path)

    def run(*args: str) -> tuple[int, str, str]:
        code = run_cli(list(args))
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


def check_plan_as_a_learner(text: str, today: date, lang: str) -> list[tuple[date, date]]:
    """What a learner checks: dated 7-day weeks from the start with the right weekdays, real courses, phases."""
    weeks = WEEK_HEADING.findall(text)
    assert weeks, "no week headings"
    names = WEEKDAYS_ZH if lang == "zh" else WEEKDAYS_EN
    start = date.fromisoformat(weeks[0][2])
    assert today <= start <= today + timedelta(days=14)
    ranges = []
    for index, (number_zh, number_en, first, first_day, last, last_day) in enumerate(weeks):
        assert int(number_zh or number_en) == index + 1
        first_date, last_date = date.fromisoformat(first), date.fromisoformat(last)
        assert first_date == start + timedelta(days=7 * index) and last_date == first_date + timedelta(days=6)
        assert first_day == names[first_date.weekday()] and last_day == names[last_date.weekday()]
        ranges.append((first_date, last_date))
    for course_id in re.findall(r"\[([a-z0-9][a-z0-9-]*)\]", text):
        assert course_id in CATALOG_IDS, f"course {course_id} is not in courses.json"
    phase_heading = "## 阶段 " if lang == "zh" else "## Phase "
    self_check = "### 自检清单" if lang == "zh" else "### Self-check"
    phases = text.count(f"\n{phase_heading}")
    assert phases >= 3
    assert text.count(f"\n{self_check}") == phases
    for block in text.split(self_check)[1:]:
        assert "- [ ] " in block.split("\n## ")[0]
    return ranges


GOALS = [
    ("零基础3个月学机器学习", "zh", 13),
    ("我零基础，想用12周系统地学习Python，每周6小时", "zh", 12),
    ("半年学会深度学习，有Python基础", "zh", 26),
    ("两个月准备雅思，每天1小时", "zh", 9),
    ("九十天入门SQL和数据库", "zh", 13),
    ("从下周一开始，8周学日语入门", "zh", 8),
    ("I know Python; 8 weeks of web development, 6 hours a week", "en", 8),
    ("Learn machine learning from scratch in 3 months", "en", 13),
    ("A semester of algorithms and data structures, intermediate level", "en", 16),
    ("Prepare for the TOEFL in 10 weeks, 5 hours per week", "en", 10),
    ("Learn data analysis with Python in 6 weeks starting next Monday", "en", 6),
]


@pytest.mark.parametrize(("goal", "lang", "weeks"), GOALS, ids=[goal for goal, _, _ in GOALS])
def test_offline_plans_a_learner_can_follow(studyplan, tmp_path: Path, goal: str, lang: str, weeks: int) -> None:
    code, out, err = studyplan(goal, "--today", "2026-12-02")
    assert code == EXIT_OK, err
    assert "offline" in out and "\x1b[" not in out  # captured output is not a terminal: plain text
    saved = list((tmp_path / "plans").glob("*.md"))
    assert len(saved) == 1
    ranges = check_plan_as_a_learner(saved[0].read_text(encoding="utf-8"), date(2026, 12, 2), lang)
    assert len(ranges) == weeks
    assert f"Plan saved: plans/{saved[0].name}" in out


def test_starting_next_monday_is_dated_from_that_monday(studyplan, tmp_path: Path) -> None:
    code, _, _ = studyplan("从下周一开始，8周学日语入门", "--today", "2026-12-02")
    assert code == EXIT_OK
    text = next((tmp_path / "plans").glob("*.md")).read_text(encoding="utf-8")
    assert "### 第 1 周：2026-12-07（周一） – 2026-12-13（周日）" in text


def test_quiet_prints_only_the_path_and_summary(studyplan) -> None:
    code, out, _ = studyplan("Learn SQL in 4 weeks", "--today", "2026-11-30", "--quiet")
    assert code == EXIT_OK
    lines = out.splitlines()
    assert lines[0].startswith("plans/") and lines[0].endswith(".md")
    assert "Thought" not in out and "Observation" not in out


def test_running_twice_never_overwrites(studyplan, tmp_path: Path) -> None:
    for _ in range(2):
        assert studyplan("Learn SQL in 4 weeks", "--today", "2026-11-30", "-q")[0] == EXIT_OK
    assert sorted(path.name for path in (tmp_path / "plans").glob("*.md")) == [
        "sql-databases-4w-2.md",
        "sql-databases-4w.md",
    ]


@pytest.mark.parametrize(
    ("goal", "fragment"),
    [
        ("   ", "The goal is empty"),
        ("3天学会机器学习", "周"),
        ("用100年学Python", "年"),
        ("学Python，每周200小时", "小时"),
    ],
    ids=["empty", "three-days", "hundred-years", "200-hours-a-week"],
)
def test_bad_goals_get_one_line_and_save_nothing(studyplan, tmp_path: Path, goal: str, fragment: str) -> None:
    code, out, err = studyplan(goal, "--today", "2026-11-30")
    assert code == EXIT_USAGE
    assert err.startswith("Error: ") and err.count("\n") == 1 and fragment in err
    assert "Traceback" not in out + err
    assert not list(tmp_path.glob("plans/*.md"))


def test_malformed_catalog_is_named_in_the_error(studyplan, tmp_path: Path) -> None:
    (tmp_path / "broken.json").write_text('{"courses": [ {"id": "x",} ]', encoding="utf-8")
    code, _, err = studyplan("learn python", "--catalog", "broken.json")
    assert code == EXIT_DATA and "broken.json" in err and err.count("\n") == 1


def test_a_named_model_without_an_endpoint_is_a_usage_error(studyplan) -> None:
    code, _, err = studyplan("learn python", "--model", "gpt-4o")
    assert code == EXIT_USAGE and "offline" in err


def test_version(studyplan) -> None:
    code, out, _ = studyplan("--version")
    assert code == EXIT_OK and out.startswith("studyplan ")


def test_python_dash_m_runs_the_same_cli(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "studyplan", "Learn SQL in 4 weeks", "--today", "2026-11-30", "-q"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "OPENAI_API_KEY": ""},
    )
    assert result.returncode == EXIT_OK, result.stderr
    assert result.stdout.splitlines()[0] == "plans/sql-databases-4w.md"


# -- output for scripts and people (issue 12) -----------------------------------------------------------

BOX_DRAWING = re.compile("[\u2500-\u257f]")
COLOUR_CODE = re.compile(r"\x1b\[(?:\d+;)*(?:3[0-8]|9[0-7])(?:;\d+)*m")


def test_json_reports_the_run_and_the_plan(studyplan, tmp_path: Path) -> None:
    code, out, err = studyplan("Learn SQL in 4 weeks", "--today", "2026-11-30", "--json")
    assert code == EXIT_OK and err == ""
    document = json.loads(out)  # stdout holds the JSON document and nothing else
    assert document["status"] == "saved"
    assert document["plan"] == "plans/sql-databases-4w.md" and (tmp_path / document["plan"]).is_file()
    assert (document["start"], document["end"], document["weeks"]) == ("2026-11-30", "2026-12-27", 4)
    assert document["model"] == "offline" and document["steps"] >= 2
    assert set(document["tokens"]) == {"prompt", "completion", "total"}
    assert document["courses"] and set(document["courses"]) <= CATALOG_IDS


def test_json_of_a_refused_goal_is_the_one_line_error_only(studyplan) -> None:
    code, out, err = studyplan("用100年学Python", "--today", "2026-11-30", "--json")
    assert code == EXIT_USAGE and out == "" and err.startswith("Error: ")


def test_a_goal_no_catalog_topic_covers_ends_without_a_plan_as_with_any_model(studyplan, tmp_path: Path) -> None:
    """No matching course is the model's finding, made in the run: exit 6 offline as with an endpoint."""
    code, out, err = studyplan("学习量子烹饪", "--today", "2026-11-30")
    assert code == EXIT_NO_PLAN
    assert "找不到与目标匹配的课程主题" in out and "可选主题" in out
    assert "Traceback" not in out + err
    assert not list(tmp_path.glob("plans/*"))  # no plan, and no draft: a short explanation is not a plan


def test_a_dash_reads_the_goal_from_stdin(studyplan, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("Learn SQL\nin 4 weeks\n"))
    code, out, _ = studyplan("-", "--today", "2026-11-30", "-q")
    assert code == EXIT_OK and out.splitlines()[0] == "plans/sql-databases-4w.md"
    assert "> Goal: Learn SQL in 4 weeks" in (tmp_path / "plans/sql-databases-4w.md").read_text(encoding="utf-8")


def test_stdin_goals_are_bounded_and_need_a_pipe(studyplan, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("learn python " * 1000))
    code, _, err = studyplan("-", "--today", "2026-11-30")
    assert code == EXIT_USAGE and "longer than 2,000 characters" in err

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr("sys.stdin", Terminal())
    code, _, err = studyplan("-")
    assert code == EXIT_USAGE and "pipe the goal in" in err


def test_output_that_is_not_a_terminal_is_plain_lines(studyplan) -> None:
    code, out, _ = studyplan("Learn SQL in 4 weeks", "--today", "2026-11-30")
    assert code == EXIT_OK
    assert not BOX_DRAWING.search(out) and "\x1b[" not in out
    assert "Action · search_courses\n  {\n" in out
    assert "✓ Plan saved: plans/sql-databases-4w.md" in out


def test_bare_studyplan_prints_the_help_and_exits_2(studyplan) -> None:
    code, out, err = studyplan()
    assert code == EXIT_USAGE
    assert out.startswith("Usage: studyplan") and "Examples:" in out
    assert err.startswith("Error: no goal given") and err.count("\n") == 1


@pytest.mark.parametrize(("word", "command"), [("lsit", "list"), ("stauts", "status"), ("shwo", "show")])
def test_a_mistyped_command_is_not_taken_as_a_goal(studyplan, tmp_path: Path, word: str, command: str) -> None:
    code, out, err = studyplan(word, "plans/x.md")
    assert code == EXIT_USAGE and out == ""
    assert f"did you mean 'studyplan {command}'" in err and err.count("\n") == 1
    assert not (tmp_path / "plans").exists()


def test_a_one_word_goal_is_still_a_goal(studyplan) -> None:
    code, out, _ = studyplan("python", "--today", "2026-11-30", "-q")
    assert code == EXIT_OK and out.startswith("plans/python")


@pytest.mark.parametrize(
    ("start", "first_day"), [("2026-12-09", "2026-12-09"), ("monday", "2026-12-07"), ("today", "2026-12-02")]
)
def test_start_sets_the_first_day(studyplan, tmp_path: Path, start: str, first_day: str) -> None:
    code, out, _ = studyplan("Learn SQL in 4 weeks", "--today", "2026-12-02", "--start", start, "--json")
    assert code == EXIT_OK and json.loads(out)["start"] == first_day


def test_a_bad_start_is_a_usage_error(studyplan) -> None:
    code, _, err = studyplan("Learn SQL in 4 weeks", "--start", "someday")
    assert code == EXIT_USAGE and "--start must be today, monday or a date" in err


def test_no_color_flag_and_variable_drop_colours(studyplan, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")  # as if on a terminal: colours unless asked not to
    coloured = studyplan("Learn SQL in 4 weeks", "--today", "2026-11-30")[1]
    assert COLOUR_CODE.search(coloured)
    plain = studyplan("--no-color", "Learn SQL in 4 weeks", "--today", "2026-11-30")[1]
    assert "Plan saved" in plain and not COLOUR_CODE.search(plain)
    assert COLOUR_CODE.search(studyplan("Learn SQL in 4 weeks", "--today", "2026-11-30")[1])  # not sticky
    monkeypatch.setenv("NO_COLOR", "1")
    assert not COLOUR_CODE.search(studyplan("Learn SQL in 4 weeks", "--today", "2026-11-30")[1])


COMMANDS = ["plan", "show", "list", "open", "revise", "replan", "checkin", "status", "export", "batch", "eval"]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_examples_and_readable_metavars(studyplan, command: str) -> None:
    code, out, _ = studyplan(command, "--help")
    assert code == EXIT_OK
    assert "Examples:\n    studyplan " in out
    assert not re.search(r"<(bool|str|int|float|path|list\[)", out.split("Options:")[1])
    assert not BOX_DRAWING.search(out)


def test_plan_help_keeps_defaults_and_names_values(studyplan) -> None:
    out = studyplan("plan", "--help")[1]
    for shown in ("--temperature T", "--protocol auto|tools|text", "--today DATE", "--start today|monday|DATE",
                  "[default: 0.2;", "--plans-dir DIR"):
        assert shown in out


def test_short_version_flag(studyplan) -> None:
    code, out, _ = studyplan("-V")
    assert code == EXIT_OK and re.fullmatch(r"studyplan \d+\.\d+\.\d+\n", out)


def test_shell_completion_completes_commands_and_options(tmp_path: Path) -> None:
    def complete(words: str, index: int) -> list[str]:
        env = {**os.environ, "_STUDYPLAN_COMPLETE": "complete_bash", "COMP_WORDS": words, "COMP_CWORD": str(index)}
        result = subprocess.run([sys.executable, "-m", "studyplan"], cwd=tmp_path, env=env, capture_output=True,
                                text=True, timeout=60)
        assert result.returncode == EXIT_OK, result.stderr
        return result.stdout.split()

    assert complete("studyplan sh", 1) == ["show"]
    assert complete("studyplan learn --pro", 2) == ["--protocol"]  # the goal's command is the default one
    assert "--today" in complete("studyplan status --to", 2)


def test_a_piped_batch_prints_a_line_per_goal_and_no_bar(studyplan, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("learn SQL in 4 weeks\n学Python\n"))
    code, out, _ = studyplan("batch", "-", "--today", "2026-11-30", "-j", "1")
    assert code == EXIT_OK and not BOX_DRAWING.search(out)
    lines = out.splitlines()
    assert all(line.startswith("✓ ") and " → plans/" in line for line in lines[:2])
    assert lines[2].startswith("Batch: 2 saved")
