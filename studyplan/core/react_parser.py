"""A tolerant parser for the text ReAct protocol, and for tool calls written into a reply's text.

Small models rarely follow the `Thought:` / `Action:` / `Final Answer:` format to the letter. This module
turns what they actually write into exactly one decision — an action, a final answer, or a short format
error to send back to the model — and never raises.

    >>> reply = parse_react("我先查一下北京的天气Action: get_city_weather(北京, 明天)")
    >>> reply.thought, reply.action.name, reply.action.args
    ('我先查一下北京的天气', 'get_city_weather', ['北京', '明天'])

    >>> reply = parse_react('Thought: enough.\\nFinal Answer: 北京')
    >>> reply.final_answer
    '北京'

    >>> extract_embedded_calls('<tool_call>{"name": "get_current_date", "arguments": {}}</tool_call>')
    [('get_current_date', {})]

Rules the parser applies (each one seen in real replies of small local models):

- Labels are found at the start of a line in any case, with spacing variants, a full-width colon, markdown
  bold (`**Action:**`), a step number (`Action 1:`) or a Chinese label (思考/行动/行动输入/最终答案/观察).
  `Action:`, `Action Input:`, `Final Answer:` and `Observation:` written with a capital are also found in the
  middle of a line ("我先查一下天气Action: ...").
- An action is `Action: tool(arguments)` — keyword or positional, quoted (" ' “” ‘’ 「」 『』) or bare,
  numbers, true/false/null, JSON lists and objects — or `Action: tool` followed by `Action Input:` with JSON
  (code fences, trailing commas, single quotes, comments and trailing prose are repaired by json_repair),
  `key=value` pairs, or plain text (a multi-line plain text is one value). `Action: {"name": ..., "arguments":
  ...}` (or LangChain's `{"action": ..., "action_input": ...}`) works too.
- Parentheses after the tool name are a description, not arguments, when an `Action Input:` follows
  (`Action: add (add two numbers)` + `Action Input: {...}`). Without an Action Input they are the arguments;
  `studyplan.core.arguments.bind_arguments` ignores positional values given to a tool that takes none, so
  `Action: get_current_date (no input needed)` still runs.
- Only the first action runs; later actions are dropped and noted. A `Final Answer:` before any action
  finishes; a final answer after an action is dropped (it cannot know the action's result yet).
  `Action: finish(...)`, `Action: finish` + `Action Input:`, and `Action: Final Answer` mean the final answer.
  `Action: None` (or 无 / N/A) is no action.
- An `Observation:` written by the model ends the reply: it and everything after it are dropped (the model
  invented it). An Observation that opens the reply is an echo of the last one and is skipped. A stop-word
  fragment at the end ("Obs", "Observ") is removed, and so are `<think>...</think>` blocks.
- If tool_names are given, a known name wins over other words (`Action: the search_courses tool`,
  backticks, other letter case), and a line that starts with a known tool call (`search_courses(...)`)
  counts as an action even without a label. A `<tool_call>` block in the text counts as an action too.
- An unknown tool name is still an action: the loop reports unknown tools with the list of real ones.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from studyplan.core.embedded_calls import (
    IDENTIFIER,
    call_from_object,
    clean_name,
    extract_embedded_calls,
    load_json_lenient,
    repair_budget,
    split_loaded,
    strip_fence,
    unescape_entities,
)
from studyplan.core.text_scan import (
    BracketBlocks,
    fence_body,
    matching_close,
    quote_close_at,
    split_think_blocks,
    split_top_level,
)

__all__ = ["ParsedAction", "ParsedReply", "extract_embedded_calls", "parse_react"]


@dataclass(frozen=True)
class ParsedAction:
    """One tool call read from a reply: positional `args`, keyword `kwargs`, and the text it came from."""

    name: str
    args: list[Any] = field(default_factory=list)
    kwargs: dict[str, Any] = field(default_factory=dict)
    raw: str = ""


@dataclass(frozen=True)
class ParsedReply:
    """What a reply asks for. Exactly one of `action`, `final_answer` and `error` is set.

    `error` is a short format reminder meant for the model; `dropped` lists what was ignored (told to the
    model too, so it learns to write one action per reply and never an Observation).
    """

    thought: str | None = None
    action: ParsedAction | None = None
    final_answer: str | None = None
    error: str | None = None
    dropped: list[str] = field(default_factory=list)


# --- model-facing wording of format errors (short on purpose: it goes back into the conversation) ---

_FORMAT_HINT = (
    "Reply with 'Thought: <one short reason>' and then either 'Action: tool_name(argument=value, ...)' "
    "(or 'Action: tool_name' with 'Action Input: <JSON object>') or 'Final Answer: <answer>'."
)
_EMPTY_REPLY = "Your reply was empty. " + _FORMAT_HINT
_NO_DECISION = "Your reply had no Action and no Final Answer. " + _FORMAT_HINT
_NO_TOOL_NAME = "Your Action named no tool. " + _FORMAT_HINT
_EMPTY_FINAL = "Your Final Answer was empty. Write the answer after 'Final Answer:'."
_EXTRA_ACTIONS = "{count} extra action{plural} dropped (only the first action of a reply runs)"
_ACTIONS_AFTER_FINAL = "{count} action{plural} after the Final Answer dropped"
_FINAL_AFTER_ACTION = "Final Answer after the action dropped (wait for the action's Observation first)"
_INVENTED_OBSERVATION = "invented Observation dropped with all after it (the system writes observations)"
_ECHOED_OBSERVATION = "Observation at the start of the reply ignored (the system writes observations)"
_TOO_MANY_LABELS = "labels after the first 64 dropped"
_BAD_INPUT_JSON = (
    "The Action Input of {name} is not valid JSON. Write it as one JSON object on the line after "
    "'Action Input:', e.g. {example}."
)

# --- labels ---

_THOUGHT, _ACTION, _INPUT, _FINAL, _OBSERVATION, _TEXT = "thought", "action", "input", "final", "obs", "text"

_LABEL_WORDS = (
    r"action[ \t_-]?input|final[ \t_-]?answer|observation|thought|thinking|action"
    r"|行动输入|动作输入|最终答案|最终回答|观察|思考|行动|动作"
)
_BOLD = r"(?:\*\*|__)"
_LINE_LABEL = re.compile(
    # The lookahead (a marker or a label's first character) fails a blank line at once: a reply of 100,000
    # newlines otherwise tries every alternative at each of them.
    r"^(?=[ \t#>*+_\-aAfFoOtT行动最观思])[ \t]*(?:[#>]+[ \t]*|[-*+][ \t]+)?"  # heading, quote or bullet markers
    r"(?:"
    rf"{_BOLD}[ \t]*(?P<w1>{_LABEL_WORDS})(?:[ \t]*\d+)?[ \t]*[:：][ \t]*{_BOLD}"  # **Action:**
    rf"|{_BOLD}[ \t]*(?P<w2>{_LABEL_WORDS})(?:[ \t]*\d+)?[ \t]*{_BOLD}[ \t]*[:：]"  # **Action**:
    rf"|(?P<w3>{_LABEL_WORDS})(?:[ \t]*\d+)?[ \t]*[:：]"  # Action:
    r")[ \t]*",
    re.IGNORECASE | re.MULTILINE,
)
# In the middle of a line only capitalized English labels count, so that prose ("take action: ...") does not.
# It starts with a lookahead of its first characters and checks the letter before after a bold marker, so
# that the search skips to candidates instead of trying every position (4x faster over 100 KB of fences).
_INLINE_LABEL = re.compile(
    r"(?=[*_AFO])(?:(?:\*\*|__)(?<![A-Za-z]\*\*)(?<![A-Za-z]__)|(?<![A-Za-z]))"
    r"(?P<w1>Action Input|Action|Final Answer|Observation|ACTION INPUT|ACTION|FINAL ANSWER)"
    rf"(?:[ \t]*\d+)?{_BOLD}?[ \t]*[:：][ \t]*{_BOLD}?[ \t]*"
)
_STOP_FRAGMENT = re.compile(
    r"(?:\A|\n)[ \t*#]*(?:Ob|Obs|Obse|Obser|Observ|Observa|Observat|Observati|Observatio|Observation|观察)"
    r"(?:[ \t]*[:：])?[ \t*]*\Z",  # not [ \t]*[:：]?[ \t*]*: that backtracks quadratically over spaces
    re.IGNORECASE,
)

_ACTIONS_READ_FOR_COUNT = 10
_MAX_SEGMENTS = 64
_NAME_WINDOW = 300  # characters of an Action line in which its tool name is looked for
_NO_ACTION_NAMES = {"none", "null", "n/a", "na", "nothing", "无", "没有", "不需要"}
# `Action: <one of these>` alone means the final answer; as a call name only the first three do (a tool named
# like an ordinary word, e.g. `answer(...)`, is left to the loop's unknown-tool message).
_FINISH_NAMES = {"finish", "final_answer", "finalanswer", "final", "answer", "done", "最终答案"}
_FINISH_CALLS = {"finish", "final_answer", "finalanswer"}
_ANSWER_PREFIX = re.compile(r"^\s*(?:final[ _]?answer|answer|最终答案|最终回答|答案)\s*[:：=]\s*", re.I)

_NAME = re.compile(rf"(?<![A-Za-z0-9_])({IDENTIFIER})")
_CALL_PARENTHESIS = re.compile(r"[ \t]*\(")
_KEYWORD_ITEM = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*(?:=(?!=)|[:：](?!//))\s*(.*)$", re.DOTALL)
_FENCE_LINE = re.compile(r"^[ \t]*```[\w-]*[ \t]*(?:\n|$)", re.MULTILINE)  # a reply wrapped in a code block
_INT = re.compile(r"-?(?:0|[1-9]\d*)")
_FLOAT = re.compile(r"-?(?:0|[1-9]\d*)\.\d+")

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "'": "'", "\\": "\\"}


@dataclass(frozen=True)
class _Label:
    kind: str
    start: int
    end: int


@dataclass(frozen=True)
class _Segment:
    kind: str
    body: str


@dataclass(frozen=True)
class _Outcome:
    """What one Action segment means: an action, a final answer (finish), nothing (`Action: None`), or an
    error."""

    action: ParsedAction | None = None
    final: str | None = None
    error: str | None = None


_NOTHING = _Outcome()


def parse_react(text: str, tool_names: Collection[str] | None = None) -> ParsedReply:
    """Read one text-protocol reply into an action, a final answer or a format error. Never raises.

    Args:
        text: The model's reply, as received (stop sequences may have cut it anywhere).
        tool_names: The tools the model may call. When given, a known name is preferred over other words on
            the Action line, and a bare `known_tool(...)` line counts as an action.

    >>> parse_react('Thought: need the date\\nAction: get_current_date()').action.name
    'get_current_date'
    >>> parse_react('Action: search_courses\\nAction Input: {"topic": "python",}').action.kwargs
    {'topic': 'python'}
    >>> parse_react("I think the answer is 42.").error is not None
    True
    """
    with repair_budget():
        known = list(tool_names or [])
        reply, reasoning = split_think_blocks(unescape_entities(text or ""))
        reply = _without_stop_fragment(reply)
        segments, dropped = _segment(reply)
        parsed = _decide(segments, dropped, known)
        if parsed.error is not None:
            parsed = _fallback(reply, parsed, known)
        if parsed.thought is None and reasoning:
            parsed = ParsedReply(reasoning, parsed.action, parsed.final_answer, parsed.error, parsed.dropped)
    return parsed


# --- segmentation ---


def _without_stop_fragment(text: str) -> str:
    """The reply without a stop-word fragment ending it. The fragment is all of the last line, so only that
    line is matched (a search over the whole reply would try every newline)."""
    fragment = _STOP_FRAGMENT.match(text, max(text.rfind("\n"), 0))
    return text[: fragment.start()] if fragment else text


def _label_kind(word: str) -> str:
    normalized = re.sub(r"[ \t_-]", "", word.lower())
    if normalized in ("actioninput", "行动输入", "动作输入"):
        return _INPUT
    if normalized in ("action", "行动", "动作"):
        return _ACTION
    if normalized in ("finalanswer", "最终答案", "最终回答"):
        return _FINAL
    if normalized in ("observation", "观察"):
        return _OBSERVATION
    return _THOUGHT


class _Labels:
    """The labels of one reply, left to right. Each pattern's last search is remembered: a later search from
    before the match found gives that match again, so the text is searched once per pattern, not per segment."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._last: dict[re.Pattern[str], tuple[int, re.Match[str] | None]] = {}

    def _search(self, pattern: re.Pattern[str], position: int) -> re.Match[str] | None:
        remembered = self._last.get(pattern)
        if remembered is not None:
            searched_from, match = remembered
            if searched_from <= position and (match is None or position <= match.start()):
                return match
        match = pattern.search(self.text, position)
        self._last[pattern] = (position, match)
        return match

    def next(self, position: int, line_start_only: bool = False) -> _Label | None:
        found: list[_Label] = []
        patterns = (_LINE_LABEL,) if line_start_only else (_LINE_LABEL, _INLINE_LABEL)
        for pattern in patterns:
            match = self._search(pattern, position)
            if match:
                word = next(group for group in match.groups() if group)
                found.append(_Label(_label_kind(word), match.start(), match.end()))
        return min(found, key=lambda label: label.start) if found else None


