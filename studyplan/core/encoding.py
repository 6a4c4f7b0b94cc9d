"""How the loop talks to a model: the encoding of messages and the decoding of replies.

The loop, tools, events, trace and exit codes are shared; a protocol only decides what a request looks like
and how a reply becomes a Decision (a thought plus tool calls, or a final answer, or a format error).
`NativeToolsProtocol` uses the API's function calling; `TextProtocol` (studyplan.core.text_encoding) writes the
Thought / Action / Observation lines of the second article.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from studyplan.core.model import ModelReply, ToolCall
from studyplan.core.react_parser import extract_embedded_calls
from studyplan.core.tools import ToolRegistry


@dataclass(frozen=True)
class PlannedCall:
    """A tool call the model asked for, before it is checked and run."""

    id: str
    name: str
    raw_arguments: str | None = None  # JSON text (native protocol)
    args: list[Any] = field(default_factory=list)  # positional values (text protocol)
    kwargs: dict[str, Any] = field(default_factory=dict)  # already-parsed keyword values (text protocol)


@dataclass(frozen=True)
class Decision:
    thought: str | None = None
    calls: list[PlannedCall] = field(default_factory=list)
    final: str | None = None
    format_error: str | None = None
    notes: list[str] = field(default_factory=list)  # e.g. "2 extra actions dropped", told to the model


@dataclass(frozen=True)
class Request:
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None
    stop: list[str] | None


class ModelProtocol(Protocol):
    """What the loop needs from an encoding (NativeToolsProtocol, protocol_text.TextProtocol)."""

    name: str
    fallback_to_text: bool

    def system_prompt_extra(self, registry: ToolRegistry) -> str: ...

    def request(self, messages: list[dict[str, Any]], registry: ToolRegistry) -> Request: ...

    def decode(self, reply: ModelReply, registry: ToolRegistry, step: int) -> Decision: ...

    def assistant_message(self, reply: ModelReply, decision: Decision) -> dict[str, Any]: ...

    def observation_messages(self, results: list[tuple[PlannedCall, str]]) -> list[dict[str, Any]]: ...

    def reminder_message(self, text: str) -> dict[str, Any]: ...


class NativeToolsProtocol:
    """OpenAI function calling. Also recognizes calls a model wrote into its text instead of tool_calls
    (`<tool_call>{...}</tool_call>`, fenced JSON), as Qwen/Hermes-style models do behind servers with no
    tool parser, so they are executed rather than mistaken for the final answer."""

    name = "tools"

    def __init__(self, fallback_to_text: bool = False) -> None:
        # `auto`: switch to the text protocol if the endpoint rejects the tools parameter.
        self.fallback_to_text = fallback_to_text

    def system_prompt_extra(self, registry: ToolRegistry) -> str:
        return ""

    def request(self, messages: list[dict[str, Any]], registry: ToolRegistry) -> Request:
        return Request(messages, registry.schemas(), None)

    def decode(self, reply: ModelReply, registry: ToolRegistry, step: int) -> Decision:
        content = (reply.content or "").strip() or None
        if reply.tool_calls:
            calls = [
                PlannedCall(call.id, call.name, raw_arguments=call.arguments) for call in reply.tool_calls
            ]
            return Decision(thought=content, calls=calls)
        embedded = extract_embedded_calls(content or "")
        if embedded:
            calls = [
                PlannedCall(f"call_{step}_{index}", name, kwargs=arguments)
                for index, (name, arguments) in enumerate(embedded, start=1)
            ]
            return Decision(thought=_text_before_call(content or ""), calls=calls)
        return Decision(final=content or "")

    def assistant_message(self, reply: ModelReply, decision: Decision) -> dict[str, Any]:
        if decision.calls and not reply.tool_calls:
            # Calls found in the text are re-encoded as real tool_calls so the tool messages that follow are valid.
            calls = [ToolCall(c.id, c.name, _json(c.kwargs)) for c in decision.calls]
            return ModelReply(decision.thought, calls).to_message()
        return reply.to_message()

    def observation_messages(self, results: list[tuple[PlannedCall, str]]) -> list[dict[str, Any]]:
        return [{"role": "tool", "tool_call_id": call.id, "content": text} for call, text in results]

    def reminder_message(self, text: str) -> dict[str, Any]:
        return {"role": "user", "content": text}


def _text_before_call(content: str) -> str | None:
    for marker in ("<tool_call>", "```", "functions."):
        index = content.find(marker)
        if index > 0:
            return content[:index].strip() or None
    return None


def _json(value: dict[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False)
