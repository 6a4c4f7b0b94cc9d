"""The text-protocol parser against what real (mostly small, local) models write."""

from __future__ import annotations

import doctest
import json
import time
from dataclasses import dataclass, field
from typing import Any

import pytest
import react_fuzz
from hypothesis import given, settings
from hypothesis import strategies as st

from studyplan.core import react_parser as react_text
from studyplan.core.prompts import load_text as load_protocol_text
from studyplan.core.react_parser import ParsedReply, extract_embedded_calls, parse_react

TOOLS = ["get_current_date", "search_courses", "plan_calendar", "save_plan"]

PLAN_MARKDOWN = (
    "# 机器学习 12 周计划\n\n"
    "## 阶段一：Python 基础（2025-03-03 – 2025-03-23）\n"
    '- 第 1 周：完成 "Python for Everybody" (第 1-3 章), 写一个小脚本\n'
    "Thought: 这一行是计划内容，不是标签\n"
    "Observation: 也是内容\n"
    "- 自检：能否解释 list/dict 的区别？\n"
)


@dataclass(frozen=True)
class Expect:
    kind: str  # "action", "final" or "error"
    name: str | None = None
    args: list[Any] = field(default_factory=list)
    kwargs: dict[str, Any] = field(default_factory=dict)
    answer: str | None = None
    error_mentions: str | None = None
    thought: str | None = None
    dropped_mentions: tuple[str, ...] = ()


def act(
    name: str, *args: Any, thought: str | None = None, dropped: tuple[str, ...] = (), **kwargs: Any
) -> Expect:
    return Expect("action", name, list(args), kwargs, thought=thought, dropped_mentions=dropped)


def final(answer: str, thought: str | None = None, dropped: tuple[str, ...] = ()) -> Expect:
    return Expect("final", answer=answer, thought=thought, dropped_mentions=dropped)


def error(mentions: str) -> Expect:
    return Expect("error", error_mentions=mentions)


