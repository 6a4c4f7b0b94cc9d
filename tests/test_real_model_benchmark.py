"""benchmarks/real_model.py against the scripted server: the figures it prints come from a real run."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from scripted_server import ScriptedServer, call, reply

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import real_model


def test_prints_plans_calls_and_estimated_tokens_per_protocol(
    scripted_server: ScriptedServer, capsys: pytest.CaptureFixture[str]
) -> None:
    scripted_server.add(
        reply(None, [call("get_current_date"), call("search_courses", topic="SQL", level="beginner")], usage=None),
        reply(None, [call("compose_plan", course_ids=["cs50-sql"], weeks=9, hours_per_week=5,
                          start_date="2026-11-30")], usage=None),
        reply(None, [call("save_draft", draft_id="draft-1")], usage=None),
        reply("Saved.", usage=None),
        reply("I cannot help with that."),  # the text protocol's run: prose twice, no plan
        reply("Still no plan."),
    )
    code = real_model.main(["--base-url", scripted_server.base_url, "--model", "m", "--protocols", "tools,text",
                            "--goal", "两个月系统学习SQL和数据库", "--today", "2026-11-30"])
    out = capsys.readouterr().out
    assert code == 0
    assert "[tools] 两个月系统学习SQL和数据库: saved (saved), 4 calls" in out
    tools_row = next(line for line in out.splitlines() if line.startswith("| tools |"))
    assert "| 1 of 1 | 4.0 |" in tools_row and "(est.)" in tools_row  # no usage sent: estimated
    text_row = next(line for line in out.splitlines() if line.startswith("| text |"))
    assert "| 0 of 1 | — |" in text_row
    assert all(body.get("max_tokens") for body in scripted_server.bodies)
