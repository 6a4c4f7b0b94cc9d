"""The one small interface every model implements: the OpenAI-compatible client, the offline planner
and the tests' scripted model.

A model receives the conversation as OpenAI chat messages plus the tool schemas, and returns one reply:
text, tool calls, or both. Messages are plain dicts so that any model (and the trace) can read them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from studyplan.core.events import Usage


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # raw JSON text, exactly as the model produced it

    def to_message(self) -> dict[str, Any]:
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": self.arguments}}


@dataclass(frozen=True)
class ModelReply:
    content: str | None
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage | None = None

    def to_message(self) -> dict[str, Any]:
        """The assistant message to append to the history, tool_calls included (the API requires them).

        `content` is always a string ("" for a reply with calls only): llama-cpp-python's server refuses null."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content or ""}
        if self.tool_calls:
            message["tool_calls"] = [call.to_message() for call in self.tool_calls]
        return message


@runtime_checkable
class ChatModel(Protocol):
    """Anything that can take one turn of the conversation."""

    name: str
    offline: bool

    def complete(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        stop: list[str] | None = None,
        tool_choice: str | None = None,
    ) -> ModelReply:
        """Return the model's next reply. Raises `studyplan.errors.ModelError` subclasses on failure.

        `tool_choice` names a tool the reply should call (the loop asks for it on a first request only); a
        model or server that cannot force a call answers as if it were not given."""
        ...


def message_text(message: dict[str, Any]) -> str:
    """A message's text, whether its content is a string or a list of parts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


def first_user_text(messages: list[dict[str, Any]]) -> str:
    """The first user message's text: the goal, for a rule-based model."""
    return next((message_text(m) for m in messages if m.get("role") == "user"), "")