TABLE: list[tuple[str, str, Expect]] = [
    # --- well-formed ---
    (
        "canonical",
        "Thought: 需要今天的日期\nAction: get_current_date()",
        act("get_current_date", thought="需要今天的日期"),
    ),
    ("no parentheses", "Thought: date first\nAction: get_current_date", act("get_current_date")),
    (
        "keyword args",
        'Action: search_courses(topic="机器学习", level="beginner")',
        act("search_courses", topic="机器学习", level="beginner"),
    ),
    ("positional bare", "Action: search_courses(机器学习, 初级)", act("search_courses", "机器学习", "初级")),
    (
        "number argument",
        'Action: plan_calendar(start_date="2025-03-03", weeks=12)',
        act("plan_calendar", start_date="2025-03-03", weeks=12),
    ),
    (
        "action input json",
        'Thought: search\nAction: search_courses\nAction Input: {"topic": "python", "level": "beginner"}',
        act("search_courses", topic="python", level="beginner", thought="search"),
    ),
    (
        "final answer",
        "Thought: 计划已保存\nFinal Answer: 计划在 plans/ml.md",
        final("计划在 plans/ml.md", "计划已保存"),
    ),
    # --- the article's cases ---
    (
        "text before Action on the same line",
        "我先查一下北京的天气Action: get_city_weather(北京, 明天)",
        act("get_city_weather", "北京", "明天", thought="我先查一下北京的天气"),
    ),
    (
        "article keyword style",
        "Action: get_city_weather(city=北京, date=明天)",
        act("get_city_weather", city="北京", date="明天"),
    ),
    ("article finish action", "Thought: 北京最好\nAction: finish(最终答案：北京)", final("北京", "北京最好")),
    ("finish with quoted answer", 'Action: finish("北京, 因为多云")', final("北京, 因为多云")),
    (
        "finish with action input",
        'Action: finish\nAction Input: {"answer": "计划已保存"}',
        final("计划已保存"),
    ),
    ("finish with several words", "Action: finish(北京, 上海)", final("北京, 上海")),
    # --- quotes ---
    (
        "chinese double quotes",
        "Action: search_courses(topic=“机器学习”, level=“初级”)",
        act("search_courses", topic="机器学习", level="初级"),
    ),
    ("chinese single quotes", "Action: search_courses(‘深度学习’)", act("search_courses", "深度学习")),
    (
        "corner brackets",
        "Action: search_courses(「机器学习」, 「入门」)",
        act("search_courses", "机器学习", "入门"),
    ),
    (
        "single quotes",
        "Action: plan_calendar(start_date='2025-03-03', weeks='12')",
        act("plan_calendar", start_date="2025-03-03", weeks="12"),
    ),
    (
        "parentheses and commas inside quotes",
        'Action: search_courses(topic="C (programming), intro", level="beginner")',
        act("search_courses", topic="C (programming), intro", level="beginner"),
    ),
    ("colon keyword", 'Action: search_courses(topic: "sql")', act("search_courses", topic="sql")),
    ("full-width comma", "Action: search_courses(机器学习，初级)", act("search_courses", "机器学习", "初级")),
    (
        "json object in parentheses",
        'Action: search_courses({"topic": "sql"})',
        act("search_courses", topic="sql"),
    ),
    (
        "literals",
        "Action: save_plan(flags=[1, 2], draft=true, note=null, ratio=0.5, code=007)",
        act("save_plan", flags=[1, 2], draft=True, note=None, ratio=0.5, code="007"),
    ),
    # --- Action Input repairs (json_repair) ---
    (
        "code fence and trailing comma",
        'Action: search_courses\nAction Input: ```json\n{"topic": "python", "level": "beginner",}\n```',
        act("search_courses", topic="python", level="beginner"),
    ),
    (
        "single-quoted json",
        "Action: search_courses\nAction Input: {'topic': 'sql'}",
        act("search_courses", topic="sql"),
    ),
    (
        "comment and trailing prose",
        'Action: search_courses\nAction Input: {"topic": "sql"} // the broad topic\nThen I will pick one.',
        act("search_courses", topic="sql"),
    ),
    (
        "key=value input",
        "Action: search_courses\nAction Input: topic=机器学习, level=初级",
        act("search_courses", topic="机器学习", level="初级"),
    ),
    (
        "plain input",
        "Action: search_courses\nAction Input: machine learning",
        act("search_courses", "machine learning"),
    ),
    ("unrepairable json", "Action: save_plan\nAction Input: {garbage", error("not valid JSON")),
    ("truncated json", "Action: save_plan\nAction Input: {", error("not valid JSON")),
    (
        "long markdown in action input",
        "Thought: 写好了\nAction: save_plan\nAction Input: "
        + json.dumps({"content": PLAN_MARKDOWN, "filename": "ml-12w.md"}, ensure_ascii=False),
        act("save_plan", content=PLAN_MARKDOWN, filename="ml-12w.md", thought="写好了"),
    ),
    (
        "long markdown pretty-printed then an invented observation",
        "Action: save_plan\nAction Input: "
        + json.dumps({"content": PLAN_MARKDOWN, "filename": "ml-12w.md"}, ensure_ascii=False, indent=2)
        + "\nObservation: Saved plan to plans/ml-12w.md",
        act("save_plan", content=PLAN_MARKDOWN, filename="ml-12w.md", dropped=("Observation",)),
    ),
    (
        "long markdown in triple quotes",
        f'Action: save_plan(content="""{PLAN_MARKDOWN}""", filename="ml-12w.md")',
        act("save_plan", content=PLAN_MARKDOWN, filename="ml-12w.md"),
    ),
    # --- descriptions and decorated names ---
    (
        "description then input",
        'Action: add (add two numbers)\nAction Input: {"a": 1, "b": 2}',
        act("add", a=1, b=2),
    ),
    (
        "description without input",
        "Action: get_current_date (no input needed)",
        act("get_current_date", "no input needed"),
    ),
    (
        "name followed by 'tool'",
        'Action: search_courses tool\nAction Input: {"topic": "sql"}',
        act("search_courses", topic="sql"),
    ),
    (
        "backticks",
        'Action: `search_courses`\nAction Input: {"topic": "sql"}',
        act("search_courses", topic="sql"),
    ),
    ("backticked call", 'Action: `search_courses(topic="sql")`', act("search_courses", topic="sql")),
    (
        "words before the name",
        "Action: 调用函数 search_courses(topic=python)",
        act("search_courses", topic="python"),
    ),
    ("other letter case", "Action: Search_Courses(python)", act("search_courses", "python")),
    ("unknown tool still an action", "Action: book_flight(CA1234)", act("book_flight", "CA1234")),
    (
        "name with colon and json",
        'Action: search_courses: {"topic": "sql"}',
        act("search_courses", topic="sql"),
    ),
    (
        "json action object",
        'Action: {"action": "search_courses", "action_input": {"topic": "sql"}}',
        act("search_courses", topic="sql"),
    ),
    (
        "fenced json action",
        'Action:\n```json\n{"name": "search_courses", "arguments": {"topic": "python"}}\n```',
        act("search_courses", topic="python"),
    ),
    (
        "unclosed parenthesis",
        'Action: search_courses(topic="python", level="beginner"',
        act("search_courses", topic="python", level="beginner"),
    ),
    # --- label variants ---
    (
        "lower case spaced",
        "thought: x\naction : search_courses(sql)",
        act("search_courses", "sql", thought="x"),
    ),
    (
        "markdown bold",
        '**Thought:** 查课程\n**Action:** search_courses(topic="sql")',
        act("search_courses", topic="sql", thought="查课程"),
    ),
    ("bold outside colon", '**Action**: search_courses(topic="sql")', act("search_courses", topic="sql")),
    ("full-width colon", 'Action：search_courses(topic="sql")', act("search_courses", topic="sql")),
    (
        "numbered labels",
        "Thought 1: 先查日期\nAction 1: get_current_date()",
        act("get_current_date", thought="先查日期"),
    ),
    (
        "chinese labels",
        "思考：需要日期\n行动：get_current_date()",
        act("get_current_date", thought="需要日期"),
    ),
    (
        "chinese action input",
        '思考：搜索\n行动：search_courses\n行动输入：{"topic": "机器学习"}',
        act("search_courses", topic="机器学习"),
    ),
    ("chinese final answer", "思考：完成了\n最终答案：计划已保存", final("计划已保存", "完成了")),
    (
        "action_input underscore",
        'Action: search_courses\nAction_Input: {"topic": "sql"}',
        act("search_courses", topic="sql"),
    ),
    # --- invented observations, several actions, stop fragments ---
    (
        "invented observation and continuation",
        "Thought: 查日期\nAction: get_current_date()\nObservation: 2025-01-01\n"
        "Thought: 好\nFinal Answer: 完成",
        act("get_current_date", dropped=("invented Observation",)),
    ),
    (
        "invented observation on the same line",
        "Action: get_current_date() Observation: 2025-01-01",
        act("get_current_date", dropped=("invented Observation",)),
    ),
    (
        "three actions",
        "Action: get_current_date()\nAction: search_courses(python)\nAction: plan_calendar(2025-01-06, 4)",
        act("get_current_date", dropped=("2 extra actions",)),
    ),
    (
        "stop fragment Observ",
        "Thought: t\nAction: get_current_date()\nObserv",
        act("get_current_date", thought="t"),
    ),
    ("stop fragment Obs", 'Action: search_courses(topic="sql")\n\nObs', act("search_courses", topic="sql")),
    (
        "bare Observation label at the end",
        "Action: get_current_date()\nObservation:",
        act("get_current_date"),
    ),
    (
        "echoed observation at the start",
        "Observation: 2025-03-03\nThought: 现在搜索\nAction: search_courses(python)",
        act("search_courses", "python", thought="现在搜索", dropped=("start of the reply",)),
    ),
    # --- final answer vs action ---
    (
        "final answer before an action",
        "Thought: 够了\nFinal Answer: 北京\nAction: search_courses(x)",
        final("北京", "够了", dropped=("after the Final Answer",)),
    ),
    (
        "action then final answer",
        "Action: search_courses(python)\nFinal Answer: 我找到了课程",
        act("search_courses", "python", dropped=("Final Answer after the action",)),
    ),
    ("Action: None then final", "Thought: done\nAction: None\nFinal Answer: 42", final("42", "done")),
    ("Action: Final Answer + input", "Action: Final Answer\nAction Input: 北京", final("北京")),
    ("inline Final Answer after Action", "Action: Final Answer: 北京", final("北京")),
    (
        "multi-line final answer",
        "Final Answer: 第一阶段：Python\n第二阶段：数学",
        final("第一阶段：Python\n第二阶段：数学"),
    ),
    (
        "reply wrapped in a code block",
        '```\nThought: 查课程\nAction: search_courses(topic="sql")\n```',
        act("search_courses", topic="sql", thought="查课程"),
    ),
    (
        "action input as colon pairs",
        'Action: search_courses\nAction Input: topic: "machine learning", level: "beginner"',
        act("search_courses", topic="machine learning", level="beginner"),
    ),
    (
        "lower-case 'action:' in a thought is prose",
        "Thought: the next action: search the catalog.\nAction: search_courses(sql)",
        act("search_courses", "sql", thought="the next action: search the catalog."),
    ),
    (
        "parentheses ignored when an Action Input follows",
        'Action: search_courses(topic="机器学习")\nAction Input: {"topic": "machine learning"}',
        act("search_courses", topic="machine learning"),
    ),
    # --- think blocks, unlabeled calls ---
    (
        "think block ignored",
        "<think>Action: plan_calendar(1, 2)</think>\nThought: 先查日期\nAction: get_current_date()",
        act("get_current_date", thought="先查日期"),
    ),
    (
        "tool_call block in text mode",
        '<tool_call>{"name": "search_courses", "arguments": {"topic": "sql"}}</tool_call>',
        act("search_courses", topic="sql"),
    ),
    (
        "bare known call without label",
        'Thought: 查课程\nsearch_courses(topic="python")',
        act("search_courses", topic="python", thought="查课程"),
    ),
    # --- nothing usable ---
    ("empty", "", error("empty")),
    ("whitespace", "  \n ", error("empty")),
    ("prose only", "I think the answer is 42.", error("no Action and no Final Answer")),
    ("thought only", "Thought: I should search the courses next.", error("no Action and no Final Answer")),
    ("empty action", "Thought: hmm\nAction:", error("named no tool")),
    ("action input without action", 'Action Input: {"topic": "x"}', error("named no tool")),
    ("empty final answer", "Final Answer:", error("Final Answer was empty")),
    ("prose naming a tool is no call", "I could use search_courses to find courses.", error("no Action")),
]


