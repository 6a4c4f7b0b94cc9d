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
        """The assistant message to append to the history, tool_calls included (the API requires them)."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
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
    ) -> ModelReply:
        """Return the model's next reply. Raises `studyplan.errors.ModelError` subclasses on failure."""
        ...
