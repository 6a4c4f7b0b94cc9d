"""The JSON Lines trace: complete, ordered, redacted, and written as the run goes."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from studyplan.app.trace import TraceWriter
from studyplan.core.events import (
    Action,
    ModelCallFinished,
    ModelCallStarted,
    Observation,
    RunFinished,
    RunStarted,
    Usage,
)
from studyplan.errors import UsageError

API_KEY = "sk-test-0123456789abcdef"


def read_records(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_each_event_is_one_json_line_with_its_kind_in_order(tmp_path: Path) -> None:
    path = tmp_path / "run.trace.jsonl"
    messages = [
        {"role": "system", "content": "你是一个学习规划助手。" * 200},
        {"role": "user", "content": "学ML"},
    ]
    reply = {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "function": {"name": "x"}}]}
    with TraceWriter(path) as trace:
        trace.write(RunStarted(goal="学ML", model="m", protocol="tools", offline=False))
        trace.write(ModelCallStarted(step=1, messages=messages))
        trace.write(ModelCallFinished(step=1, seconds=0.5, usage=Usage(10, 2), reply=reply))
        trace.write(Action(step=1, call_id="c1", tool="get_current_date", arguments={}))
        trace.write(Observation(step=1, call_id="c1", tool="get_current_date", text="2025-06-10", ok=True,
                                seconds=0.001))
        trace.write(RunFinished(status="saved", steps=1, seconds=0.6, usage=Usage(10, 2),
                                plan_path=Path("plans/ml.md"), summary="ok",
                                plans_saved=[Path("plans/ml.md")]))

    records = read_records(path)
    assert [record["kind"] for record in records] == [
        "run_started", "model_call_started", "model_call_finished", "action", "observation", "run_finished",
    ]
    assert records[1]["messages"] == messages  # the full request, not a preview
    assert records[2]["reply"] == reply
    assert records[2]["usage"] == {"prompt_tokens": 10, "completion_tokens": 2, "estimated": False}
    assert records[5]["plan_path"] == "plans/ml.md" and records[5]["plans_saved"] == ["plans/ml.md"]
    times = [record["t"] for record in records]
    assert all(isinstance(t, float | int) for t in times) and times == sorted(times)
    assert "你是一个学习规划助手" in path.read_text(encoding="utf-8")  # readable, not \u-escaped


def test_secrets_are_redacted_everywhere(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    with TraceWriter(path, secrets=[API_KEY, ""]) as trace:
        trace.write(ModelCallStarted(step=1, messages=[{"role": "user", "content": f"my key is {API_KEY}"}]))
        trace.note("error", message=f"401 for key {API_KEY}", headers={API_KEY: "x"})

    text = path.read_text(encoding="utf-8")
    assert API_KEY not in text
    records = read_records(path)  # still valid JSON after redaction
    assert records[0]["messages"] == [{"role": "user", "content": "my key is ***"}]
    assert records[1] == {"t": records[1]["t"], "kind": "error", "message": "401 for key ***",
                          "headers": {"***": "x"}}


def test_a_longer_secret_containing_a_shorter_one_is_redacted_whole(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    with TraceWriter(path, secrets=["abc", "abcdef"]) as trace:
        trace.note("x", value="abcdef")
    assert read_records(path)[0]["value"] == "***"


def test_lines_are_on_disk_before_the_writer_is_closed(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    trace = TraceWriter(path)
    trace.write(RunStarted(goal="g", model="m", protocol="text", offline=True))
    assert read_records(path)[0]["kind"] == "run_started"
    trace.close()


def test_an_interrupted_run_records_why_it_stopped(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    with pytest.raises(KeyboardInterrupt), TraceWriter(path) as trace:
        trace.write(RunStarted(goal="g", model="m", protocol="text", offline=True))
        raise KeyboardInterrupt
    records = read_records(path)
    assert [record["kind"] for record in records] == ["run_started", "aborted"]
    assert records[1]["error"] == "KeyboardInterrupt"


def test_values_without_a_json_form_are_converted(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    with TraceWriter(path) as trace:
        trace.note("plan", start=date(2025, 6, 10), path=Path("plans/a.md"), usage=Usage(1, 2), weeks=(1, 2))
    record = read_records(path)[0]
    assert record["start"] == "2025-06-10"
    assert record["path"] == "plans/a.md"
    assert record["usage"] == {"prompt_tokens": 1, "completion_tokens": 2, "estimated": False}
    assert record["weeks"] == [1, 2]


def test_the_parent_directory_is_created(tmp_path: Path) -> None:
    path = tmp_path / "plans" / "traces" / "run.jsonl"
    with TraceWriter(path) as trace:
        trace.note("error", message="boom")
    assert read_records(path) == [{"t": read_records(path)[0]["t"], "kind": "error", "message": "boom"}]


def test_an_unwritable_path_is_a_one_line_studyplan_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(UsageError, match="trace file's folder is a file, not a folder"):
        TraceWriter(blocker / "trace.jsonl")


def test_writing_after_close_is_refused(tmp_path: Path) -> None:
    trace = TraceWriter(tmp_path / "trace.jsonl")
    trace.close()
    trace.close()  # closing twice is harmless
    with pytest.raises(ValueError, match="closed"):
        trace.note("late")


def test_an_existing_file_is_never_replaced_by_a_trace(tmp_path: Path) -> None:
    from studyplan.errors import UsageError

    mine = tmp_path / "notes.jsonl"
    mine.write_text("my notes\n")
    with pytest.raises(UsageError, match="already exists"):
        TraceWriter(mine)
    assert mine.read_text() == "my notes\n"
