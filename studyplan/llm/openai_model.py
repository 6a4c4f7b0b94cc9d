"""The ChatModel for any OpenAI-compatible chat completions endpoint: OpenAI, Ollama, vLLM, llama.cpp, ...

Retries of 408/409/429/5xx and connection failures (with backoff that honours Retry-After) are left to the
openai SDK's `max_retries`, bounded in time by transport.py; this module turns what is left into
`studyplan.errors` types whose one-line messages say what to do. Every request carries `max_tokens`, and
every history is sent with string contents (llama-cpp-python's server rejects `"content": null`). The SDK is
imported lazily so that `studyplan --help` starts fast.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from studyplan.core.events import Usage
from studyplan.core.memory import estimate_tokens
from studyplan.core.model import ModelReply, ToolCall
from studyplan.errors import (
    AuthenticationFailed,
    EndpointUnreachable,
    ModelError,
    ModelNotFound,
    ToolsNotSupported,
)
from studyplan.llm.presets import OPENAI
from studyplan.llm.settings import DEFAULT_MAX_TOKENS, PLACEHOLDER_API_KEY, redact

if TYPE_CHECKING:
    import openai

OPENAI_BASE_URL = OPENAI.base_url
# Statuses the SDK retries by itself; if one surfaces, every attempt failed.
_RETRIED_STATUSES = {408, 409, 429}
_SERVER_MESSAGE_LIMIT = 200
# "does not support tools" (Ollama), "tool choice requires --enable-auto-tool-choice" (vLLM),
# "tools param requires --jinja flag" (llama.cpp), "function calling is not supported" (others).
_MENTIONS_TOOLS = re.compile(r"\btools?\b|tool_choice|tool[ _]calls?|function[ _]call", re.IGNORECASE)
_SAYS_UNSUPPORTED = re.compile(r"support|not enabled|requires|enable", re.IGNORECASE)
_MENTIONS_STREAM_OPTIONS = re.compile(r"stream_options|include_usage", re.IGNORECASE)
_MENTIONS_TOOL_CHOICE = re.compile(r"tool[_ ]choice", re.IGNORECASE)


class OpenAIChatModel:
    """One turn of the conversation through the openai SDK, plain or streamed."""

    offline = False

    def __init__(
        self,
        model: str,
        api_key: str | None,
        base_url: str | None = None,
        temperature: float = 0.2,
        timeout: float = 60.0,
        max_retries: int = 2,
        stream: bool = False,
        *,
        deadline: float | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        key_hint: str = "OPENAI_API_KEY",
    ) -> None:
        import openai  # lazy: the SDK takes a noticeable time to import

        from studyplan.llm.transport import BoundedTransport, Clock

        self.name = model
        self.temperature = temperature
        self.stream = stream
        self.max_tokens = max_tokens
        self.endpoint = (base_url or OPENAI_BASE_URL).rstrip("/")
        self._api_key = api_key or PLACEHOLDER_API_KEY
        self._key_hint = key_hint
        self._clock = Clock(self.endpoint, timeout, deadline)
        attempts = max_retries + 1
        self._attempts_text = f"{attempts} attempt" if attempts == 1 else f"{attempts} attempts"
        self._send_stream_options = True  # cleared once the server rejects them
        self._send_tool_choice = True  # cleared once the server rejects a forced tool_choice
        self._client = openai.OpenAI(
            api_key=self._api_key,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            http_client=openai.DefaultHttpxClient(transport=BoundedTransport(self._clock)),
        )

    def new_run(self) -> None:
        """Restart the run's deadline (a batch worker reuses one model for the goals it runs in turn)."""
        self._clock.new_run()

    def __repr__(self) -> str:
        return f"OpenAIChatModel(model={self.name!r}, endpoint={self.endpoint!r}, stream={self.stream})"

    def complete(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        stop: list[str] | None = None,
        tool_choice: str | None = None,
    ) -> ModelReply:
        import openai

        from studyplan.llm.transport import RequestStopped, connection_failure

        request: dict[str, Any] = {
            "model": self.name,
            "messages": wire_messages(messages),
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if tools:
            request["tools"] = tools
        if stop:
            request["stop"] = stop
        if tools and self._send_tool_choice:
            # "auto" is every API's default, but llama-cpp-python's chatml-function-calling format shows the
            # model no tools at all unless a tool_choice is sent: the model then writes prose.
            forced = {"type": "function", "function": {"name": tool_choice}} if tool_choice else "auto"
            request["tool_choice"] = forced
        self._clock.start_request()
        try:
            return self._complete_choosing(request)
        except RequestStopped as err:  # out of time, or nothing listens: said once, never retried
            raise err.error from None
        except openai.APIStatusError as err:
            raise self._status_error(err, tools_sent=bool(tools)) from err
        except openai.APITimeoutError as err:
            raise EndpointUnreachable(
                f"Cannot reach {self.endpoint}: no connection after {self._attempts_text}. "
                "Check that the server is up and the base URL is right."
            ) from err
        except openai.APIConnectionError as err:
            raise EndpointUnreachable(
                f"Cannot reach {self.endpoint}: {connection_failure(err)}. "
                "Check that the server is running and the base URL is right."
            ) from err
        except openai.APIError as err:  # an error event in the middle of a stream
            text = self._server_text(err)
            raise ModelError(f"The endpoint at {self.endpoint} failed mid-reply: {text}") from err
        except ValueError as err:  # a body that claims to be JSON but is not
            raise self._not_a_completion() from err

    def _complete_choosing(self, request: dict[str, Any]) -> ModelReply:
        """The request as is; a server that refuses a forced tool_choice gets it again without, and never again."""
        import openai

        send = self._complete_streamed if self.stream else self._complete_plain
        try:
            return send(request)
        except openai.APIStatusError as err:
            # Only an error that names tool_choice: "tools not supported" must reach the text-protocol switch.
            # A refused "auto" (vLLM without --enable-auto-tool-choice) means no tools at all: it must be raised.
            forced = isinstance(request.get("tool_choice"), dict)
            if not forced or not _MENTIONS_TOOL_CHOICE.search(f"{err.body} {err.message}"):
                raise
            self._send_tool_choice = False
            return send({key: value for key, value in request.items() if key != "tool_choice"})

    def _complete_plain(self, request: dict[str, Any]) -> ModelReply:
        completion = self._client.chat.completions.create(**request)
        try:
            # A non-JSON body comes back from the SDK as a str; a JSON body without choices lacks attributes.
            message = completion.choices[0].message
            usage = completion.usage
            if message is None:  # a choice without its message is no reply
                raise TypeError("no message")
        except (AttributeError, IndexError, TypeError) as err:
            raise self._not_a_completion() from err
        tool_calls = [
            ToolCall(call.id or f"call_{position}", call.function.name, call.function.arguments or "")
            for position, call in enumerate(message.tool_calls or [])
            if getattr(call, "function", None) is not None  # custom (non-function) tools are never offered
        ]
        return ModelReply(message.content or None, tool_calls, _usage(usage))

    def _complete_streamed(self, request: dict[str, Any]) -> ModelReply:
        import openai

        stream_request = {**request, "stream": True}
        if self._send_stream_options:
            stream_request["stream_options"] = {"include_usage": True}
        try:
            stream = self._client.chat.completions.create(**stream_request)
        except openai.BadRequestError as err:
            if "stream_options" not in stream_request or not _MENTIONS_STREAM_OPTIONS.search(str(err.body)):
                raise
            # Some servers reject stream_options outright: go without usage figures from now on.
            self._send_stream_options = False
            del stream_request["stream_options"]
            stream = self._client.chat.completions.create(**stream_request)
        reply = self._assemble(stream)
        if reply.usage is None:  # llama-cpp-python sends no usage in streams: count what was sent and received
            reply = ModelReply(reply.content, reply.tool_calls, estimated_usage(request["messages"], reply))
        return reply

    def _assemble(self, stream: openai.Stream[Any]) -> ModelReply:
        """Join content deltas, and tool-call deltas by their index, into one reply."""
        content_parts: list[str] = []
        calls: dict[int, dict[str, Any]] = {}
        usage: Usage | None = None
        chunk_count = 0
        with stream:
            for chunk in stream:
                chunk_count += 1
                if getattr(chunk, "usage", None):
                    usage = _usage(chunk.usage)
                for choice in getattr(chunk, "choices", None) or []:
                    delta = choice.delta
                    if delta.content:
                        content_parts.append(delta.content)
                    for position, call_delta in enumerate(delta.tool_calls or []):
                        index = getattr(call_delta, "index", None)
                        key = position if index is None else index
                        call = calls.setdefault(key, {"id": "", "name": "", "arguments": []})
                        call["id"] = call["id"] or (call_delta.id or "")
                        function = call_delta.function
                        if function is not None:
                            call["name"] = call["name"] or (function.name or "")
                            call["arguments"].append(function.arguments or "")
        if chunk_count == 0:
            raise self._not_a_completion()
        tool_calls = [
            ToolCall(call["id"] or f"call_{index}", call["name"], "".join(call["arguments"]))
            for index, call in sorted(calls.items())
        ]
        return ModelReply("".join(content_parts) or None, tool_calls, usage)

    def _status_error(self, err: openai.APIStatusError, tools_sent: bool) -> ModelError:
        status = err.status_code
        text = self._server_text(err)
        if status in (401, 403):
            return AuthenticationFailed(
                f"The endpoint at {self.endpoint} refused the API key (HTTP {status}). Check {self._key_hint}."
            )
        if status == 404 or err.code == "model_not_found":
            return ModelNotFound(
                f"Model '{self.name}' is not available at {self.endpoint} (HTTP {status}). "
                "Check --model, and that the base URL ends in /v1."
            )
        rejects_tools = _MENTIONS_TOOLS.search(text) and _SAYS_UNSUPPORTED.search(text)
        if status in (400, 422) and tools_sent and rejects_tools:
            return ToolsNotSupported(
                f"Model '{self.name}' at {self.endpoint} does not accept tools (HTTP {status}): {text}"
            )
        if status in _RETRIED_STATUSES or status >= 500:
            return ModelError(
                f"The endpoint at {self.endpoint} returned HTTP {status} after {self._attempts_text}: "
                f"{text}. Try again later."
            )
        return ModelError(f"The endpoint at {self.endpoint} rejected the request (HTTP {status}): {text}")

    def _server_text(self, err: openai.APIError) -> str:
        """The server's own error message, on one short line and without the key."""
        body = err.body  # the SDK has already unwrapped {"error": ...}
        if isinstance(body, dict):
            body = body.get("message") or body.get("detail") or body
        text = " ".join(str(body if body is not None else err.message).split())
        if len(text) > _SERVER_MESSAGE_LIMIT:
            text = text[: _SERVER_MESSAGE_LIMIT - 1] + "…"
        return redact(text, [self._api_key])

    def _not_a_completion(self) -> ModelError:
        return ModelError(
            f"The endpoint at {self.endpoint} returned a reply that is not an OpenAI chat completion. "
            "Check that the base URL points at an OpenAI-compatible API (usually ending in /v1)."
        )


def _usage(usage: Any) -> Usage | None:
    if usage is None:
        return None
    return Usage(getattr(usage, "prompt_tokens", 0) or 0, getattr(usage, "completion_tokens", 0) or 0)


def wire_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The history as the strictest servers accept it: every content a string, never null."""
    return [{**message, "content": ""} if message.get("content") is None else message for message in messages]


def estimated_usage(messages: list[dict[str, Any]], reply: ModelReply) -> Usage:
    """Token counts by the project's estimate, marked as such, for a server that reports none."""
    return Usage(estimate_tokens(messages), estimate_tokens([reply.to_message()]), estimated=True)