@pytest.mark.parametrize(("reply", "expected"), [(r, e) for _, r, e in TABLE], ids=[i for i, _, _ in TABLE])
def test_table(reply: str, expected: Expect) -> None:
    parsed = parse_react(reply, TOOLS)
    if expected.kind == "action":
        assert parsed.action is not None, parsed
        assert (parsed.action.name, parsed.action.args, parsed.action.kwargs) == (
            expected.name,
            expected.args,
            expected.kwargs,
        )
    elif expected.kind == "final":
        assert parsed.final_answer == expected.answer, parsed
    else:
        assert parsed.error is not None and expected.error_mentions in parsed.error, parsed
    if expected.thought is not None:
        assert parsed.thought == expected.thought
    for mention in expected.dropped_mentions:
        assert any(mention in note for note in parsed.dropped), parsed.dropped
    if not expected.dropped_mentions:
        assert parsed.dropped == []
    assert_exactly_one(parsed)


def test_table_is_large_enough() -> None:
    assert len(TABLE) >= 40


def test_docstring_examples_hold() -> None:
    results = doctest.testmod(react_text)
    assert results.failed == 0 and results.attempted >= 5


def assert_exactly_one(parsed: ParsedReply) -> None:
    decided = [parsed.action is not None, parsed.final_answer is not None, parsed.error is not None]
    assert decided.count(True) == 1, parsed


