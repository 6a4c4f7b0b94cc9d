"""What a user sees in the terminal for each step event."""

from __future__ import annotations

import re
import time
from io import StringIO
from pathlib import Path

import pytest
from rich.console import Console

from studyplan.core.events import (
    Action,
    FinalAnswer,
    ModelCallFinished,
    ModelCallStarted,
    Notice,
    Observation,
    RunFinished,
    RunStarted,
    Thought,
    Usage,
)
from studyplan.ui.console import make_console
from studyplan.ui.errors import render_error
from studyplan.ui.steps import Renderer

PLAN_MARKDOWN = "\n".join(
    ["# 机器学习三个月计划", "", "## 第1周：Python快速入门", *[f"- item {n}" for n in range(40)]]
)


def make_test_console(**options: object) -> tuple[Console, StringIO]:
    buffer = StringIO()
    return Console(file=buffer, width=100, **options), buffer  # type: ignore[arg-type]


def render(*events: object, quiet: bool = False, trace_path: Path | None = None) -> str:
    console, buffer = make_test_console()
    renderer = Renderer(console, quiet=quiet, trace_path=trace_path)
    for event in events:
        renderer.handle(event)  # type: ignore[arg-type]
    renderer.close()
    return buffer.getvalue()


def saved_run(**changes: object) -> RunFinished:
    fields: dict[str, object] = {
        "status": "saved",
        "steps": 5,
        "seconds": 12.34,
        "usage": Usage(4210, 980),
        "plan_path": Path("plans/ml-3-months.md"),
        "summary": "12 周计划：Python快速入门 → 机器学习导论。",
    }
    fields.update(changes)
    return RunFinished(**fields)  # type: ignore[arg-type]


def full_run() -> list[object]:
    return [
        RunStarted(goal="零基础3个月学机器学习", model="gpt-4o-mini", protocol="tools", offline=False),
        ModelCallStarted(step=1, messages=[{"role": "user", "content": "零基础3个月学机器学习"}]),
        ModelCallFinished(step=1, seconds=1.23, usage=Usage(812, 64), reply={"content": "..."}),
        Thought(step=1, text="先确认今天的日期。"),
        Action(step=1, call_id="c1", tool="get_current_date", arguments={}),
        Observation(step=1, call_id="c1", tool="get_current_date", text="2025-06-10", ok=True, seconds=0.003),
        ModelCallStarted(step=2, messages=[]),
        ModelCallFinished(step=2, seconds=0.8, usage=None, reply={}),
        Action(step=2, call_id="c2", tool="search_courses",
               arguments={"query": "机器学习", "level": "beginner"}),
        Action(step=2, call_id="c3", tool="search_courses", arguments={"query": "Python"}),
        Observation(step=2, call_id="c2", tool="search_courses", text='[{"name": "机器学习导论"}]', ok=True,
                    seconds=0.004),
        Observation(step=2, call_id="c3", tool="search_courses", text="no course matches 'Python'", ok=False,
                    seconds=0.002),
        Notice(text="The endpoint does not support tools; switching to the text protocol.", level="warning"),
        FinalAnswer(step=3, text="计划已保存。"),
        saved_run(),
    ]


def test_a_full_run_shows_every_step_with_titles_tools_arguments_and_timing() -> None:
    output = render(*full_run())

    assert "Goal: 零基础3个月学机器学习" in output
    assert "model: gpt-4o-mini" in output and "protocol: tools" in output
    assert "Step 1 · model 1.2 s · 812 → 64 tokens" in output
    assert "Step 2 · model 800 ms" in output
    assert "Thought · step 1" in output and "先确认今天的日期。" in output
    assert "Action · get_current_date" in output
    assert "Observation · get_current_date · 3 ms" in output and "2025-06-10" in output
    assert output.count("Action · search_courses") == 2
    assert '"query": "机器学习"' in output and '"level": "beginner"' in output
    assert "Observation · search_courses · 4 ms" in output
    assert "Observation · search_courses · failed · 2 ms" in output
    assert "Warning: The endpoint does not support tools" in output
    assert "Final answer" in output and "计划已保存。" in output
    assert "✓ Plan saved: plans/ml-3-months.md" in output
    # The summary is the final answer: shown once, in its panel, not repeated under the result line.
    assert "12 周计划：Python快速入门 → 机器学习导论。" not in output.split("Plan saved")[1]
    assert "5 steps · 12.3 s · 4,210 → 980 tokens" in output


def test_events_appear_in_the_order_they_happened() -> None:
    output = render(*full_run())
    markers = ["Thought · step 1", "Action · get_current_date", "Observation · get_current_date",
               "Action · search_courses", "failed", "Final answer", "Plan saved"]
    positions = [output.index(marker) for marker in markers]
    assert positions == sorted(positions)


