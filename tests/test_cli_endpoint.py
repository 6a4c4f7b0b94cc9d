"""End to end through the CLI, the real openai SDK and HTTP, against the scripted server on 127.0.0.1."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from plan_samples import valid_plan
from scripted_server import ScriptedServer, call, error, reply, stream_reply

from studyplan.cli.exit_codes import EXIT_MODEL, EXIT_NO_PLAN, EXIT_OK, EXIT_STEP_LIMIT
from studyplan.cli.main import run_cli
from studyplan.domain.catalog import Catalog
from studyplan.domain.document import parse_plan

TODAY = date(2026, 11, 30)
KEY = "sk-test-very-secret-key-0123456789"


@pytest.fixture
def plan_text() -> str:
    return valid_plan(Catalog.load(), TODAY)


@pytest.fixture
def cli(scripted_server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Run studyplan against the scripted server; returns (exit code, stdout, stderr)."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.chdir(tmp_path)

    def run(*args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
        argv = [*args, "--model", "scripted-model", "--base-url", scripted_server.base_url, "--today", "2026-11-30"]
        code = run_cli(argv)
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


def trajectory(plan_text: str, streamed: bool = False) -> list:
    make = stream_reply if streamed else reply
    return [
        make("先确认今天的日期。", [call("get_current_date", "c1")]),
        make(
            "零基础需要先补 Python：两个查询一起做。",
            [
                call("search_courses", "c2", topic="机器学习", level="beginner"),
                call("search_courses", "c3", topic="python", level="初级"),
            ],
        ),
        make("计划写好了，保存。", [call("save_plan", "c5", content=plan_text, filename="ml-6w.md")]),
        make("已为你生成 6 周的学习计划。"),
    ]


@pytest.mark.parametrize("streamed", [False, True], ids=["plain", "streamed"])
def test_tool_calling_run_saves_the_plan(
    cli, scripted_server: ScriptedServer, plan_text: str, tmp_path: Path, capsys, streamed: bool
) -> None:
    scripted_server.add(*trajectory(plan_text, streamed))
    args = ["零基础学机器学习", "--stream"] if streamed else ["零基础学机器学习"]
    code, out, _ = cli(*args, capsys=capsys)
    assert code == EXIT_OK
    saved = tmp_path / "plans" / "ml-6w.md"
    plan = parse_plan(saved.read_text(encoding="utf-8"))
    assert plan.start == TODAY and plan.weeks[-1].end == date(2027, 1, 10)
    for title in ("Thought", "Action", "Observation", "Final answer"):
        assert title in out
    assert "plans/ml-6w.md" in out and "已为你生成 6 周的学习计划。" in out

    bodies = scripted_server.bodies
    assert len(bodies) == 4
    assert bodies[0]["model"] == "scripted-model" and bodies[0]["temperature"] == 0.2
    assert {tool["function"]["name"] for tool in bodies[0]["tools"]} == {
        "get_current_date",
        "search_courses",
        "compose_plan",
        "save_draft",
        "save_plan",
    }
    # The parallel calls were both answered, in order, by tool messages carrying their ids.
    third = bodies[2]["messages"]
    assert [m["role"] for m in third[-3:]] == ["assistant", "tool", "tool"]
    assert [m["tool_call_id"] for m in third[-2:]] == ["c2", "c3"]
    assert "[py4e]" in third[-1]["content"]
    assert bool(bodies[0].get("stream")) is streamed


FORCED_DATE = {"type": "function", "function": {"name": "get_current_date"}}


def test_the_first_request_forces_the_date_call(cli, scripted_server: ScriptedServer, plan_text: str, capsys) -> None:
    scripted_server.add(*trajectory(plan_text))
    code, _, _ = cli("零基础学机器学习", capsys=capsys)
    assert code == EXIT_OK
    assert scripted_server.bodies[0]["tool_choice"] == FORCED_DATE
    # Later requests say "auto": llama-cpp-python's chatml-function-calling hides the tools without a tool_choice.
    assert all(body["tool_choice"] == "auto" for body in scripted_server.bodies[1:])


def test_a_server_refusing_tool_choice_gets_the_request_again_without_it(
    cli, scripted_server: ScriptedServer, plan_text: str, tmp_path: Path, capsys
) -> None:
    scripted_server.add(error(400, "tool_choice with a named function is not supported"), *trajectory(plan_text))
    code, _, _ = cli("零基础学机器学习", capsys=capsys)
    assert code == EXIT_OK and (tmp_path / "plans" / "ml-6w.md").exists()
    bodies = scripted_server.bodies
    assert bodies[0]["tool_choice"] == FORCED_DATE and "tools" in bodies[0]
    assert "tool_choice" not in bodies[1] and "tools" in bodies[1]  # still the tools protocol, not text
    assert bodies[1]["messages"] == bodies[0]["messages"]


def test_server_error_is_retried_then_reported_in_one_line(
    cli, scripted_server: ScriptedServer, tmp_path: Path, capsys
) -> None:
    scripted_server.add(*[error(500, retry_after="0.01") for _ in range(3)])
    code, out, err = cli("learn python in 4 weeks", capsys=capsys)
    assert code == EXIT_MODEL
    assert len(scripted_server.bodies) == 3  # the first try and two retries
    assert err.startswith("Error: ") and err.count("\n") == 1 and "500" in err
    assert "Traceback" not in out + err
    assert not (tmp_path / "plans").exists() or not any((tmp_path / "plans").glob("*.md"))


def test_wrong_key_gives_one_line_without_the_key(cli, scripted_server: ScriptedServer, capsys) -> None:
    scripted_server.add(error(401, "Incorrect API key provided: sk-test-very-secret-key-0123456789"))
    code, out, err = cli("learn python", capsys=capsys)
    assert code == EXIT_MODEL
    assert "refused the API key" in err and "OPENAI_API_KEY" in err
    assert KEY not in out + err


def test_answer_without_saving_is_reminded_then_ends_without_plan(cli, scripted_server: ScriptedServer, capsys) -> None:
    scripted_server.add(reply("Here is a plan: study hard."), reply("Sorry, I cannot plan cooking lessons."))
    code, out, _ = cli("学习量子烹饪", capsys=capsys)
    assert code == EXIT_NO_PLAN
    reminder = scripted_server.bodies[1]["messages"][-1]
    assert reminder["role"] == "user" and "compose_plan" in reminder["content"]
    assert "Sorry, I cannot plan cooking lessons." in out


def test_an_unsaved_plan_in_prose_is_kept_as_an_unchecked_draft(
    cli, scripted_server: ScriptedServer, tmp_path: Path, capsys
) -> None:
    prose = "# 机器学习 12 周计划\n\n## 第一阶段\n\n### 第 1 周（2023-09-01 – 2023-09-07）\n- [ML101] 机器学习基础"
    scripted_server.add(reply(prose), reply(prose + "\n\n以上就是计划。"))
    code, out, _ = cli("零基础3个月学机器学习", capsys=capsys)
    assert code == EXIT_NO_PLAN
    draft = tmp_path / "plans" / "machine-learning.draft-unchecked.md"
    text = draft.read_text(encoding="utf-8")
    assert "never saved it as a plan" in text and text.rstrip().endswith("以上就是计划。")
    assert [p.name for p in (tmp_path / "plans").iterdir()] == [draft.name]  # nothing else, no plan
    assert "machine-learning.draft-unchecked.md" in " ".join(out.split())  # the message says where


def test_a_short_refusal_is_not_kept_as_a_draft(cli, scripted_server: ScriptedServer, tmp_path: Path, capsys) -> None:
    scripted_server.add(reply("No course fits."), reply("Sorry, no course fits this goal."))
    code, _, _ = cli("学习量子烹饪", capsys=capsys)
    assert code == EXIT_NO_PLAN
    assert not (tmp_path / "plans").exists() or not list((tmp_path / "plans").iterdir())


def test_a_failing_call_repeated_ends_with_the_step_code_naming_it(
    cli, scripted_server: ScriptedServer, capsys
) -> None:
    same = {"content": "# plan", "filename": "../up.md"}
    scripted_server.add(*(reply(None, [call("save_plan", **same)]) for _ in range(3)))
    code, out, _ = cli("learn SQL", capsys=capsys)
    assert code == EXIT_STEP_LIMIT
    flat = " ".join(out.split())
    assert "repeated" in flat and "save_plan(" in flat and "../up.md" in flat
    assert len(scripted_server.bodies) == 3  # stopped after two repeats in a row


def test_step_bound_ends_the_run_with_its_own_code(cli, scripted_server: ScriptedServer, capsys) -> None:
    scripted_server.add(
        reply(None, [call("get_current_date")]),
        reply(None, [call("search_courses", topic="sql")]),
        reply("I ran out of steps."),
    )
    code, out, _ = cli("learn SQL", "--max-steps", "2", capsys=capsys)
    assert code == EXIT_STEP_LIMIT
    assert "step limit" in out.lower()


def test_trace_records_every_step_and_never_the_key(
    cli, scripted_server: ScriptedServer, plan_text: str, tmp_path: Path, capsys
) -> None:
    scripted_server.add(*trajectory(plan_text))
    code, _, _ = cli("零基础学机器学习", "--trace-file", "run.jsonl", capsys=capsys)
    assert code == EXIT_OK
    lines = [json.loads(line) for line in (tmp_path / "run.jsonl").read_text(encoding="utf-8").splitlines()]
    kinds = [line["kind"] for line in lines]
    assert kinds[0] == "run_started" and kinds[-1] == "run_finished"
    assert kinds.count("model_call_started") == 4 and kinds.count("observation") == 4
    assert any(line["kind"] == "model_call_finished" and line["usage"] for line in lines)
    for written in [tmp_path / "run.jsonl", *tmp_path.joinpath("plans").iterdir()]:
        assert KEY not in written.read_text(encoding="utf-8")
