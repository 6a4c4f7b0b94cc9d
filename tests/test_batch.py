"""`studyplan batch`: goals files, concurrent runs through a scripted endpoint and offline, the results file,
resume, Ctrl-C and exit codes."""

from __future__ import annotations

import io
import json
import re
import threading
import time
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from plan_samples import valid_plan
from scripted_server import RecordedRequest, ScriptedServer, Step, call, delayed, error, reply

from studyplan.app.batch import BatchGoal, GoalResult, ResultsFile, parse_goals, run_concurrently
from studyplan.cli.exit_codes import EXIT_BATCH_INCOMPLETE
from studyplan.cli.main import run_cli
from studyplan.domain.catalog import Catalog
from studyplan.errors import UsageError

TODAY = date(2026, 11, 30)


class GoalRoutedServer(ScriptedServer):
    """A scripted endpoint that answers by goal, so goals run concurrently still get their own trajectory.

    A request's goal is its first user message and its turn the number of assistant messages in it; the reply
    is script[goal][turn]. A step scripted as a list is served one item per attempt (e.g. a 429, then a reply).
    """

    def __init__(self, scripts: dict[str, list[Step | list[Step]]]) -> None:
        super().__init__()
        # Like a real endpoint: many connections may wait to be accepted (http.server allows 5), and replies
        # are not held back by Nagle's algorithm (headers and body go out in two writes: +40 ms a request).
        self._http.socket.listen(64)
        handler = self._http.RequestHandlerClass
        self._http.RequestHandlerClass = type("NoDelayHandler", (handler,), {"disable_nagle_algorithm": True})
        self.scripts = scripts
        self.attempts: Counter[tuple[str, int]] = Counter()
        self.turns: list[tuple[str, int]] = []  # (goal, turn) of every request, in arrival order

    def most_goals_in_flight(self) -> int:
        """The most goals that had started (first request) and not yet finished (last request) at once."""
        in_flight: set[str] = set()
        most = 0
        for goal, turn in self.turns:
            in_flight.add(goal)
            most = max(most, len(in_flight))
            if turn == len(self.scripts[goal]) - 1:
                in_flight.discard(goal)
        return most

    def take(self, request: RecordedRequest) -> Step:
        with self._lock:
            self.requests.append(request)
            messages = request.body["messages"]
            goal = next(m["content"] for m in messages if m["role"] == "user")
            turn = sum(m["role"] == "assistant" for m in messages)
            attempt = self.attempts[(goal, turn)]
            self.attempts[(goal, turn)] += 1
            self.turns.append((goal, turn))
        step = self.scripts[goal][turn]
        if isinstance(step, list):
            return step[min(attempt, len(step) - 1)]
        return step


def saving_trajectory(plan: str, filename: str) -> list[Step | list[Step]]:
    """date → save a valid plan → answer: the shortest run that saves a plan."""
    return [
        reply(tool_calls=[call("get_current_date")]),
        reply(tool_calls=[call("save_plan", content=plan, filename=filename)]),
        reply(content="Your plan is saved."),
    ]


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load()


def write_goals(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "goals.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def records(path: Path) -> list[dict[str, Any]]:
    """The results records, after the header line a results file starts with."""
    header, *lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert header["studyplan"] == "batch-results"
    return lines


def batch(goals: Path | str, tmp_path: Path, *extra: str) -> int:
    return run_cli(["batch", str(goals), "--today", TODAY.isoformat(), "--plans-dir", str(tmp_path / "plans"),
                    "-o", str(tmp_path / "results.jsonl"), *extra])


# -- goals files ------------------------------------------------------------------------------------------


def test_goals_file_mixes_plain_lines_and_json_lines() -> None:
    text = "\n".join([
        "# my goals",
        "零基础3个月学机器学习",
        "",
        '{"goal": "Learn SQL in 6 weeks", "today": "2027-01-04", "max_steps": 5}',
        "零基础3个月学机器学习",  # listed twice: runs once
        '{"goal": "asdf", "expect": "no_plan"}',
    ])
    goals = parse_goals(text, "goals.txt")
    assert [goal.goal for goal in goals] == ["零基础3个月学机器学习", "Learn SQL in 6 weeks", "asdf"]
    assert goals[1] == BatchGoal("Learn SQL in 6 weeks", 4, date(2027, 1, 4), 5)
    assert goals[1].key == 'Learn SQL in 6 weeks {"max_steps": 5, "today": "2027-01-04"}'
    assert goals[2].expect == "no_plan"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"goal": "x", ', "goals.txt, line 2: invalid JSON"),
        ('{"topic": "x"}', 'goals.txt, line 2: a JSON line needs a "goal" string'),
        ('{"goal": "x", "today": "tomorrow"}', '"today" must be a date like 2026-11-30'),
        ('{"goal": "x", "max_steps": 0}', '"max_steps" must be a whole number from 1 to 50, got 0'),
        ('{"goal": "x", "max_steps": 51}', '"max_steps" must be a whole number from 1 to 50, got 51'),
        ('{"goal": "x", "model": "gpt"}', "unknown field(s) model"),
    ],
)
def test_malformed_goal_lines_are_named(line: str, message: str) -> None:
    with pytest.raises(UsageError, match=re.escape(message)):
        parse_goals("first goal\n" + line, "goals.txt")