def test_offline_runs_say_so_in_the_header() -> None:
    output = render(RunStarted(goal="学Python", model="offline", protocol="tools", offline=True))
    assert "offline — built-in rule-based planner, no network" in output


def test_model_and_tool_text_is_never_interpreted_as_markup() -> None:
    hostile = "[bold red]x[/] [link=file:///etc/passwd]click[/link] :warning:"
    output = render(
        RunStarted(goal=hostile, model="m", protocol="text", offline=False),
        Thought(step=1, text=hostile),
        Action(step=1, call_id="c", tool="[red]evil[/red]", arguments={"q": hostile}),
        Observation(step=1, call_id="c", tool="[red]evil[/red]", text=hostile, ok=False, seconds=0.1),
        Notice(text=hostile),
        FinalAnswer(step=2, text=hostile),
        saved_run(summary=hostile),
    )
    # goal, thought, argument, observation, notice, final answer: all six verbatim (the summary is not repeated)
    assert output.count("[bold red]x[/]") == 6
    assert output.count("[link=file:///etc/passwd]click[/link]") == 6
    assert output.count(":warning:") == 6
    assert "Action · [red]evil[/red]" in output
    assert "Observation · [red]evil[/red] · failed" in output


def test_markup_is_escaped_on_a_colour_terminal_too() -> None:
    console, buffer = make_test_console(force_terminal=True, color_system="truecolor")
    Renderer(console).handle(Thought(step=1, text="[link=file:///etc/passwd]click[/link]"))
    assert "[link=file:///etc/passwd]click[/link]" in buffer.getvalue()
    assert "\x1b]8;" not in buffer.getvalue()  # no terminal hyperlink was emitted


def test_a_long_markdown_argument_is_shortened_in_the_action_panel() -> None:
    output = render(
        Action(step=4, call_id="c", tool="save_plan",
               arguments={"filename": "ml.md", "content": PLAN_MARKDOWN})
    )
    assert "Action · save_plan" in output
    assert '"filename": "ml.md"' in output
    assert "# 机器学习三个月计划" in output
    assert "item 30" not in output
    assert f"({len(PLAN_MARKDOWN.splitlines()) - 4} more lines)" in output


def test_a_long_single_line_argument_is_cut_by_characters() -> None:
    output = render(Action(step=1, call_id="c", tool="t", arguments={"nested": {"text": "x" * 1000}}))
    assert "(760 more characters)" in output
    assert "x" * 300 not in output


def test_a_long_observation_is_shortened_with_a_pointer_to_the_trace() -> None:
    text = "\n".join(f"course {n}" for n in range(50))
    output = render(
        Observation(step=2, call_id="c", tool="search_courses", text=text, ok=True, seconds=0.01),
        trace_path=Path("plans/ml.trace.jsonl"),
    )
    assert "course 19" in output and "course 20" not in output
    assert "… (30 more lines; full text in plans/ml.trace.jsonl)" in output


def test_an_empty_observation_is_marked_rather_than_left_blank() -> None:
    output = render(Observation(step=1, call_id="c", tool="t", text="", ok=True, seconds=0.0))
    assert "(empty)" in output


def test_info_notices_are_one_line() -> None:
    output = render(Notice(text="No API key: using the offline planner."))
    assert output.strip() == "Note: No API key: using the offline planner."


@pytest.mark.parametrize(
    ("status", "message"),
    [
        ("step_limit", "step limit was reached"),
        ("no_plan", "finished without saving a plan"),
        ("repeated_calls", "kept repeating the same tool call"),
    ],
)
def test_unsaved_runs_end_with_a_warning_not_a_success(status: str, message: str) -> None:
    output = render(saved_run(status=status, plan_path=None, summary=""))
    assert message in output
    assert "Plan saved" not in output
    assert "5 steps" in output


def test_a_run_that_saved_then_hit_the_step_limit_points_to_the_plan() -> None:
    output = render(saved_run(status="step_limit"))
    assert "step limit was reached" in output
    assert "The last saved plan is plans/ml-3-months.md." in output


def test_run_summary_lists_other_files_written_and_the_trace() -> None:
    output = render(
        saved_run(plans_saved=[Path("plans/draft.md"), Path("plans/ml-3-months.md")], usage=Usage()),
        trace_path=Path("plans/ml.trace.jsonl"),
    )
    assert "Also written: plans/draft.md" in output
    assert "Trace: plans/ml.trace.jsonl" in output
    assert "5 steps · 12.3 s" in output and "tokens" not in output  # offline runs have no token count