def _segment(text: str) -> tuple[list[_Segment], list[str]]:
    """Cut the reply into labelled segments, stopping at an Observation the model wrote itself."""
    segments: list[_Segment] = []
    dropped: list[str] = []
    labels = _Labels(text)
    brackets = BracketBlocks(text)
    label = labels.next(0)
    preamble = text[: label.start if label else len(text)]
    if preamble.strip():
        segments.append(_Segment(_TEXT, preamble))
    while label is not None:
        if len(segments) == _MAX_SEGMENTS:  # no real reply has this many labels; reading on costs per label
            dropped.append(_TOO_MANY_LABELS)
            break
        if label.kind == _OBSERVATION:
            if not segments:  # an echo of the last observation, before the reply proper
                label = labels.next(label.end, line_start_only=True)
                dropped.append(_ECHOED_OBSERVATION)
                continue
            dropped.append(_INVENTED_OBSERVATION)
            break
        following = labels.next(label.end, line_start_only=label.kind == _FINAL)
        end = following.start if following else len(text)
        if label.kind in (_ACTION, _INPUT):
            extended = brackets.extend(label.end, end)
            if extended > end:  # a label inside a quoted argument is part of the argument
                end = extended
                following = labels.next(end)
        segments.append(_Segment(label.kind, text[label.end : end]))
        label = following
    return segments, dropped


