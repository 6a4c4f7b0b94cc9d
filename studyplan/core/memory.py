"""Keeping the conversation inside a token budget (the first article's 4.3, the second's 6.2).

When the estimated prompt passes the budget, the oldest complete steps (an assistant turn and the
observations that answer it) are folded into one short summary message; the system prompt, the goal and
the most recent steps stay verbatim. The summary is built in code, not by a model: each folded call keeps
its tool, arguments and the first line of its result, plus every course id it saw, so nothing the plan
needs is lost.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

_COURSE_ID = re.compile(r"\[([a-z0-9][a-z0-9-]*)\]")
SUMMARY_PREFIX = "Summary of earlier steps (folded to save context):"


def estimate_tokens(messages: list[dict[str, Any]]) -> int:
    """A tokenizer-free estimate: about 4 characters per token for ASCII, 1 token per CJK character."""
    total = 0
    for message in messages:
        text = json.dumps(message, ensure_ascii=False)
        cjk = sum(1 for ch in text if "\u3000" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef")
        total += cjk + (len(text) - cjk) // 4 + 4
    return total


@dataclass(frozen=True)
class Fold:
    messages: list[dict[str, Any]]
    folded_messages: int
    tokens_before: int
    tokens_after: int
    summary: str


def fold_history(
    messages: list[dict[str, Any]], budget_tokens: int, keep_recent_steps: int = 2, measured_tokens: int | None = None
) -> Fold | None:
    """Fold old steps when the conversation is over budget; None when nothing needs (or can) be folded.

    `messages` starts with the system prompt and the goal. `measured_tokens`, the server's reported prompt
    size for the last request, replaces the estimate when known.
    """
    # The server's count covers the previous request only; the estimate also sees what was appended since.
    before = max(measured_tokens or 0, estimate_tokens(messages))
    if before <= budget_tokens:
        return None
    head, body = messages[:2], messages[2:]
    steps = _split_steps(body)
    if len(steps) <= keep_recent_steps:
        return None
    old, recent = steps[:-keep_recent_steps], steps[-keep_recent_steps:]
    previous_summary = ""
    if old and is_summary(old[0][0]):
        previous_summary = old[0][0]["content"][len(SUMMARY_PREFIX) :].strip()
        old = old[1:]
    lines = [previous_summary] if previous_summary else []
    lines += [_summarize_step(step) for step in old]
    summary = "\n".join(line for line in lines if line)
    folded = [{"role": "user", "content": f"{SUMMARY_PREFIX}\n{summary}"}]
    result = head + folded + [message for step in recent for message in step]
    return Fold(result, sum(len(step) for step in old), before, estimate_tokens(result), summary)


def is_summary(message: dict[str, Any]) -> bool:
    return message["role"] == "user" and (message.get("content") or "").startswith(SUMMARY_PREFIX)


def _split_steps(body: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Group messages so that an assistant turn stays with the tool/observation messages that answer it."""
    steps: list[list[dict[str, Any]]] = []
    for message in body:
        starts_step = message["role"] == "assistant" or not steps
        if is_summary(message):
            starts_step = True
        if starts_step:
            steps.append([message])
        else:
            steps[-1].append(message)
    return steps


def _summarize_step(step: list[dict[str, Any]]) -> str:
    lines = []
    for message in step:
        if message["role"] == "assistant":
            for call in message.get("tool_calls") or []:
                function = call["function"]
                lines.append(f"- called {function['name']}({_short(function['arguments'], 120)})")
            if not message.get("tool_calls") and message.get("content"):
                lines.append(f"- said: {_short(message['content'], 200)}")
        else:
            content = message.get("content") or ""
            ids = list(dict.fromkeys(_COURSE_ID.findall(content)))
            first_line = content.strip().splitlines()[0] if content.strip() else ""
            result = f"  → {_short(first_line, 160)}"
            if ids:
                result += f" (courses: {', '.join(ids)})"
            lines.append(result)
    return "\n".join(lines)


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
