"""Tool calls a model wrote into the text of its reply instead of the protocol's place for them.

Native-tools replies of small models often carry the call in their content (`<tool_call>{...}</tool_call>`,
a fenced JSON block, `functions.name:{...}`); the text protocol accepts the same shapes when a reply has
no labelled Action. Everything here is linear in the reply's length (see `text_scan`).
"""

from __future__ import annotations

import contextlib
import html
import json
import re
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

import json_repair

from studyplan.core.text_scan import fence_body, matching_close, scan, scan_budget

__all__ = [
    "call_from_object",
    "clean_name",
    "extract_embedded_calls",
    "load_json_lenient",
    "repair_budget",
    "split_loaded",
]

# Atomic: a name is matched whole or not at all, so a failed match is not retried from inside a long name.
IDENTIFIER = r"(?>[A-Za-z_][A-Za-z0-9_]*(?:[.-][A-Za-z0-9_]+)*)"
_NAME_KEYS = ("name", "tool", "tool_name", "action", "function")
_ARGUMENT_KEYS = ("arguments", "args", "parameters", "action_input", "tool_input", "input", "params")
_TOOL_CALL_TAG = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.DOTALL | re.IGNORECASE)
_FUNCTION_TAG = re.compile(rf"<function=({IDENTIFIER})>(.*?)(?:</function>|\Z)", re.DOTALL)
_FENCED_BLOCK = re.compile(r"```[A-Za-z_]*[ \t]*\n(.*?)```", re.DOTALL)
# A line that is only `functions.name:` (or `functions.name()`): llama-cpp-python's chatml-function-calling
# grammar lets a forced call end there, with no arguments; the tool then runs with none.
_BARE_FUNCTION_LINE = re.compile(
    r"^[ \t]*functions\.((?>[A-Za-z_][A-Za-z0-9_-]*))[ \t]*(?::|\(\s*\))[ \t]*$", re.MULTILINE
)
_FUNCTIONS_PREFIX = re.compile(r"functions\.((?>[A-Za-z_][A-Za-z0-9_-]*))(?:\s|<\|[^|]*\|>|json|[:(])*(\{)")

# Strings are matched whole (so a comma inside one is kept); a comma before a closing bracket is dropped.
_TRAILING_COMMA = re.compile(r'("(?:[^"\\]|\\.)*")|,(\s*[}\]])', re.DOTALL)
_ANY_TRAILING_COMMA = re.compile(r",\s*[}\]]")
REPAIR_DEPTH = 8
REPAIR_LIMIT = 2_000  # characters json_repair is given at most per text, and per reply (see load_json_lenient)
# What is left of the current reply's json_repair allowance (None outside repair_budget: one text's limit).
_repair_left: ContextVar[list[int] | None] = ContextVar("studyplan_repair_left", default=None)

Calls = list[tuple[str, dict[str, Any]]]


# Entities a server's chat template put into the prompt (llama-cpp-python's chatml-function-calling renders
# messages HTML-escaped: every " reaches the model as &#34;) and that a small model copies into its reply.
_HTML_ENTITY = re.compile(r"&(?:#\d{2,3}|quot|apos|amp|lt|gt);")


def unescape_entities(text: str) -> str:
    """The reply with HTML entities decoded, when it has any (twice: copied escapes get escaped again)."""
    for _ in range(2):
        if not _HTML_ENTITY.search(text):
            break
        text = html.unescape(text)
    return text


def extract_embedded_calls(content: str) -> Calls:
    """Tool calls a native-tools reply wrote into its text instead of `tool_calls`, in order.

    Recognized: `<tool_call>{"name": ..., "arguments": ...}</tool_call>` (Qwen/Hermes, several allowed,
    arguments an object or a JSON string), `<function=name>{...}</function>`, a fenced JSON block (or a reply
    that is only JSON) holding {"name", "arguments"}, {"tool", "args"} or {"function": {...}} (or a list of
    them), and `functions.name:{...}` / `to=functions.name ... {...}`. Plain prose gives [].

    >>> extract_embedded_calls('```json\\n{"name": "search_courses", "arguments": {"topic": "sql"}}\\n```')
    [('search_courses', {'topic': 'sql'})]
    >>> extract_embedded_calls("I would search the catalog with search_courses first.")
    []
    """
    if not content or not content.strip():
        return []
    content = unescape_entities(content)
    finders = (
        _tool_call_tags, _function_tags, _fenced_calls, _functions_prefix_calls, _whole_json_calls, _bare_calls
    )
    with repair_budget():
        for finder in finders:
            calls = finder(content)
            if calls:
                return calls
    return []


def strip_fence(text: str) -> str:
    body = fence_body(text)
    return body.strip() if body is not None else text.strip("`").strip()