def test_a_file_without_goals_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert batch(write_goals(tmp_path, ["# nothing here", ""]), tmp_path) == 2
    assert "no goals found" in capsys.readouterr().err
    assert batch(tmp_path / "missing.txt", tmp_path) == 2
    assert "goals file not found" in capsys.readouterr().err


# -- offline batches, results and resume ------------------------------------------------------------------


def test_offline_batch_records_each_goal_and_resumes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    goals = write_goals(tmp_path, ["零基础3个月学机器学习", "Learn SQL in 6 weeks", "asdfghjkl",
                                   '{"goal": "6周复习线性代数", "today": "2027-01-04"}'])
    assert batch(goals, tmp_path, "--jobs", "2", "--model", "offline") == EXIT_BATCH_INCOMPLETE
    out = capsys.readouterr().out
    # No catalog topic matches "asdfghjkl": the model (here the offline one) says so, and no plan is saved.
    assert "✓ 零基础3个月学机器学习 → " in out and "⚠ asdfghjkl → The model finished without saving a plan" in out
    assert "Batch incomplete: 3 saved, 1 no_plan" in out

    first = {record["goal"]: record for record in records(tmp_path / "results.jsonl")}
    assert set(first) == {"零基础3个月学机器学习", "Learn SQL in 6 weeks", "asdfghjkl", "6周复习线性代数"}
    saved = first["零基础3个月学机器学习"]
    assert saved["status"] == "saved" and saved["error"] is None and saved["model"] == "offline"
    assert saved["steps"] >= 4 and saved["seconds"] > 0
    assert Path(saved["plan_path"]).read_text(encoding="utf-8").startswith("# ")
    assert Path(saved["plan_path"]).parent == (tmp_path / "plans").resolve()
    assert first["6周复习线性代数"]["options"] == {"today": "2027-01-04"}
    assert "2027-01-04" in Path(first["6周复习线性代数"]["plan_path"]).read_text(encoding="utf-8")
    declined = first["asdfghjkl"]
    assert declined["status"] == "no_plan" and declined["plan_path"] is None and declined["steps"] == 2

    # The rerun runs only the goal without a plan, and appends its new record.
    assert batch(goals, tmp_path, "--jobs", "2", "--model", "offline") == EXIT_BATCH_INCOMPLETE
    assert "1 no_plan, 3 skipped (already saved)" in capsys.readouterr().out
    second = records(tmp_path / "results.jsonl")
    assert [record["goal"] for record in second[4:]] == ["asdfghjkl"]
    assert len(list((tmp_path / "plans").glob("*.md"))) == 3  # no plan written twice


def test_all_goals_saved_exits_zero_and_reads_stdin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("Learn Python in 8 weeks\n6周复习线性代数\n"))
    assert batch("-", tmp_path, "--model", "offline") == 0
    assert "Batch: 2 saved" in capsys.readouterr().out
    assert [record["status"] for record in records(tmp_path / "results.jsonl")] == ["saved", "saved"]
    # Everything already done: nothing runs, and the batch still counts as complete.
    monkeypatch.setattr("sys.stdin", io.StringIO("Learn Python in 8 weeks\n"))
    assert batch("-", tmp_path, "--model", "offline") == 0
    assert "1 skipped (already saved)" in capsys.readouterr().out
    assert len(records(tmp_path / "results.jsonl")) == 2