# --- deciding ---


def _decide(segments: list[_Segment], dropped: list[str], known: list[str]) -> ParsedReply:
    chosen: int | None = None
    outcome = _NOTHING
    for index, segment in enumerate(segments):
        if segment.kind == _FINAL:
            outcome = _final_outcome(segment.body)
        elif segment.kind == _ACTION:
            outcome = _action_outcome(segment.body, _input_after(segments, index), known)
        if outcome is not _NOTHING:
            chosen = index
            break
    if chosen is None:
        return ParsedReply(_thought(segments, len(segments)), error=_why_nothing(segments), dropped=dropped)
    later = segments[chosen + 1 :]
    later_actions = _count_actions(segments, chosen + 1, known)
    later_finals = sum(1 for segment in later if segment.kind == _FINAL)
    notes = list(dropped)
    if later_actions:
        plural = "s" if later_actions > 1 else ""
        if outcome.action is not None:
            notes.append(_EXTRA_ACTIONS.format(count=later_actions, plural=plural))
        else:
            notes.append(_ACTIONS_AFTER_FINAL.format(count=later_actions, plural=plural))
    if later_finals and outcome.action is not None:
        notes.append(_FINAL_AFTER_ACTION)
    thought = _thought(segments, chosen)
    return ParsedReply(thought, outcome.action, outcome.final, outcome.error, notes)