def test_error_is_a_format_reminder() -> None:
    reminder = parse_react("Sure! Let me help you with that.").error
    assert reminder is not None
    assert "Thought:" in reminder and "Action:" in reminder and "Final Answer:" in reminder


def test_raw_keeps_what_the_model_wrote() -> None:
    parsed = parse_react('Action: search_courses\nAction Input: {"topic": "sql",}')
    assert parsed.action is not None
    assert parsed.action.raw == 'Action: search_courses\nAction Input: {"topic": "sql",}'


def test_known_names_preferred_only_when_given() -> None:
    reply = 'Action: use the search_courses tool\nAction Input: {"topic": "sql"}'
    with_names = parse_react(reply, TOOLS)
    without_names = parse_react(reply)
    assert with_names.action is not None and with_names.action.name == "search_courses"
    assert without_names.action is not None and without_names.action.name == "use"


def test_bare_call_needs_known_tool_names() -> None:
    assert parse_react('search_courses(topic="python")').error is not None


def test_text_protocol_prompt_has_tools_placeholder_and_rules() -> None:
    prompt = load_protocol_text("text_protocol.md")
    assert prompt.count("{tools}") == 1
    for needle in (
        "Thought:",
        "Action:",
        "Action Input:",
        "Observation:",
        "Final Answer:",
        "One Action per reply",
    ):
        assert needle in prompt
    rendered = prompt.replace("{tools}", "- get_current_date()")
    assert "- get_current_date()" in rendered


