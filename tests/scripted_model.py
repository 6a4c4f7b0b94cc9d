"""An in-process ChatModel that replays scripted replies: the loop's unit tests use it without HTTP."""

from __future__ import annotations

import json
from typing import Any

from studyplan.core.events import Usage
from studyplan.core.model import ModelReply, ToolCall


def call(name: str, call_id: str | None = None, **arguments: Any) -> ToolCall:
    return ToolCall(
        call_id or f"call_{name}_{len(arguments)}", name, json.dumps(arguments, ensure_ascii=False)
    )


class ScriptedModel:
    """Returns the scripted replies in order and records the messages it was sent."""

    offline = False

    def __init__(self, replies: list[ModelReply], name: str = "scripted") -> None:
        self.replies = list(replies)
        self.name = name
        self.requests: list[dict[str, Any]] = []

    def complete(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        stop: list[str] | None = None,
        tool_choice: str | None = None,
    ) -> ModelReply:
        self.requests.append(
            {"messages": [dict(m) for m in messages], "tools": tools, "stop": stop, "tool_choice": tool_choice}
        )
        if not self.replies:
            raise AssertionError("the scripted model ran out of replies")
        reply = self.replies.pop(0)
        return reply if reply.usage else ModelReply(reply.content, reply.tool_calls, Usage(100, 20))