def _count_actions(segments: list[_Segment], first: int, known: list[str]) -> int:
    """How many Action segments from `first` on name a call, to tell the model: the first few are read in full,
    past those every Action label counts (a reply of thousands of actions is not parsed thousands of times)."""
    count = read = 0
    for position in range(first, len(segments)):
        segment = segments[position]
        if segment.kind != _ACTION:
            continue
        if read < _ACTIONS_READ_FOR_COUNT:
            read += 1
            outcome = _action_outcome(segment.body, _input_after(segments, position), known)
            count += outcome.action is not None
        else:
            count += 1
    return count


def _input_after(segments: list[_Segment], index: int) -> str | None:
    if index + 1 < len(segments) and segments[index + 1].kind == _INPUT:
        return segments[index + 1].body
    return None


def _thought(segments: list[_Segment], before: int) -> str | None:
    parts = [s.body for s in segments[:before] if s.kind in (_TEXT, _THOUGHT)]
    text = _FENCE_LINE.sub("", "\n".join(part.strip() for part in parts if part.strip()))
    return text.strip() or None


def _why_nothing(segments: list[_Segment]) -> str:
    if not segments:
        return _EMPTY_REPLY
    if any(segment.kind == _FINAL for segment in segments):
        return _EMPTY_FINAL
    if any(segment.kind in (_ACTION, _INPUT) for segment in segments):
        return _NO_TOOL_NAME
    return _NO_DECISION