# --- property tests: never raises, always exactly one decision ---

FRAGMENTS = [
    "Action:",
    "Action Input:",
    "Thought:",
    "Final Answer:",
    "Observation:",
    "Obs",
    "行动：",
    "最终答案：",
    "(",
    ")",
    '"',
    "'",
    "“",
    "」",
    "{",
    "}",
    "[",
    "]",
    ",",
    "=",
    ":",
    "\n",
    " ",
    "```",
    "```json\n",
    "**",
    "<tool_call>",
    "</tool_call>",
    "<think>",
    "</think>",
    "\\",
    "finish",
    "None",
    "search_courses",
    "x",
    "42",
]


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_never_raises_on_arbitrary_text(text: str) -> None:
    assert_exactly_one(parse_react(text))


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join), st.booleans())
def test_never_raises_on_protocol_fragments(text: str, with_names: bool) -> None:
    assert_exactly_one(parse_react(text, TOOLS if with_names else None))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join))
def test_embedded_extraction_never_raises(text: str) -> None:
    for name, arguments in extract_embedded_calls(text):
        assert isinstance(name, str) and isinstance(arguments, dict)


# --- calls embedded in native-tools replies ---

EMBEDDED: list[tuple[str, str, list[tuple[str, dict[str, Any]]]]] = [
    (
        "hermes tool_call",
        '<tool_call>\n{"name": "search_courses", "arguments": {"topic": "sql"}}\n</tool_call>',
        [("search_courses", {"topic": "sql"})],
    ),
    (
        "several tool_calls, arguments as a JSON string",
        '<tool_call>{"name": "get_current_date", "arguments": {}}</tool_call>\n'
        '<tool_call>{"name": "search_courses", "arguments": "{\\"topic\\": \\"python\\"}"}</tool_call>',
        [("get_current_date", {}), ("search_courses", {"topic": "python"})],
    ),
    (
        "unclosed tool_call",
        '<tool_call>{"name": "search_courses", "arguments": {"topic": "sql"}}',
        [("search_courses", {"topic": "sql"})],
    ),
    (
        "fenced json after prose",
        '好的，我来搜索。\n```json\n{"name": "search_courses", "arguments": {"topic": "sql"}}\n```',
        [("search_courses", {"topic": "sql"})],
    ),
    (
        "tool/args keys",
        '```json\n{"tool": "search_courses", "args": {"topic": "sql"}}\n```',
        [("search_courses", {"topic": "sql"})],
    ),
    (
        "function wrapper",
        '```\n{"function": {"name": "search_courses", "arguments": "{\\"topic\\": \\"sql\\"}"}}\n```',
        [("search_courses", {"topic": "sql"})],
    ),
    (
        "to=functions harmony style",
        'commentary to=functions.search_courses <|constrain|>json<|message|>{"topic": "sql"}<|call|>',
        [("search_courses", {"topic": "sql"})],
    ),
    ("functions.name:{json}", "functions.get_current_date:{}", [("get_current_date", {})]),
    (
        "whole reply is a json call",
        '{"name": "search_courses", "arguments": {"topic": "sql"}}',
        [("search_courses", {"topic": "sql"})],
    ),
    (
        "json list of calls",
        '[{"name": "get_current_date", "arguments": {}},'
        ' {"name": "search_courses", "parameters": {"topic": "x"}}]',
        [("get_current_date", {}), ("search_courses", {"topic": "x"})],
    ),
    (
        "llama function tag",
        '<function=search_courses>{"topic": "sql"}</function>',
        [("search_courses", {"topic": "sql"})],
    ),
    ("plain prose", "计划已保存到 plans/ml.md，共 12 周。", []),
    ("prose mentioning functions.", "你可以用 functions.search_courses 搜索课程。", []),
    ("fenced json that is not a call", 'Example:\n```json\n{"name": "Alice", "age": 3}\n```', []),
    ("markdown plan with code", "# 计划\n\n```python\nprint('hello')\n```\n", []),
    ("empty", "", []),
]


