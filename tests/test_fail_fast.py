"""eval and batch against an endpoint that is down or refuses the key: one line, exit 4, within seconds."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest
from scripted_server import ScriptedServer, error, reply

from studyplan.app import evaluate as evaluation
from studyplan.cli.exit_codes import EXIT_INTERRUPTED, EXIT_MODEL
from studyplan.cli.main import run_cli

TODAY = "2026-11-30"


def closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}/v1"


def write_goals(tmp_path: Path, goals: list[str]) -> Path:
    path = tmp_path / "goals.txt"
    path.write_text("\n".join(goals) + "\n", encoding="utf-8")
    return path


def test_eval_on_a_closed_port_stops_within_seconds_with_exit_4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    started = time.monotonic()
    code = run_cli(["eval", "-m", "llama3.1", "--base-url", closed_port_url(), "--protocol", "tools",
                    "--protocol", "text", "--today", TODAY, "--report", str(tmp_path / "report.md")])
    elapsed = time.monotonic() - started

    err = capsys.readouterr().err
    assert code == EXIT_MODEL
    assert elapsed < 5  # the built-in set is 36 goals × 2 protocols; each used to retry with backoff
    assert "connection refused" in err and err.count("\n") == 1


def test_batch_stops_at_once_when_the_key_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], scripted_server: ScriptedServer
) -> None:
    scripted_server.add(*[error(401, "invalid api key")] * 10)
    goals = write_goals(tmp_path, [f"learn python, goal {number}" for number in range(10)])

    code = run_cli(["batch", str(goals), "-j", "1", "-m", "llama3.1", "--base-url", scripted_server.base_url,
                    "--today", TODAY, "--plans-dir", str(tmp_path / "plans")])

    assert code == EXIT_MODEL
    assert "refused the API key" in capsys.readouterr().err
    # The worker may have started the next goal before the first failure was seen; the rest never asked.
    assert len(scripted_server.requests) <= 2


def test_a_batch_whose_every_goal_errored_exits_4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], scripted_server: ScriptedServer
) -> None:
    scripted_server.add(*[error(400, "context length exceeded")] * 2)
    goals = write_goals(tmp_path, ["learn python", "learn sql"])

    code = run_cli(["batch", str(goals), "-j", "1", "-m", "llama3.1", "--base-url", scripted_server.base_url,
                    "--today", TODAY, "--plans-dir", str(tmp_path / "plans")])

    assert code == EXIT_MODEL
    assert "2 error" in capsys.readouterr().out


def test_piped_eval_prints_a_line_per_goal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    goals = write_goals(tmp_path, ["3个月学Python", "learn SQL in 4 weeks"])

    code = run_cli(["eval", str(goals), "--today", TODAY, "--report", str(tmp_path / "report.md"),
                    "--plans-dir", str(tmp_path / "plans")])

    out = capsys.readouterr().out
    assert code == 0
    assert "offline · tools  3个月学Python → saved" in out
    assert "learn SQL in 4 weeks → saved" in out


def test_an_interrupted_eval_still_writes_the_report_of_what_finished(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    goals = write_goals(tmp_path, ["3个月学Python", "learn SQL in 4 weeks", "learn rust"])
    real_run_goal = evaluation.run_goal

    def ctrl_c_on_the_third(goal, *args, **kwargs):  # type: ignore[no-untyped-def]
        if goal.goal == "learn rust":
            raise KeyboardInterrupt
        return real_run_goal(goal, *args, **kwargs)

    monkeypatch.setattr(evaluation, "run_goal", ctrl_c_on_the_third)
    code = run_cli(["eval", str(goals), "--today", TODAY, "--jobs", "1", "--report", str(tmp_path / "report.md"),
                    "--plans-dir", str(tmp_path / "plans")])

    assert code == EXIT_INTERRUPTED
    assert "2 runs that finished" in capsys.readouterr().err
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert [run["goal"] for run in report["runs"]] == ["3个月学Python", "learn SQL in 4 weeks"]
    assert (tmp_path / "report.md").exists()


def test_a_run_on_a_closed_port_names_no_retries_and_is_fast(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    started = time.monotonic()
    code = run_cli(["learn python", "-m", "local/qwen", "--base-url", closed_port_url(), "--today", TODAY])
    assert code == EXIT_MODEL
    assert time.monotonic() - started < 3
    assert "connection refused" in capsys.readouterr().err


def test_the_run_header_names_model_and_endpoint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, scripted_server: ScriptedServer
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "200")
    scripted_server.add(reply("I cannot help with that."), reply("Still no plan."))
    run_cli(["learn python", "-m", "local/qwen", "--base-url", scripted_server.base_url, "--today", TODAY])
    first_line = capsys.readouterr().out.splitlines()[0]
    assert "model: qwen" in first_line and f"endpoint: {scripted_server.base_url}" in first_line


def test_a_trickling_server_cannot_hold_a_run_past_its_deadline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, scripted_server: ScriptedServer
) -> None:
    from scripted_server import trickle

    monkeypatch.chdir(tmp_path)
    scripted_server.add(trickle(reply("x" * 500), interval=0.1))
    started = time.monotonic()
    code = run_cli(["learn python", "-m", "local/qwen", "--base-url", scripted_server.base_url, "--today", TODAY,
                    "--deadline", "1.5", "-q"])
    assert code == EXIT_MODEL
    assert time.monotonic() - started < 4
    err = capsys.readouterr().err
    assert "deadline of 1.5s" in err and "--deadline" in err and err.count("\n") == 1