def _fallback(reply: str, parsed: ParsedReply, known: list[str]) -> ParsedReply:
    """No labelled decision: accept a `<tool_call>` block or a bare `known_tool(...)` line as the action."""
    embedded = extract_embedded_calls(reply)
    if embedded:
        name, arguments = embedded[0]
        notes = list(parsed.dropped)
        if len(embedded) > 1:
            extra = len(embedded) - 1
            notes.append(_EXTRA_ACTIONS.format(count=extra, plural="s" if extra > 1 else ""))
        action = ParsedAction(name, [], arguments, reply.strip())
        return ParsedReply(_text_before_embedded_call(reply), action, dropped=notes)
    for name in known:
        match = re.search(rf"(?im)^[ \t`*]*({re.escape(name)})[ \t]*\(", reply)
        if match:
            outcome = _action_outcome(reply[match.start(1) :], None, known)
            if outcome.action is not None:
                before, _ = _segment(reply[: match.start()])
                thought = _thought(before, len(before))
                return ParsedReply(thought, outcome.action, dropped=list(parsed.dropped))
    return parsed


def _text_before_embedded_call(reply: str) -> str | None:
    markers = ("<tool_call>", "<function=", "```", "functions.", "{")
    starts = [index for marker in markers if (index := reply.find(marker)) >= 0]
    return (reply[: min(starts)].strip() or None) if starts else None


def _final_outcome(body: str) -> _Outcome:
    answer = body.strip()
    return _Outcome(final=answer) if answer else _NOTHING


def _action_outcome(body: str, input_body: str | None, known: list[str]) -> _Outcome:
    """Read one `Action:` segment (and the `Action Input:` after it, if any)."""
    text = _undecorate(body)
    given_input = input_body.strip() if input_body is not None else ""
    raw = "Action: " + body.strip() + (f"\nAction Input: {given_input}" if input_body is not None else "")
    if text.startswith(("{", "[")):
        return _json_action_outcome(text, raw)
    first_line = text.split("\n", 1)[0].strip()
    # The tool name is near the start of the line: only its head is searched (a 100 KB line costs no more).
    first_line = first_line[:_NAME_WINDOW]
    whole = re.sub(r"[\s-]+", "_", first_line.strip(" .:：`*").lower())
    if not first_line or whole in _NO_ACTION_NAMES:
        return _NOTHING
    if whole in _FINISH_NAMES:
        return _finish_outcome(given_input, None)
    located = _locate_name(text, first_line, known)
    if located is None:
        return _NOTHING
    name, after = located
    inside: str | None = None
    inline_json: str | None = None
    rest = text[after:]
    stripped_rest = rest.lstrip(" \t")
    if stripped_rest.startswith("("):
        opening = after + (len(rest) - len(stripped_rest))
        close = matching_close(text, opening)
        inside = text[opening + 1 : close] if close is not None else text[opening + 1 :].rstrip().rstrip(")")
    elif stripped_rest.lstrip(":： \t").startswith("{"):
        inline_json = stripped_rest.lstrip(":： \t")
    if name.lower() in _FINISH_CALLS:
        return _finish_outcome(given_input, inside)
    if given_input:
        arguments = _arguments_from_input(given_input)
    elif inside is not None:
        arguments = _call_arguments(inside)
    elif inline_json is not None:
        arguments = _arguments_from_input(inline_json)
    else:
        arguments = ([], {})
    if arguments is None:
        example = '{"topic": "python"}' if name == "search_courses" else '{"name": "value"}'
        return _Outcome(error=_BAD_INPUT_JSON.format(name=name, example=example))
    args, kwargs = arguments
    return _Outcome(action=ParsedAction(name, args, kwargs, raw))


def _undecorate(body: str) -> str:
    """Strip what models wrap around an action: code fences, backticks, bold, a leading bullet."""
    text = body.strip()
    fenced = fence_body(text)
    if fenced is not None:
        text = fenced.strip()
    text = re.sub(r"^[-*+][ \t]+", "", text)
    return text.strip().strip("`*").strip()