@pytest.mark.parametrize(
    ("content", "expected"), [(c, e) for _, c, e in EMBEDDED], ids=[i for i, _, _ in EMBEDDED]
)
def test_extract_embedded_calls(content: str, expected: list[tuple[str, dict[str, Any]]]) -> None:
    assert extract_embedded_calls(content) == expected


# --- time: linear in the reply's length ---
# Generous bounds (the machine is shared): the old parser took 18.7 s on the first case. The real figures come
# from benchmarks/parser_fuzz.py.

PARSE_BOUND_SECONDS = 2.0
HOSTILE_100KB = {
    "unclosed calls": "Action: f(a=",
    "think opened": "<think>",
    "unclosed functions object": "functions.a{",
    "dotted name": "a.",
    "unclosed quotes": "“",
    "apostrophes": "it's ",
    "commas in a call": "Action: f(" + "a," * 50,
    "broken json items": "{a,",
    "spaces in a fence": "```\n" + " " * 50 + "x",
}


def _timed_parse(text: str) -> float:
    started = time.perf_counter()
    assert_exactly_one(parse_react(text, TOOLS))
    extract_embedded_calls(text)
    return time.perf_counter() - started


@pytest.mark.parametrize("fragment", HOSTILE_100KB.values(), ids=HOSTILE_100KB.keys())
def test_a_100kb_hostile_reply_parses_within_the_bound(fragment: str) -> None:
    text = (fragment * (100_000 // len(fragment) + 1))[:100_000]
    assert _timed_parse(text) < PARSE_BOUND_SECONDS


@settings(max_examples=40, deadline=None, derandomize=True)
@given(react_fuzz.pieces)
def test_fuzzed_hostile_replies_parse_within_the_bound(recipe: list[tuple[str, int]]) -> None:
    assert _timed_parse(react_fuzz.build(recipe, 30_000)) < PARSE_BOUND_SECONDS


def test_a_call_past_the_scan_budget_still_runs_with_the_rest_uncut() -> None:
    # 3,000 bracketed pairs (6,000 steps): finding the call's end spends the reply's 4,000 scan steps, so the
    # bracket counts as unclosed and the argument list is not cut: the action runs, its first piece holds all.
    brackets = "[1]" * 3000
    parsed = parse_react(f"Action: search_courses(topic=python, level={brackets}, extra=1)", TOOLS)
    assert parsed.action is not None and parsed.action.name == "search_courses"
    assert parsed.action.kwargs == {"topic": f"python, level={brackets}, extra=1"}


def test_closed_quoted_strings_are_skipped_whole_and_their_commas_kept() -> None:
    # 20,000 backtick pairs are skipped in one compiled match: the call's two arguments come out intact.
    ticks = "``" * 20_000
    parsed = parse_react(f'Action: search_courses("a, b", {ticks}x)', TOOLS)
    assert parsed.action is not None
    assert parsed.action.args == ["a, b", ticks + "x"]
