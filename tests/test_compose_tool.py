"""The model chooses, the code composes: compose_plan and save_draft, alone and end to end through the
scripted OpenAI-compatible server, as small local models use them."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from scripted_server import ScriptedServer, call, reply

from studyplan.cli.main import EXIT_OK, run_cli
from studyplan.core.tools import ToolRegistry
from studyplan.domain.catalog import Catalog
from studyplan.domain.document import parse_plan
from studyplan.errors import ToolError
from studyplan.planner.context import ToolContext
from studyplan.planner.tools import build_registry

TODAY = date(2026, 11, 30)  # a Monday
ML_GOAL = "零基础3个月学机器学习"


def registry(tmp_path: Path, goal: str) -> ToolRegistry:
    context = ToolContext(today=TODAY, catalog=Catalog.load(), plans_dir=tmp_path / "plans", goal=goal)
    return build_registry(context)


def compose(tools: ToolRegistry, ids: list[str], weeks: int = 13, hours: float = 8, start: str = "2026-12-07") -> str:
    return tools.call(
        "compose_plan", {"course_ids": ids, "weeks": weeks, "hours_per_week": hours, "start_date": start}
    ).text


# --- the tool ----------------------------------------------------------------------------------------------


def test_composed_draft_is_saved_by_its_id_without_copying_markdown(tmp_path: Path) -> None:
    tools = registry(tmp_path, ML_GOAL)
    summary = compose(tools, ["py4e", "ml-specialization"])
    assert summary.startswith("Draft draft-1 is composed (not saved yet): 13 weeks, 2026-12-07 (Monday)")
    assert "[py4e]" in summary and "[ml-specialization]" in summary
    assert 'Next: save_draft(draft_id="draft-1"' in summary
    assert len(summary) < 1500  # a summary to reason about, not the plan
    saved = tools.call("save_draft", {"draft_id": "draft-1", "filename": "ml.md"})
    assert saved.text.startswith("Saved plan to ")
    assert saved.data["path"] == str((tmp_path / "plans" / "ml.md").resolve())  # what the done rule reads
    plan = parse_plan((tmp_path / "plans" / "ml.md").read_text(encoding="utf-8"))
    assert plan.start == date(2026, 12, 7) and len(plan.weeks) == 13 and len(plan.phases) >= 3
    assert plan.hours_per_week == 8 and {"py4e", "ml-specialization"} <= set(plan.resources)
    assert all(phase.self_check for phase in plan.phases)
    assert plan.lang == "zh"


def test_an_unknown_draft_names_the_drafts_there_are(tmp_path: Path) -> None:
    tools = registry(tmp_path, ML_GOAL)
    with pytest.raises(ToolError, match="call compose_plan first"):
        tools.call("save_draft", {"draft_id": "draft-7"})
    compose(tools, ["ml-specialization"])
    with pytest.raises(ToolError, match="its drafts: draft-1"):
        tools.call("save_draft", {"draft_id": "draft-7"})
    assert not (tmp_path / "plans").exists()


def test_the_goals_weeks_and_hours_win_and_the_summary_says_so(tmp_path: Path) -> None:
    tools = registry(tmp_path, "零基础3个月学机器学习，每周6小时")
    summary = compose(tools, ["py4e", "ml-specialization"], weeks=9, hours=4)
    assert "13 weeks" in summary and "6 h/week" in summary
    assert "Changed to follow the goal: weeks: you gave 9, the goal asks for 13" in summary
    assert "hours_per_week: you gave 4, the goal says 6" in summary


def test_a_past_start_is_refused_with_todays_date_and_a_corrected_call(tmp_path: Path) -> None:
    tools = registry(tmp_path, ML_GOAL)
    with pytest.raises(ToolError) as refused:
        compose(tools, ["ml-specialization"], start="2024-09-02")
    text = str(refused.value)
    assert "today is 2026-11-30 (Monday)" in text
    assert 'Corrected call: compose_plan(course_ids=["ml-specialization"], weeks=13, hours_per_week=8, ' \
           'start_date="2026-11-30")' in text


def test_a_placeholder_start_is_refused_with_todays_date(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="Today is 2026-11-30"):
        compose(registry(tmp_path, ML_GOAL), ["ml-specialization"], start="<YYYY-MM-DD>")


def test_known_skill_and_missing_topic_each_come_with_the_fix(tmp_path: Path) -> None:
    tools = registry(tmp_path, "I know some Python. Help me learn data analysis in 12 weeks, 6 hours a week.")
    with pytest.raises(ToolError) as refused:
        compose(tools, ["py4e"], weeks=12, hours=6)
    text = str(refused.value)
    assert "[py4e] Programming for Everybody" in text and "already knows" in text and "leave it out" in text
    assert "no chosen course covers Data analysis" in text and "[ms-data-science-for-beginners]" in text
    assert 'Corrected call: compose_plan(course_ids=["ms-data-science-for-beginners"], weeks=12' in text


def test_the_example_ids_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match=r"\[ex-rust-1\] is not a catalog course id"):
        compose(registry(tmp_path, ML_GOAL), ["ex-rust-1"])


def test_save_plan_refusal_brings_the_template_and_the_easier_way(tmp_path: Path) -> None:
    tools = registry(tmp_path, "零基础3个月学机器学习，每周6小时")
    with pytest.raises(ToolError) as refused:
        tools.call("save_plan", {"content": "# 计划\n\n## 阶段一\n...", "filename": "ml.md"})
    text = str(refused.value)
    assert 'compose_plan(course_ids=[ids from search_courses], weeks=13, hours_per_week=6' in text
    assert "### 第 1 周：<YYYY-MM-DD>" in text  # the template arrives when the model writes Markdown itself


# --- end to end: small models through the scripted server --------------------------------------------------


@pytest.fixture
def cli(scripted_server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.chdir(tmp_path)

    def run(goal: str, *args: str) -> tuple[int, str]:
        code = run_cli([goal, *args, "--model", "small", "--base-url", scripted_server.base_url,
                        "--today", TODAY.isoformat()])
        captured = capsys.readouterr()
        return code, captured.out + captured.err

    return run


def tool_results(body: dict) -> list[str]:
    return [message["content"] for message in body["messages"] if message["role"] == "tool"]


def test_a_small_model_that_skips_the_date_and_proposes_2024_gets_a_plan_in_four_calls(
    cli, scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    ids = ["py4e", "ml-specialization"]
    scripted_server.add(
        reply(None, [call("search_courses", "c1", topic="机器学习", level="beginner")]),
        reply(None, [call("compose_plan", "c2", course_ids=ids, weeks=9, hours_per_week=4, start_date="2024-09-02")]),
        reply(None, [call("compose_plan", "c3", course_ids=ids, weeks=13, hours_per_week=4, start_date="2026-11-30")]),
        reply(None, [call("save_draft", "c4", draft_id="draft-1", filename="ml.md")]),
        reply("计划已保存到 plans/ml.md。"),
    )
    code, out = cli(ML_GOAL)
    assert code == EXIT_OK, out
    bodies = scripted_server.bodies
    refusal = tool_results(bodies[2])[-1]
    assert "2024-09-02 is in the past: today is 2026-11-30 (Monday)" in refusal
    assert "weeks: you gave 9, the goal asks for 13" in refusal
    saved = [i for i, body in enumerate(bodies) if any(r.startswith("Saved plan") for r in tool_results(body))]
    assert saved[0] == 4  # the fourth model call saved it: the fifth request carries the result
    plan = parse_plan((tmp_path / "plans" / "ml.md").read_text(encoding="utf-8"))
    assert plan.start == TODAY and len(plan.weeks) == 13 and plan.end == date(2027, 2, 28)


def test_a_model_that_writes_a_stub_is_refused_and_recovers_through_compose(
    cli, scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    stub = "# 8 周 SQL 入门计划\n\n## 阶段一：基础查询（2031-04-07 – 2031-04-27）\n..."
    action = "Thought: 计划写好了，保存。\nAction: save_plan\nAction Input: " + json.dumps(
        {"content": stub, "filename": "sql.md"}, ensure_ascii=False
    )
    scripted_server.add(
        reply("Thought: 先查日期。\nAction: get_current_date()"),
        reply(action),
        reply('Thought: 改用 compose_plan。\nAction: search_courses(topic="SQL", level="beginner")'),
        reply('Thought: 有课程了。\nAction: compose_plan(course_ids=["cs50-sql"], weeks=9, hours_per_week=5, '
              'start_date="2026-11-30")'),
        reply('Thought: 保存草稿。\nAction: save_draft(draft_id="draft-1", filename="sql.md")'),
        reply("Thought: 已保存。\nFinal Answer: 计划已保存到 plans/sql.md。"),
    )
    code, out = cli("两个月系统学习SQL和数据库", "--protocol", "text")
    assert code == EXIT_OK, out
    refusal = scripted_server.bodies[2]["messages"][-1]["content"]
    assert refusal.startswith("Observation: Error: plan rejected, nothing was saved.")
    assert "Easier: let the code write the plan. Call compose_plan(" in refusal
    composed = scripted_server.bodies[4]["messages"][-1]["content"]
    assert "Draft draft-1 is composed" in composed
    plan = parse_plan((tmp_path / "plans" / "sql.md").read_text(encoding="utf-8"))
    assert plan.start == TODAY and plan.resources == ["cs50-sql"]


def test_a_composed_plan_says_what_it_assumes_with_the_values_chosen(tmp_path: Path) -> None:
    tools = registry(tmp_path, "I know some Python. Help me learn data analysis in 12 weeks.")
    compose(tools, ["ms-data-science-for-beginners"], weeks=12, hours=5, start="2026-11-30")
    tools.call("save_draft", {"draft_id": "draft-1", "filename": "ds.md"})
    plan = parse_plan((tmp_path / "plans" / "ds.md").read_text(encoding="utf-8"))
    assert "The goal does not say how much time you have; the plan assumes 5 hours a week." in plan.assumptions
    assert any(item.startswith("The goal does not give a start date; the plan starts today (2026-11-30).")
               for item in plan.assumptions)
    assert any("You already know Python" in item for item in plan.assumptions)


def test_a_reply_copying_the_servers_html_escapes_is_read(tmp_path: Path) -> None:
    """llama-cpp-python's chatml-function-calling template HTML-escapes the prompt; the 0.5B model copied it."""
    from studyplan.core.embedded_calls import extract_embedded_calls
    from studyplan.core.react_parser import parse_react

    reply = ("Thought: the courses for the learner&amp;#39;s level.\n"
             "Action: search_courses\n"
             "Action Input: {&#34;topic&#34;: &#34;python&#34;, &#34;level&#34;: &#34;beginner&#34;}")
    parsed = parse_react(reply, ["search_courses"])
    assert parsed.action is not None and parsed.action.kwargs == {"topic": "python", "level": "beginner"}
    embedded = "&lt;tool_call&gt;{&#34;name&#34;: &#34;get_current_date&#34;, &#34;arguments&#34;: {}}"
    embedded += "&lt;/tool_call&gt;"
    assert extract_embedded_calls(embedded) == [("get_current_date", {})]
