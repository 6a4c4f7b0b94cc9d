"""The faults a hostile or unlucky user finds (issue 13), each reproduced through the real command line.

Every case asserts what the user sees: the exit code, one line on stderr naming the problem, and that nothing
outside the folder they chose changed and no file of theirs was altered. Concurrency and Ctrl-C run real
processes; the full disk is a small tmpfs when the machine lets us mount one, else a writer that fails.
"""

from __future__ import annotations

import errno
import io
import json
import os
import platform
import re
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path

import pytest
from scripted_server import ScriptedServer, raw, reply

from studyplan.cli.exit_codes import (
    EXIT_BATCH_INCOMPLETE,
    EXIT_DATA,
    EXIT_INTERRUPTED,
    EXIT_MODEL,
    EXIT_OK,
    EXIT_PLAN_CHANGED,
    EXIT_TRACE_STOPPED,
    EXIT_USAGE,
)
from studyplan.cli.main import run_cli

TODAY = "2026-11-30"
TODAY_DATE = date(2026, 11, 30)
GOAL = "Learn Python in 8 weeks"
USER_FILE_TEXT = "my own notes, not studyplan's\n"

Snapshot = dict[str, tuple[bytes, int]]


def snapshot(root: Path, skip: Path | None = None) -> Snapshot:
    """Every file under `root` (but not under `skip`) with its bytes and mode."""
    files: Snapshot = {}
    for path in sorted(root.rglob("*")):
        if skip is not None and (path == skip or skip in path.parents):
            continue
        if path.is_file() and not path.is_symlink():
            files[str(path.relative_to(root))] = (path.read_bytes(), stat.S_IMODE(path.stat().st_mode))
    return files


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's working folder, holding one file of their own; the command runs there."""
    (tmp_path / "notes.txt").write_text(USER_FILE_TEXT, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("STUDYPLAN_CONFIG_DIR", str(tmp_path / ".config"))
    monkeypatch.setenv("STUDYPLAN_DATA_DIR", str(tmp_path / ".data"))
    return tmp_path


Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def studyplan(home: Path, capsys: pytest.CaptureFixture[str]) -> Run:
    def run(*args: str) -> tuple[int, str, str]:
        code = run_cli(list(args))
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


def one_error_line(err: str, *mentions: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), err
    for mention in mentions:
        assert mention in lines[0], err


@pytest.fixture
def plan(studyplan: Run, home: Path) -> Path:
    code, _, err = studyplan(GOAL, "--today", TODAY, "-q")
    assert code == EXIT_OK, err
    return home / "plans" / "python-8w.md"


# -- data lost or written where it must not be ----------------------------------------------------------


def _cli_process(args: list[str], cwd: Path, **kwargs: object) -> subprocess.Popen[str]:
    env = {**os.environ, "OPENAI_API_KEY": "", "STUDYPLAN_CONFIG_DIR": str(cwd / ".config"),
           "STUDYPLAN_DATA_DIR": str(cwd / ".data")}  # fmt: skip
    return subprocess.Popen(  # type: ignore[call-overload, no-any-return]
        [sys.executable, "-m", "studyplan", *args], cwd=cwd, env=env, text=True, **kwargs
    )


def test_eight_concurrent_revisions_lose_no_update(plan: Path, home: Path) -> None:
    before = plan.read_text(encoding="utf-8")
    processes = [
        _cli_process(["revise", "plans/python-8w.md", f"lighten week {week}", "--today", TODAY, "-q", "--no-log"],
                     home, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for week in range(1, 9)
    ]  # fmt: skip
    outcomes = [(process.wait(timeout=120), *process.communicate()) for process in processes]
    codes = [code for code, _, _ in outcomes]
    # A revision that changes the length renames the plan: a process that starts after that finds no file.
    assert set(codes) <= {EXIT_OK, EXIT_PLAN_CHANGED, EXIT_DATA} and EXIT_OK in codes, outcomes
    for code, _, err in outcomes:
        if code == EXIT_PLAN_CHANGED:
            one_error_line(err, "plans/python-8w.md", "changed while this revision was being made")
        elif code == EXIT_DATA:
            one_error_line(err, "plans/python-8w.md", "plan file not found")
    kept = [path.read_text(encoding="utf-8") for path in (home / "plans" / ".versions").glob("python-8w.*.md")]
    # Each saved revision kept the text it was based on: all different (no two revisions of one text), the
    # first of them the original plan, and none of them the final plan.
    assert len(kept) == codes.count(EXIT_OK) == len(set(kept))
    (current,) = plan.parent.glob("python-*w.md")  # renamed when a revision changed the plan's length
    assert before in kept and current.read_text(encoding="utf-8") not in kept


def test_a_revision_refuses_a_plan_that_changed_since_it_was_read(plan: Path) -> None:
    from studyplan.app.revise import save_revision
    from studyplan.domain.catalog import Catalog
    from studyplan.errors import PlanChanged
    from studyplan.planner.context import ToolContext

    original = plan.read_text(encoding="utf-8")
    context = ToolContext(today=TODAY_DATE, catalog=Catalog.load(), plans_dir=plan.parent, readable_plan=plan,
                          readable_text=original)  # fmt: skip
    edited = original.replace("Weekly time: 8 hours", "Weekly time: 8 hours ")  # another editor saved meanwhile
    plan.write_text(edited, encoding="utf-8")
    with pytest.raises(PlanChanged, match="changed while this revision was being made"):
        save_revision(context, original.replace("8 hours a week", "6 hours a week"))
    assert plan.read_text(encoding="utf-8") == edited


def test_revise_refuses_a_symlinked_plan(studyplan: Run, plan: Path, home: Path) -> None:
    outside = home / "elsewhere.md"
    outside.write_text(plan.read_text(encoding="utf-8"), encoding="utf-8")
    link = plan.parent / "link.md"
    link.symlink_to(outside)
    files = snapshot(home)
    code, _, err = studyplan("revise", str(link), "lighten week 2", "--today", TODAY, "-q")
    assert code == EXIT_USAGE
    one_error_line(err, "plans/link.md", "symlink")
    assert snapshot(home) == files


def test_export_to_a_device_writes_nothing_beside_it(studyplan: Run, plan: Path) -> None:
    code, _, err = studyplan("export", str(plan), "--ics", "-o", "/dev/full")
    assert code == EXIT_USAGE
    one_error_line(err, "/dev/full")
    assert not Path("/dev/full-2").exists()


@pytest.mark.parametrize("output", ["notes.txt", "plans", "/proc/self/studyplan.jsonl", "/dev/full"])
def test_batch_writes_results_only_to_a_results_file_of_its_own(
    studyplan: Run, home: Path, output: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    (home / "plans").mkdir()
    monkeypatch.setattr("sys.stdin", io.StringIO(GOAL + "\n"))
    files = snapshot(home)
    code, _, err = studyplan("batch", "-", "--today", TODAY, "-o", output)
    assert code == EXIT_USAGE
    one_error_line(err, output)
    assert snapshot(home) == files and (home / "notes.txt").read_text(encoding="utf-8") == USER_FILE_TEXT


# -- the disk fills up ------------------------------------------------------------------------------------


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 64 KB tmpfs, filled to the last byte; skipped where mounting is not allowed."""
    mount = tmp_path / "disk"
    mount.mkdir()
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)], capture_output=True)
    if result.returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        (mount / "plans").mkdir()
        with (mount / "filler").open("wb", buffering=0) as filler:
            with pytest.raises(OSError) as full:
                while True:
                    filler.write(b"x" * 4096)
            assert full.value.errno == errno.ENOSPC
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def test_a_full_plans_folder_is_named_before_the_model_runs(studyplan: Run, small_disk: Path) -> None:
    code, _, err = studyplan(GOAL, "--today", TODAY, "-q", "--plans-dir", str(small_disk / "plans"))
    assert code == EXIT_DATA
    one_error_line(err, str(small_disk / "plans"), "No space left")
    assert list((small_disk / "plans").iterdir()) == []


def test_a_read_only_plans_folder_is_named(studyplan: Run, small_disk: Path) -> None:
    (small_disk / "filler").unlink()
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    code, _, err = studyplan(GOAL, "--today", TODAY, "-q", "--plans-dir", str(small_disk / "plans"))
    assert code == EXIT_USAGE
    one_error_line(err, str(small_disk / "plans"), "Read-only")


def test_a_full_disk_under_the_trace_stops_the_trace_not_the_plan(
    studyplan: Run, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from studyplan.app import trace as trace_module

    real_write = os.write
    written = [0]

    def write_until_full(descriptor: int, data: bytes) -> int:
        if written[0] + len(data) > 3000:  # the disk fills in the middle of a line
            room = 3000 - written[0]
            if room > 0:
                written[0] += real_write(descriptor, data[:room])
                return room
            raise OSError(errno.ENOSPC, "No space left on device")
        written[0] += len(data)
        return real_write(descriptor, data)

    monkeypatch.setattr(trace_module.os, "write", write_until_full)
    code, out, err = studyplan(GOAL, "--today", TODAY, "--trace-file", "run.trace.jsonl")
    assert code == EXIT_TRACE_STOPPED, err
    assert (home / "plans" / "python-8w.md").is_file()
    assert "trace run.trace.jsonl stopped (No space left on device" in " ".join(out.split())
    text = (home / "run.trace.jsonl").read_text(encoding="utf-8")
    assert text.endswith("\n") and all(json.loads(line) for line in text.splitlines())  # whole lines only

    written[0] = 0
    code, _, err = studyplan("Learn SQL in 4 weeks", "--today", TODAY, "--trace-file", "quiet.trace.jsonl", "-q")
    assert code == EXIT_TRACE_STOPPED
    one_error_line(err, "quiet.trace.jsonl stopped (No space left on device")


def test_a_save_the_file_system_refuses_ends_the_run_with_its_reason(
    studyplan: Run, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from studyplan import paths

    def disk_full(_source: object, _target: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(paths.os, "link", disk_full)  # the disk fills after the folder was checked
    code, _, err = studyplan(GOAL, "--today", TODAY, "-q")
    assert code == EXIT_DATA
    one_error_line(err, "plans/python-8w.md", "No space left on device")
    assert [path.name for path in (home / "plans").iterdir()] == []  # no plan, no temporary file


# -- unbounded reads --------------------------------------------------------------------------------------


def test_a_catalog_that_never_ends_is_refused(studyplan: Run) -> None:
    code, _, err = studyplan(GOAL, "--today", TODAY, "--catalog", "/dev/zero")
    assert code == EXIT_DATA
    one_error_line(err, "/dev/zero", "not a regular file")


def test_fifos_are_refused_not_waited_on(studyplan: Run, home: Path) -> None:
    fifo = home / "pipe"
    os.mkfifo(fifo)
    started = time.monotonic()
    for args, code_wanted in [
        ((GOAL, "--catalog", str(fifo)), EXIT_DATA),
        (("status", str(fifo)), EXIT_DATA),
        (("batch", str(fifo)), EXIT_USAGE),
    ]:
        code, _, err = studyplan(*args, "--today", TODAY)
        assert code == code_wanted
        one_error_line(err, "pipe", "not a regular file")
    assert time.monotonic() - started < 10


def test_a_catalog_nested_100000_deep_is_a_data_error(studyplan: Run, home: Path) -> None:
    (home / "deep.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    code, _, err = studyplan(GOAL, "--today", TODAY, "--catalog", "deep.json")
    assert code == EXIT_DATA
    one_error_line(err, "deep.json", "nested too deeply")


# -- exits that told the wrong story ----------------------------------------------------------------------


def _packaged_course(**changes: object) -> dict[str, object]:
    courses = json.loads((Path(__file__).parents[1] / "courses.json").read_text(encoding="utf-8"))["courses"]
    return {**courses[0], "prerequisites": [], **changes}


@pytest.mark.parametrize(
    ("courses", "mentions"),
    [
        ([], "the course list is empty"),
        ([_packaged_course(name="Python\x1b[2J\nfor everybody")], "control character or escape code"),
    ],
    ids=["empty", "escape codes in a name"],
)
def test_an_unusable_catalog_is_named_not_blamed_on_the_model(
    studyplan: Run, home: Path, courses: list[object], mentions: str
) -> None:
    (home / "catalog.json").write_text(json.dumps({"version": 1, "courses": courses}), encoding="utf-8")
    code, _, err = studyplan(GOAL, "--today", TODAY, "--catalog", "catalog.json")
    assert code == EXIT_DATA
    one_error_line(err, "catalog.json", mentions)
    assert "\x1b" not in err


@pytest.mark.parametrize(
    ("make", "mentions"),
    [
        (lambda home: (home / "plans").write_text("a file"), "is a file, not a folder"),
        (lambda home: (home / "plans").symlink_to(home / "gone"), "symlink to nothing"),
        (lambda home: None, "kernel view"),
    ],
    ids=["a file", "a dangling symlink", "under /proc"],
)
def test_an_unusable_plans_folder_is_named_before_the_model_runs(
    studyplan: Run, home: Path, make: Callable[[Path], object], mentions: str
) -> None:
    make(home)
    folder = "/proc/self/plans" if mentions == "kernel view" else "plans"
    files = snapshot(home)
    code, _, err = studyplan(GOAL, "--today", TODAY, "--plans-dir", folder)
    assert code == EXIT_USAGE
    one_error_line(err, folder, mentions)
    assert snapshot(home) == files


def test_a_goal_that_is_not_utf8_is_a_usage_error_even_with_a_trace(studyplan: Run, home: Path) -> None:
    goal = b"learn python \xff\xfe".decode("utf-8", errors="surrogateescape")  # as argv holds such bytes
    code, _, err = studyplan(goal, "--today", TODAY, "--trace")
    assert code == EXIT_USAGE
    one_error_line(err, "not valid UTF-8")
    assert not (home / "plans").exists() or not list((home / "plans").glob("*.md"))


def test_one_bad_goal_in_a_batch_fails_alone(studyplan: Run, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    goals = b'{"goal": "\\ud800 learn"}\n' + b"\xff\xfe binary\n" + GOAL.encode() + b"\n"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(goals)))
    code, _, _ = studyplan("batch", "-", "--today", TODAY, "-o", "results.jsonl")
    assert code == EXIT_BATCH_INCOMPLETE
    _header, *records = [json.loads(line) for line in (home / "results.jsonl").read_text("utf-8").splitlines()]
    statuses = {record["goal"]: (record["status"], record["error"]) for record in records}
    assert statuses.pop(GOAL) == ("saved", None)
    assert sorted(statuses.values()) == [("rejected", "the goal is not valid UTF-8 text: check the terminal's or the "
                                          "file's encoding")] * 2  # fmt: skip


def test_a_reply_without_a_message_is_a_model_error(
    studyplan: Run, scripted_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    scripted_server.add(raw(json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                                        "choices": [{"index": 0, "finish_reason": "stop"}]}),
                            content_type="application/json"))  # fmt: skip
    code, _, err = studyplan(GOAL, "--today", TODAY, "--model", "m", "--base-url", scripted_server.base_url)
    assert code == EXIT_MODEL
    one_error_line(err)


def test_a_flood_of_hostile_text_replies_ends_at_the_step_bound(
    studyplan: Run, scripted_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    flood = ("Action: f(a=" * 9000)[:100_000]  # the reply that took the old parser 20 s a round
    scripted_server.add(*[reply(flood) for _ in range(3)])
    started = time.monotonic()
    code, _, _ = studyplan(GOAL, "--today", TODAY, "--model", "m", "--base-url", scripted_server.base_url,
                           "--protocol", "text", "--max-steps", "3", "-q")  # fmt: skip
    assert code in (5, 6) and time.monotonic() - started < 30


def test_a_line_break_in_the_base_url_is_a_usage_error(studyplan: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1\r\nX-Injected: 1")
    code, _, err = studyplan(GOAL, "--today", TODAY, "--model", "m")
    assert code == EXIT_USAGE
    one_error_line(err, "line break")


def test_revise_on_a_plan_at_the_end_of_the_calendar_is_a_data_error(studyplan: Run, plan: Path) -> None:
    monday = date(9999, 10, 4)  # the plan moved whole to the calendar's last months, weekdays kept
    shift = monday - TODAY_DATE

    def moved(match: re.Match[str]) -> str:
        return (date.fromisoformat(match.group()) + shift).isoformat()

    late = plan.parent / "late.md"
    late.write_text(re.sub(r"\d{4}-\d{2}-\d{2}", moved, plan.read_text(encoding="utf-8")), encoding="utf-8")
    files = snapshot(plan.parent)
    code, _, err = studyplan("revise", str(late), "lighten week 2", "--today", TODAY, "-q")
    assert code == EXIT_DATA
    one_error_line(err, "late.md")  # the reader or the date bound names it; no overflow, no traceback
    assert snapshot(plan.parent) == files


def test_an_unwritable_trace_file_is_a_usage_error(studyplan: Run, home: Path) -> None:
    code, _, err = studyplan(GOAL, "--today", TODAY, "--trace-file", "notes.txt/run.jsonl")
    assert code == EXIT_USAGE
    one_error_line(err, "notes.txt")
    assert (home / "notes.txt").read_text(encoding="utf-8") == USER_FILE_TEXT


def test_revise_with_a_corrupt_progress_database_is_a_data_error(studyplan: Run, plan: Path) -> None:
    (plan.parent / ".studyplan-progress.sqlite3").write_bytes(b"this is not a database" * 100)
    code, _, err = studyplan("revise", str(plan), "lighten week 2", "--today", TODAY, "-q")
    assert code == EXIT_DATA
    one_error_line(err, "progress data")


# -- validation and hygiene -------------------------------------------------------------------------------


def test_checkin_hours_are_finite_and_bounded(studyplan: Run, plan: Path) -> None:
    code, _, err = studyplan("checkin", str(plan), "--week", "1", "--hours", "1e308", "--today", TODAY)
    assert code == EXIT_USAGE
    one_error_line(err, "from 0 to 168")


def test_max_steps_in_a_batch_line_is_capped(studyplan: Run, home: Path) -> None:
    (home / "goals.jsonl").write_text(json.dumps({"goal": GOAL, "max_steps": 51}) + "\n", encoding="utf-8")
    code, _, err = studyplan("batch", "goals.jsonl", "--today", TODAY)
    assert code == EXIT_USAGE
    one_error_line(err, "goals.jsonl, line 1", "from 1 to 50")


def test_file_names_are_limited_in_bytes() -> None:
    from studyplan.errors import ToolError
    from studyplan.planner.filenames import checked_plan_filename

    name = "机器学习" * 26 + ".md"  # 107 characters, 315 bytes
    with pytest.raises(ToolError, match="315 bytes"):
        checked_plan_filename(name)


def test_escape_codes_and_nul_never_reach_the_terminal_or_the_plan(studyplan: Run, home: Path) -> None:
    code, out, err = studyplan("Learn \x1b[31mPython\x00 in 8 weeks\x1b]0;owned\x07", "--today", TODAY)
    assert code == EXIT_OK, err
    text = (home / "plans" / "python-8w.md").read_text(encoding="utf-8")
    assert "> Goal: Learn Python in 8 weeks" in text
    for output in (text, out, err):
        assert "\x1b" not in output and "\x00" not in output and "\x07" not in output


def test_plans_exports_and_versions_get_the_users_file_mode(
    studyplan: Run, plan: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from studyplan import paths

    assert stat.S_IMODE(plan.stat().st_mode) == paths.user_file_mode()  # 0666 minus the umask, not 0600
    monkeypatch.setattr(paths, "_umask", None)  # read the umask this test sets
    previous = os.umask(0o027)
    try:
        assert studyplan("revise", str(plan), "lighten week 2", "--today", TODAY, "-q")[0] == EXIT_OK
        (current,) = plan.parent.glob("python-*w.md")  # renamed when the revision changed the plan's length
        assert studyplan("export", str(current), "--json")[0] == EXIT_OK
    finally:
        os.umask(previous)
        paths._umask = None
    version = next((plan.parent / ".versions").glob("python-8w.*.md"))
    assert stat.S_IMODE(version.stat().st_mode) == 0o640
    assert stat.S_IMODE(current.with_suffix(".json").stat().st_mode) == 0o640
    assert stat.S_IMODE(current.stat().st_mode) == 0o644  # the same plan: it keeps its own mode


def test_ctrl_c_before_the_command_line_is_loaded_exits_130(home: Path) -> None:
    # The entry point's first statement installs the handler; this child stops right after it, says so, and
    # only then imports the command line, so the signal lands in the window that used to die with -2.
    script = "import studyplan.__main__ as entry; print('ready', flush=True); entry.main()"
    process = subprocess.Popen([sys.executable, "-c", script, "batch", "-"], cwd=home, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)  # fmt: skip
    assert process.stdout is not None and process.stdout.readline() == "ready\n"
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=30) == EXIT_INTERRUPTED


def _reading_stdin(pid: int) -> bool:
    """Whether the process is blocked in read(0, ...) (Linux x86-64: syscall 0, first argument 0)."""
    if platform.machine() != "x86_64":
        pytest.skip("the read syscall is numbered 0 on x86-64 only")
    try:
        fields = Path(f"/proc/{pid}/syscall").read_text().split()
    except OSError:
        pytest.skip("no /proc/<pid>/syscall here")
    return fields[:2] == ["0", "0x0"]


def test_ctrl_c_while_batch_waits_for_its_goals_exits_130(home: Path) -> None:
    process = _cli_process(["batch", "-"], home, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)  # fmt: skip
    deadline = time.monotonic() + 60
    while not _reading_stdin(process.pid):  # not a fixed delay: a loaded machine starts slowly
        assert time.monotonic() < deadline and process.poll() is None
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=30) == EXIT_INTERRUPTED