def test_quiet_mode_prints_only_the_path_and_the_summary() -> None:
    output = render(*full_run(), quiet=True)
    assert output.splitlines() == ["plans/ml-3-months.md", "12 周计划：Python快速入门 → 机器学习导论。"]


def test_quiet_mode_keeps_a_long_path_on_one_line() -> None:
    long_path = Path("plans/" + "very-long-directory-name/" * 6 + "plan.md")
    output = render(saved_run(plan_path=long_path, summary=""), quiet=True)
    assert output == f"{long_path}\n"


def test_quiet_mode_prints_nothing_for_an_unsaved_run() -> None:
    assert render(*full_run()[:-1], saved_run(status="no_plan", plan_path=None), quiet=True) == ""


BOX_DRAWING = re.compile("[\u2500-\u257f]")


def test_output_to_a_file_or_pipe_is_plain_lines_without_escape_codes_or_boxes() -> None:
    output = render(*full_run())
    assert "\x1b[" not in output
    assert not BOX_DRAWING.search(output)
    # Each panel becomes its title on a line and its body indented under it.
    assert "Thought · step 1\n  先确认今天的日期。\n" in output
    assert "Action · search_courses\n  {\n    \"query\": \"机器学习\"," in output


def test_a_terminal_gets_the_panels() -> None:
    console, buffer = make_test_console(force_terminal=True, no_color=True)
    renderer = Renderer(console)
    for event in full_run():
        renderer.handle(event)  # type: ignore[arg-type]
    output = buffer.getvalue()
    assert "╭─ Thought · step 1" in output and "╰" in output
    assert "Observation · search_courses · failed · 2 ms" in output


def test_no_spinner_when_the_console_is_not_a_terminal() -> None:
    console, buffer = make_test_console()
    renderer = Renderer(console)
    renderer.handle(ModelCallStarted(step=2, messages=[]))
    time.sleep(0.2)
    renderer.close()
    assert buffer.getvalue() == ""


def test_the_spinner_counts_while_the_model_thinks_and_stops_at_the_next_event() -> None:
    console, buffer = make_test_console(force_terminal=True)
    renderer = Renderer(console)
    renderer.handle(ModelCallStarted(step=2, messages=[]))
    time.sleep(0.3)  # the loop would block here; Rich's refresh thread keeps animating
    renderer.handle(ModelCallFinished(step=2, seconds=0.3, usage=None, reply={}))
    assert "Step 2 · thinking…" in buffer.getvalue()
    written = len(buffer.getvalue())
    time.sleep(0.3)
    assert len(buffer.getvalue()) == written  # stopped: nothing more is drawn


def test_close_stops_a_running_spinner() -> None:
    console, buffer = make_test_console(force_terminal=True)
    renderer = Renderer(console)
    renderer.handle(ModelCallStarted(step=1, messages=[]))
    renderer.close()
    written = len(buffer.getvalue())
    time.sleep(0.3)
    assert len(buffer.getvalue()) == written


def test_render_error_is_one_plain_line_with_the_message_literal() -> None:
    console, buffer = make_test_console()
    render_error(console, "catalog [courses.json] is not valid JSON")
    assert buffer.getvalue() == "Error: catalog [courses.json] is not valid JSON\n"


def test_make_console_writes_plain_text_to_a_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("FORCE_COLOR", "TTY_COMPATIBLE", "NO_COLOR"):
        monkeypatch.delenv(variable, raising=False)
    console = make_console()
    assert console.file is not None
    buffer = StringIO()
    console.file = buffer  # StringIO is not a terminal, like a pipe
    Renderer(console).handle(FinalAnswer(step=1, text="done"))
    assert "done" in buffer.getvalue()
    assert "\x1b[" not in buffer.getvalue()


def test_make_console_follows_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    assert make_console().no_color
    assert not make_console(no_color=False).no_color
    monkeypatch.delenv("NO_COLOR")
    assert make_console(no_color=True).no_color
    assert make_console(stderr=True).stderr


def test_escape_sequences_in_what_the_model_wrote_never_reach_the_terminal() -> None:
    hostile = "before\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x00 after"
    output = render(
        Thought(step=1, text=hostile),
        Action(step=1, call_id="c", tool="search_courses", arguments={"topic": hostile}),
        Observation(step=1, call_id="c", tool="search_courses", text=hostile, ok=True, seconds=0.1),
        FinalAnswer(step=2, text=hostile),
    )
    assert "\x1b" not in output and "\x00" not in output and "\x07" not in output
    assert output.count("beforered after") == 4  # thought, argument, observation, final answer
