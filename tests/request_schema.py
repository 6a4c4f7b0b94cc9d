"""The strictest chat-completions request the common OpenAI-compatible servers accept, as a pydantic schema.

Written from llama-cpp-python's request types (llama_cpp/llama_types.py, server/types.py), tightened where
vLLM, Ollama or the OpenAI API are stricter: every message's `content` is a string (llama-cpp-python's server
answered `"content": null` with HTTP 500), roles are system/user/assistant/tool, an assistant's tool calls are
`{"id", "type": "function", "function": {"name", "arguments"}}` with arguments a JSON object text (the
name as the model sent it, even one that is not offered), and each tool message answers, by id, a call of the
assistant message just before it, every call answered. The scripted server checks
every request against it and answers a violation as llama-cpp-python does: HTTP 500 naming the field.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictStr, ValidationError, field_validator


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FunctionCall(_Strict):
    name: StrictStr = Field(min_length=1)
    arguments: StrictStr

    @field_validator("arguments")
    @classmethod
    def _a_json_object(cls, value: str) -> str:
        try:
            parsed = json.loads(value)
        except ValueError as exc:
            raise ValueError(f"arguments must be a JSON object text, got {value[:60]!r}") from exc
        if not isinstance(parsed, dict):
            raise ValueError("arguments must be a JSON object text")
        return value


class ToolCall(_Strict):
    id: StrictStr = Field(min_length=1)
    type: Literal["function"]
    function: FunctionCall


class SystemMessage(_Strict):
    role: Literal["system"]
    content: StrictStr


class UserMessage(_Strict):
    role: Literal["user"]
    content: StrictStr


class AssistantMessage(_Strict):
    role: Literal["assistant"]
    content: StrictStr
    tool_calls: list[ToolCall] | None = Field(default=None, min_length=1)


class ToolMessage(_Strict):
    role: Literal["tool"]
    content: StrictStr
    tool_call_id: StrictStr = Field(min_length=1)


Message = Annotated[SystemMessage | UserMessage | AssistantMessage | ToolMessage, Field(discriminator="role")]


class FunctionDefinition(_Strict):
    name: StrictStr = Field(min_length=1)
    description: StrictStr | None = None
    parameters: dict[str, Any]


class Tool(_Strict):
    type: Literal["function"]
    function: FunctionDefinition


class NamedToolChoice(_Strict):
    type: Literal["function"]
    function: dict[Literal["name"], StrictStr]


class ChatRequest(_Strict):
    model: StrictStr
    messages: list[Message] = Field(min_length=1)
    tools: list[Tool] | None = Field(default=None, min_length=1)
    tool_choice: Literal["none", "auto", "required"] | NamedToolChoice | None = None
    stop: list[StrictStr] | StrictStr | None = None
    temperature: float | None = None
    max_tokens: int | None = Field(default=None, gt=0)
    stream: bool | None = None
    stream_options: dict[str, bool] | None = None


def request_problems(body: Any) -> list[str]:
    """Every way `body` breaks the strict schema or the history's call/answer pairing; [] when it is valid."""
    try:
        request = ChatRequest.model_validate(body)
    except ValidationError as error:
        return [f"{'.'.join(map(str, item['loc']))}: {item['msg']}" for item in error.errors()]
    return _pairing_problems(request)


def _pairing_problems(request: ChatRequest) -> list[str]:
    problems = []
    if request.tools is None and any(isinstance(m, AssistantMessage) and m.tool_calls for m in request.messages):
        problems.append("messages: tool calls in a history sent without tools")
    open_ids: list[str] = []
    for index, message in enumerate(request.messages):
        if isinstance(message, ToolMessage):
            if message.tool_call_id not in open_ids:
                problems.append(f"messages.{index}.tool_call_id: {message.tool_call_id!r} answers no open tool call")
            else:
                open_ids.remove(message.tool_call_id)
            continue
        if open_ids:
            problems.append(f"messages.{index}: tool calls {open_ids} were never answered")
            open_ids = []
        if isinstance(message, AssistantMessage) and message.tool_calls:
            open_ids = [call.id for call in message.tool_calls]
            if len(set(open_ids)) != len(open_ids):
                problems.append(f"messages.{index}.tool_calls: duplicate ids {open_ids}")
    if open_ids:
        problems.append(f"messages: tool calls {open_ids} were never answered")
    return problems
