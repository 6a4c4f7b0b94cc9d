"""Reading a conversation back as tool calls and their results, for rule-based models.

The offline planner and reviser are stateless like a real model: every turn they re-read the messages. A
`Transcript` gives them the first user message and each call with its arguments and observation, including
the calls folded into a summary by `studyplan.core.memory`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Self

from studyplan.core.memory import is_summary, read_summary


@dataclass
class Exchange:
    call_id: str
    name: str
    arguments: dict[str, Any]
    observation: str | None = None


@dataclass
class Transcript:
    first_user_text: str
    exchanges: list[Exchange]

    @classmethod
    def read(cls, messages: list[dict[str, Any]]) -> Self:
        first_user = next((message_text(m) for m in messages if m.get("role") == "user"), "")
        exchanges: list[Exchange] = []
        by_id: dict[str, Exchange] = {}
        for message in messages:
            if is_summary(message):
                for index, folded in enumerate(read_summary(message_text(message))):
                    exchanges.append(Exchange(f"folded_{index}", folded.name, folded.arguments, folded.observation))
            elif message.get("role") == "assistant":
                for call in message.get("tool_calls") or []:
                    function = call.get("function", {})
                    exchange = Exchange(call.get("id", ""), function.get("name", ""), _arguments(function))
                    exchanges.append(exchange)
                    by_id[exchange.call_id] = exchange
            elif message.get("role") == "tool" and message.get("tool_call_id") in by_id:
                by_id[message["tool_call_id"]].observation = message_text(message)
        return cls(first_user, exchanges)

    def of(self, name: str) -> list[Exchange]:
        return [exchange for exchange in self.exchanges if exchange.name == name]


def message_text(message: dict[str, Any]) -> str:
    """A message's text, whether its content is a string or a list of parts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


def _arguments(function: dict[str, Any]) -> dict[str, Any]:
    try:
        arguments = json.loads(function.get("arguments") or "{}")
    except json.JSONDecodeError:
        return {}
    return arguments if isinstance(arguments, dict) else {}