def test_a_record_cut_short_by_a_crash_is_ignored_and_not_glued_to(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    good = {"goal": "a", "options": {}, "status": "saved"}
    path.write_text(json.dumps(good) + "\n" + '{"goal": "b", "status": "sav', encoding="utf-8")
    results = ResultsFile(path)
    assert results.done_keys() == {"a"}
    with results:
        results.append(GoalResult("b", {}, "saved", "offline", "tools"))
    assert results.done_keys() == {"a", "b"}
    assert path.read_text(encoding="utf-8").splitlines()[1] == '{"goal": "b", "status": "sav'


# -- through an OpenAI-compatible endpoint ----------------------------------------------------------------


def test_scripted_endpoint_batch_runs_goals_concurrently(tmp_path: Path, catalog: Catalog) -> None:
    plan = valid_plan(catalog, TODAY)
    goals = ["goal one", "goal two", "goal three", "goal four"]
    scripts = {goal: saving_trajectory(plan, f"plan-{n}.md") for n, goal in enumerate(goals)}
    # Goal two is rate limited twice before its first answer: the SDK waits (Retry-After) and retries.
    rate_limited = error(429, "slow down", retry_after="0.05")
    scripts["goal two"][0] = [rate_limited, rate_limited, reply(tool_calls=[call("get_current_date")])]
    # Each first reply takes 0.2 s, so a second goal's first request arrives while the first is still waiting.
    for goal in goals:
        if not isinstance(scripts[goal][0], list):
            scripts[goal][0] = delayed_reply(0.2)
    with GoalRoutedServer(scripts) as server:
        code = batch(write_goals(tmp_path, goals), tmp_path, "--jobs", "2", "--model", "scripted-model",
                     "--base-url", server.base_url, "--protocol", "tools")
    assert code == 0
    results = {record["goal"]: record for record in records(tmp_path / "results.jsonl")}
    assert {goal: results[goal]["status"] for goal in goals} == dict.fromkeys(goals, "saved")
    assert results["goal one"]["tokens"] == 45 and results["goal one"]["steps"] == 3  # 3 replies of (10, 5)
    assert results["goal one"]["model"] == "scripted-model"
    assert sorted(Path(r["plan_path"]).name for r in results.values()) == [f"plan-{n}.md" for n in range(4)]
    assert server.attempts[("goal two", 0)] == 3
    assert server.most_goals_in_flight() == 2  # --jobs 2: two at a time, never more


def delayed_reply(seconds: float) -> Step:
    return delayed(seconds, reply(tool_calls=[call("get_current_date")]))


def test_a_failing_goal_is_recorded_and_the_batch_goes_on(tmp_path: Path, catalog: Catalog) -> None:
    plan = valid_plan(catalog, TODAY)
    scripts: dict[str, list[Step | list[Step]]] = {
        "good goal": saving_trajectory(plan, "good.md"),
        "bad goal": [error(400, "context length exceeded")],
    }
    with GoalRoutedServer(scripts) as server:
        code = batch(write_goals(tmp_path, ["bad goal", "good goal"]), tmp_path, "--jobs", "2",
                     "--model", "scripted-model", "--base-url", server.base_url)
    assert code == EXIT_BATCH_INCOMPLETE
    results = {record["goal"]: record for record in records(tmp_path / "results.jsonl")}
    assert results["good goal"]["status"] == "saved"
    assert results["bad goal"]["status"] == "error"
    assert "HTTP 400" in results["bad goal"]["error"] and "context length exceeded" in results["bad goal"]["error"]


# -- Ctrl-C ----------------------------------------------------------------------------------------------


def test_interrupt_keeps_what_finished_and_cancels_the_rest(tmp_path: Path) -> None:
    started: list[int] = []
    told_to_stop: list[int] = []

    def work(item: int, stop: threading.Event) -> GoalResult:
        started.append(item)
        if item > 0:  # still running when Ctrl-C comes: told to stop at its next step
            assert stop.wait(5)
            told_to_stop.append(item)
        return GoalResult(f"goal {item}", {}, "saved", "offline", "tools")

    def interrupt_after_recording(item: int, result: GoalResult) -> None:
        results.append(result)
        raise KeyboardInterrupt

    path = tmp_path / "results.jsonl"
    with pytest.raises(KeyboardInterrupt), ResultsFile(path) as results:
        run_concurrently(list(range(10)), work, 2, interrupt_after_recording)
    assert [record["goal"] for record in records(path)] == ["goal 0"]
    deadline = time.monotonic() + 5
    while len(told_to_stop) < len(started) - 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert sorted(started) == [0, 1, 2]  # two workers: goals 3-9 never started
    assert sorted(told_to_stop) == [1, 2]