def load_json_lenient(text: str) -> Any:
    """Strict JSON first, then JSON with raw control characters in strings and trailing commas, then json_repair
    for short texts. None when nothing JSON-like can be read.

    json_repair is pure Python, about 15 µs a character: a 100 KB reply repaired whole would take 1.5 s. So it
    gets only texts up to REPAIR_LIMIT characters; longer ones (a whole plan as an argument) get the two cheap
    repairs small models need most (newlines written raw inside strings, a trailing comma).
    """
    body = strip_fence(text.strip())
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        pass
    try:  # the string-aware rewrite only when a comma stands before a closing bracket somewhere
        return json.loads(_TRAILING_COMMA.sub(r"\1\2", body) if _ANY_TRAILING_COMMA.search(body) else body,
                          strict=False)  # fmt: skip
    except (ValueError, RecursionError):
        pass
    if len(body) > REPAIR_LIMIT or _too_deep(body) or not _take_repair_allowance(len(body)):
        return None
    try:
        value = json_repair.loads(body)
    except Exception:  # json_repair is lenient by design; a crash inside it must not end the run
        return None
    return None if value == "" else value


@contextlib.contextmanager
def repair_budget() -> Iterator[None]:
    """Within this block (one reply), json_repair reads at most REPAIR_LIMIT characters in all: a reply split
    into thousands of small broken JSON pieces costs no more than one piece of that size. The reply's scans
    share one budget too (text_scan.scan_budget)."""
    if _repair_left.get() is not None:  # an outer block already counts this reply
        yield
        return
    token = _repair_left.set([REPAIR_LIMIT])
    try:
        with scan_budget():
            yield
    finally:
        _repair_left.reset(token)


def _too_deep(text: str) -> bool:
    """Brackets nested deeper than REPAIR_DEPTH: json_repair's time grows with the square of the depth (100
    unclosed braces cost it 30 ms), and no tool's arguments nest so deep."""
    return any(depth > REPAIR_DEPTH for _, depth in scan(text, 0, capped=False))


def _take_repair_allowance(characters: int) -> bool:
    left = _repair_left.get()
    available = left[0] if left is not None else REPAIR_LIMIT
    if characters > available:
        return False
    if left is not None:
        left[0] -= characters
    return True


def split_loaded(arguments: Any) -> tuple[list[Any], dict[str, Any]]:
    """Loaded arguments as (positional, keyword) values."""
    if isinstance(arguments, dict):
        return [], arguments
    if isinstance(arguments, list):
        return arguments, {}
    if isinstance(arguments, str):
        loaded = load_json_lenient(arguments) if arguments.strip().startswith(("{", "[")) else None
        if isinstance(loaded, dict):
            return [], loaded
        return ([arguments] if arguments.strip() else []), {}
    return ([] if arguments is None else [arguments]), {}


def clean_name(name: str) -> str:
    return name.removeprefix("functions.").strip(".-")


def call_from_object(value: dict[str, Any], require_arguments: bool) -> tuple[str, Any] | None:
    """(name, arguments) from the shapes models use for a call; None for any other object."""
    function = value.get("function")
    if isinstance(function, dict):
        value = function
    name = next((value[key] for key in _NAME_KEYS if isinstance(value.get(key), str)), None)
    has_arguments = any(key in value for key in _ARGUMENT_KEYS)
    if not name or not name.strip() or (require_arguments and not has_arguments):
        return None
    arguments: Any = next((value[key] for key in _ARGUMENT_KEYS if key in value), {})
    return clean_name(name.strip()), arguments


def _calls_from_json(text: str, require_arguments: bool) -> Calls:
    value = load_json_lenient(text)
    items = value if isinstance(value, list) else [value]
    calls: Calls = []
    for item in items:
        call = call_from_object(item, require_arguments) if isinstance(item, dict) else None
        if call is None or not re.fullmatch(IDENTIFIER, call[0]):
            continue
        _, kwargs = split_loaded(call[1])
        calls.append((call[0], kwargs))
    return calls


def _tool_call_tags(content: str) -> Calls:
    calls: Calls = []
    for body in _TOOL_CALL_TAG.findall(content):
        calls.extend(_calls_from_json(body, require_arguments=False))
    return calls


def _function_tags(content: str) -> Calls:
    calls: Calls = []
    for name, body in _FUNCTION_TAG.findall(content):
        value = load_json_lenient(body) if body.strip() else {}
        calls.append((clean_name(name), value if isinstance(value, dict) else {}))
    return calls


def _fenced_calls(content: str) -> Calls:
    calls: Calls = []
    for body in _FENCED_BLOCK.findall(content):
        if body.strip().startswith(("{", "[")):
            calls.extend(_calls_from_json(body, require_arguments=True))
    return calls


def _functions_prefix_calls(content: str) -> Calls:
    """`functions.name:{...}` calls. A call's object is read to its closing brace; a `functions.` inside it is
    part of its arguments, and an object that never closes takes the rest of the reply."""
    calls: Calls = []
    resume = 0
    while (match := _FUNCTIONS_PREFIX.search(content, resume)) is not None:
        opening = match.start(2)
        close = matching_close(content, opening)
        end = close + 1 if close is not None else len(content)
        value = load_json_lenient(content[opening:end])
        if isinstance(value, dict):
            calls.append((match.group(1), value))
        resume = end
    return calls


def _whole_json_calls(content: str) -> Calls:
    body = content.strip()
    if not body.startswith(("{", "[")):
        return []
    return _calls_from_json(body, require_arguments=True)


def _bare_calls(content: str) -> Calls:
    return [(name, {}) for name in _BARE_FUNCTION_LINE.findall(content)]