def _locate_name(text: str, first_line: str, known: list[str]) -> tuple[str, int] | None:
    """The tool name on the Action line and the index in `text` just after it."""
    best: tuple[int, int, str] | None = None
    for name in known:
        pattern = re.escape(name).replace("_", "[_ -]")
        match = re.search(rf"(?<![A-Za-z0-9_]){pattern}(?![A-Za-z0-9_])", first_line, re.IGNORECASE)
        if match and (best is None or match.start() < best[0]):
            best = (match.start(), match.end(), name)
    if best is not None:
        return best[2], text.find(first_line) + best[1]
    offset = text.find(first_line)
    # The first name followed by "(", else the first name. Names are matched whole (see IDENTIFIER) and each
    # is tried once, so a long dotted line costs one pass.
    names = list(_NAME.finditer(first_line))
    call = next((name for name in names if _CALL_PARENTHESIS.match(first_line, name.end())), None)
    match = call or (names[0] if names else None)
    if match:
        return clean_name(match.group(1)), offset + match.end(1)
    token = re.match(r"[^\s(（:：,，]+", first_line)
    return (token.group(0), offset + token.end()) if token else None


def _finish_outcome(given_input: str, inside: str | None) -> _Outcome:
    """The answer of `finish(...)` / `Action: finish` + `Action Input:`: the single value, else the text."""
    source = given_input or (inside or "")
    answer = source.strip()
    arguments = _arguments_from_input(answer) if given_input else _call_arguments(answer)
    if arguments is not None:
        values = [*arguments[0], *arguments[1].values()]
        if len(values) == 1 and isinstance(values[0], str):
            answer = values[0]
    answer = _ANSWER_PREFIX.sub("", answer).strip()
    return _Outcome(final=answer) if answer else _Outcome(error=_EMPTY_FINAL)


def _json_action_outcome(text: str, raw: str) -> _Outcome:
    """`Action: {"name": ..., "arguments": ...}` or LangChain's `{"action": ..., "action_input": ...}`."""
    value = load_json_lenient(text)
    call = call_from_object(value, require_arguments=False) if isinstance(value, dict) else None
    if call is None:
        return _Outcome(error=_NO_TOOL_NAME)
    name, arguments = call
    if re.sub(r"[\s-]+", "_", name.lower()) in _FINISH_NAMES:
        answer = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
        return _finish_outcome(answer, None) if answer else _Outcome(error=_EMPTY_FINAL)
    args, kwargs = split_loaded(arguments)
    return _Outcome(action=ParsedAction(name, args, kwargs, raw))


# --- argument values ---


def _arguments_from_input(text: str) -> tuple[list[Any], dict[str, Any]] | None:
    """Arguments from an Action Input. None when it is meant as JSON but cannot be read as JSON."""
    body = strip_fence(text.strip())
    if not body or body.lower() in ("none", "null", "{}", "无"):
        return [], {}
    if body[0] == "{":
        value = load_json_lenient(body)
        return ([], value) if isinstance(value, dict) and value else None
    if body[0] == "[":
        value = load_json_lenient(body)
        return (value, {}) if isinstance(value, list) else None
    if body.startswith("(") and matching_close(body, 0) == len(body) - 1:
        return _call_arguments(body[1:-1])
    if "\n" in body:
        return [body], {}
    return _call_arguments(body)


def _call_arguments(inside: str) -> tuple[list[Any], dict[str, Any]]:
    """`a, key=value, "quoted, with comma"` → positional and keyword values."""
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for item in split_top_level(inside):
        item = item.strip()
        if not item:
            continue
        keyword = _KEYWORD_ITEM.match(item)
        if keyword:
            kwargs[keyword.group(1)] = _literal(keyword.group(2))
        else:
            args.append(_literal(item))
    if not kwargs and len(args) == 1 and isinstance(args[0], dict):  # tool({"topic": "x"}): JSON in parens
        return [], args[0]
    return args, kwargs


def _literal(text: str) -> Any:
    """A written value as Python: quoted strings unquoted, canonical numbers, booleans, JSON lists/objects."""
    value = text.strip()
    quote = quote_close_at(value, 0) if value else None
    if quote is not None and value.endswith(quote[0]) and len(value) >= 2 * len(quote[0]):
        return _unescape(value[len(quote[0]) : -len(quote[0])])
    if _INT.fullmatch(value):
        return int(value)
    if _FLOAT.fullmatch(value):
        return float(value)
    lowered = value.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("null", "none"):
        return None
    if value.startswith(("{", "[")):
        loaded = load_json_lenient(value)
        if isinstance(loaded, list | dict):
            return loaded
    return value


def _unescape(text: str) -> str:
    return re.sub(r"\\([ntr\"'\\])", lambda match: _ESCAPES[match.group(1)], text)
