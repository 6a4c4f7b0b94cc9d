"""config, keys and logs: the user's own files, in temporary user folders (conftest sets STUDYPLAN_*_DIR)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from studyplan.app.config import config_path, keys_path, model_settings, read_config, read_keys
from studyplan.app.logs import log_path
from studyplan.cli.exit_codes import EXIT_NO_PLAN, EXIT_OK, EXIT_USAGE
from studyplan.cli.main import run_cli

SECRET = "sk-test-secret-0123456789"


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run_cli(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_user_folders_follow_the_environment(isolated_environment: Path) -> None:
    assert config_path().parent == isolated_environment / "config"
    assert log_path().parent == isolated_environment / "data"


def test_config_set_get_unset_and_path(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(capsys, "config", "set", "model", "deepseek-chat")[0] == EXIT_OK
    assert cli(capsys, "config", "set", "hours_per_week", "6")[0] == EXIT_OK
    assert cli(capsys, "config", "set", "log", "off")[0] == EXIT_OK

    assert cli(capsys, "config", "get", "model")[1] == "deepseek-chat\n"
    listing = cli(capsys, "config", "get")[1]
    assert "model = deepseek-chat" in listing and "hours_per_week = 6" in listing and "log = false" in listing
    assert read_config() == {"model": "deepseek-chat", "hours_per_week": 6, "log": False}
    assert cli(capsys, "config", "path")[1].strip() == str(config_path())

    assert cli(capsys, "config", "unset", "model")[0] == EXIT_OK
    code, _, err = cli(capsys, "config", "get", "model")
    assert code == EXIT_USAGE and "model is not set" in err


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("hours_per_week", "many", "hours_per_week must be a number of hours"),
        ("language", "fr", "language must be zh or en"),
        ("start", "next week", "start must be a date"),
        ("base_url", "localhost:11434", "base_url must be a URL"),
        ("colour", "blue", "unknown setting 'colour'"),
        ("model", "llama3.1", "which server serves it"),
    ],
)
def test_config_refuses_values_it_cannot_use(capsys: pytest.CaptureFixture[str], key: str, value: str,
                                             message: str) -> None:
    code, _, err = cli(capsys, "config", "set", key, value)
    assert code == EXIT_USAGE and message in err and err.count("\n") == 1
    assert not config_path().exists()


def test_the_config_file_chooses_the_model(capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, "config", "set", "model", "ollama/qwen2.5:7b")
    settings = model_settings(None, None, 0.2)
    assert (settings.model, settings.base_url) == ("qwen2.5:7b", "http://localhost:11434/v1")
    assert model_settings("offline", None, 0.2).offline  # a flag still wins


def test_keys_file_is_private_and_keys_are_never_printed(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", _Stdin(SECRET + "\n"))
    code, out, err = cli(capsys, "keys", "set", "deepseek")

    assert code == EXIT_OK and SECRET not in out + err
    mode = stat.S_IMODE(os.stat(keys_path()).st_mode)
    assert mode == 0o600
    assert read_keys() == {"deepseek": SECRET}
    code, out, _ = cli(capsys, "keys", "list")
    assert "deepseek" in out and SECRET not in out
    assert cli(capsys, "keys", "path")[1].strip() == str(keys_path())
    # The stored key is the one the deepseek preset uses.
    assert model_settings("deepseek-chat", None, 0.2).api_key == SECRET
    assert cli(capsys, "keys", "remove", "deepseek")[0] == EXIT_OK
    assert read_keys() == {}


def test_a_key_with_spaces_is_refused(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", _Stdin("two words\n"))
    code, _, err = cli(capsys, "keys", "set", "openai")
    assert code == EXIT_USAGE and "one word" in err
    assert not keys_path().exists()


def test_every_run_is_logged_and_read_back(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    assert cli(capsys, "3个月学Python", "--today", "2026-11-30", "-q")[0] == EXIT_OK
    assert cli(capsys, "learn SQL in 4 weeks", "--today", "2026-11-30", "-q")[0] == EXIT_OK
    assert cli(capsys, "learn quantum basket weaving", "--today", "2026-11-30")[0] == EXIT_NO_PLAN
    assert cli(capsys, "learn python in 0 weeks", "--today", "2026-11-30")[0] == EXIT_USAGE
    cli(capsys, "learn git", "--today", "2026-11-30", "--no-log")

    code, out, _ = cli(capsys, "logs", "--json", "-n", "5")
    runs = json.loads(out)
    assert code == EXIT_OK
    # A goal refused before any model call is not a run; --no-log leaves no record either.
    assert [run["goal"] for run in runs] == ["learn quantum basket weaving", "learn SQL in 4 weeks", "3个月学Python"]
    newest, sql, _python = runs
    assert newest["status"] == "no_plan"
    assert any("No course topic matches" in (message.get("content") or "") for message in newest["messages"])
    assert sql["status"] == "saved" and sql["plan_path"].endswith(".md") and sql["steps"] >= 4
    assert sql["model"] == "offline" and sql["protocol"] == "tools"
    assert sql["messages"][0]["role"] == "system" and sql["messages"][1]["content"] == "learn SQL in 4 weeks"

    out = cli(capsys, "logs", "-n", "1")[1]
    assert "learn quantum basket weaving" in out and "no_plan" in out
    assert cli(capsys, "logs", "path")[1].strip() == str(log_path())


def test_the_log_can_be_switched_off_in_the_config(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    cli(capsys, "config", "set", "log", "false")
    cli(capsys, "3个月学Python", "--today", "2026-11-30", "-q")
    assert json.loads(cli(capsys, "logs", "--json")[1]) == []


def test_keys_never_reach_the_log(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, scripted_server
) -> None:
    from scripted_server import error

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    scripted_server.add(error(400, f"bad request for key {SECRET}"))
    cli(capsys, "learn python", "-m", "m", "--base-url", scripted_server.base_url, "--today", "2026-11-30")
    assert SECRET not in log_path().read_bytes().decode("utf-8", "replace")
    assert json.loads(cli(capsys, "logs", "--json")[1])[0]["status"] == "error"


def test_plans_dir_from_the_config(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                                   tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("STUDYPLAN_PLANS_DIR", raising=False)
    cli(capsys, "config", "set", "plans_dir", str(tmp_path / "my-plans"))
    assert cli(capsys, "3个月学Python", "--today", "2026-11-30", "-q")[0] == EXIT_OK
    assert list((tmp_path / "my-plans").glob("*.md"))


class _Stdin:
    """A piped stdin (not a terminal) holding `text`."""

    def __init__(self, text: str) -> None:
        self._text = text

    def isatty(self) -> bool:
        return False

    def read(self, size: int = -1) -> str:
        text, self._text = self._text, ""
        return text


def test_config_defaults_fill_what_the_goal_leaves_open(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    cli(capsys, "config", "set", "hours_per_week", "6")
    cli(capsys, "config", "set", "start", "2026-12-07")

    code, out, _ = cli(capsys, "learn SQL in 4 weeks", "--today", "2026-11-30", "--json")
    assert code == EXIT_OK
    document = json.loads(out)
    assert document["start"] == "2026-12-07"
    plan_text = (tmp_path / document["plan"]).read_text(encoding="utf-8")
    assert "6 hours" in plan_text
    # The goal's own words win over the config file.
    code, out, _ = cli(capsys, "learn SQL in 4 weeks, 3 hours a week", "--today", "2026-11-30", "--start", "today",
                       "--json")
    document = json.loads(out)
    assert document["start"] == "2026-11-30"
    assert "3 hours" in (tmp_path / document["plan"]).read_text(encoding="utf-8")


def test_batch_goals_are_logged_too(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    goals = tmp_path / "goals.txt"
    goals.write_text("3个月学Python\nlearn SQL in 4 weeks\n", encoding="utf-8")
    cli(capsys, "batch", str(goals), "--today", "2026-11-30", "--plans-dir", str(tmp_path / "plans"))
    cli(capsys, "batch", str(goals), "--today", "2026-11-30", "--plans-dir", str(tmp_path / "other"), "--no-log")

    runs = json.loads(cli(capsys, "logs", "--json", "-n", "10")[1])
    assert sorted(run["goal"] for run in runs) == ["3个月学Python", "learn SQL in 4 weeks"]
    assert {run["status"] for run in runs} == {"saved"}
