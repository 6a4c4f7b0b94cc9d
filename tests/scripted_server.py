"""A small OpenAI-compatible chat completions server whose replies are scripted, for tests.

Each request to POST /v1/chat/completions takes the next step from a queue: a completion, a streamed
completion, an HTTP error, a raw non-JSON body, or any of those after a delay. Every request is recorded
(headers and parsed JSON body) so tests can assert what the client actually sent over HTTP, and checked
against the strictest common request schema (tests/request_schema.py): a request llama-cpp-python would
refuse gets its HTTP 500, and the fixture fails the test.

    server.add(reply(tool_calls=[call("get_current_date")]), error(500), reply(content="done"))
"""

from __future__ import annotations

import contextlib
import itertools
import json
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from request_schema import request_problems

CHAT_COMPLETIONS_PATH = "/v1/chat/completions"
_call_ids = itertools.count(1)


@dataclass(frozen=True)
class Completion:
    """An ordinary (non-streamed) chat completion."""

    content: str | None
    tool_calls: list[dict[str, Any]]
    usage: tuple[int, int] | None  # (prompt_tokens, completion_tokens)


@dataclass(frozen=True)
class StreamedCompletion:
    """A completion sent as server-sent events, content and tool-call arguments split over chunks."""

    content: str | None
    tool_calls: list[dict[str, Any]]
    usage: tuple[int, int] | None  # sent only when the request asked for it, as OpenAI does
    pieces: int = 3


@dataclass(frozen=True)
class HttpError:
    status: int
    message: str
    code: str | None = None
    retry_after: str | None = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class RawBody:
    body: str
    status: int = 200
    content_type: str = "text/html"


@dataclass(frozen=True)
class Delayed:
    seconds: float
    step: Step


@dataclass(frozen=True)
class Trickle:
    """A server that answers a byte at a time, `interval` seconds apart: no read timeout ever fires."""

    step: Completion | StreamedCompletion
    interval: float = 1.0


Step = Completion | StreamedCompletion | HttpError | RawBody | Delayed | Trickle


def call(name: str, call_id: str | None = None, **arguments: Any) -> dict[str, Any]:
    """One tool call as it appears in an assistant message, e.g. call("search_courses", topic="python")."""
    return {
        "id": call_id or f"call_{next(_call_ids)}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)},
    }


def reply(
    content: str | None = None,
    tool_calls: list[dict[str, Any]] | None = None,
    usage: tuple[int, int] | None = (10, 5),
) -> Completion:
    return Completion(content, list(tool_calls or []), usage)


def stream_reply(
    content: str | None = None,
    tool_calls: list[dict[str, Any]] | None = None,
    usage: tuple[int, int] | None = (10, 5),
) -> StreamedCompletion:
    return StreamedCompletion(content, list(tool_calls or []), usage)


def error(
    status: int, message: str | None = None, code: str | None = None, retry_after: str | None = None
) -> HttpError:
    return HttpError(status, message or f"scripted HTTP {status}", code, retry_after)


def raw(body: str, status: int = 200, content_type: str = "text/html") -> RawBody:
    return RawBody(body, status, content_type)


def delayed(seconds: float, step: Step) -> Delayed:
    return Delayed(seconds, step)


def trickle(step: Completion | StreamedCompletion, interval: float = 1.0) -> Trickle:
    return Trickle(step, interval)


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    body: Any  # parsed JSON, or None when the body was not JSON
    raw_body: bytes = field(repr=False)


def _split(text: str, pieces: int) -> list[str]:
    """Split text into up to `pieces` non-empty parts, so deltas must be concatenated to be right."""
    size = max(1, -(-len(text) // pieces))
    return [text[start : start + size] for start in range(0, len(text), size)] or [""]


def _usage_json(usage: tuple[int, int]) -> dict[str, int]:
    prompt, completion = usage
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def completion_json(step: Completion, model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": step.content}
    if step.tool_calls:
        message["tool_calls"] = step.tool_calls
    body: dict[str, Any] = {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if step.tool_calls else "stop",
            }
        ],
    }
    if step.usage is not None:
        body["usage"] = _usage_json(step.usage)
    return body


def stream_chunks(step: StreamedCompletion, model: str, include_usage: bool) -> Iterator[dict[str, Any]]:
    """The chunk objects of a streamed completion; tool-call argument deltas of parallel calls interleave."""

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        return {
            "id": "chatcmpl-scripted",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        }

    yield chunk({"role": "assistant", "content": ""})
    if step.content:
        for piece in _split(step.content, step.pieces):
            yield chunk({"content": piece})
    for index, tool_call in enumerate(step.tool_calls):
        function = {"name": tool_call["function"]["name"], "arguments": ""}
        opening = {"index": index, "id": tool_call["id"], "type": "function", "function": function}
        yield chunk({"tool_calls": [opening]})
    arguments = [tool_call["function"]["arguments"] for tool_call in step.tool_calls]
    argument_pieces = [_split(text, step.pieces) for text in arguments]
    for round_number in range(step.pieces):
        for index, pieces in enumerate(argument_pieces):
            if round_number < len(pieces):
                delta = {"index": index, "function": {"arguments": pieces[round_number]}}
                yield chunk({"tool_calls": [delta]})
    yield chunk({}, "tool_calls" if step.tool_calls else "stop")
    if include_usage and step.usage is not None:
        final = chunk({})
        final["choices"] = []
        final["usage"] = _usage_json(step.usage)
        yield final


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the SDK expects; every response sets Content-Length
    server: _ScriptedHTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the default stderr access log."""

    def do_POST(self) -> None:
        raw_body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw_body)
        except ValueError:
            body = None
        request = RecordedRequest(
            "POST", self.path, {name.lower(): value for name, value in self.headers.items()}, body, raw_body
        )
        step = self.server.scripted.take(request)
        # The client may have given up (a timeout test): then there is nobody to answer.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self._respond(step, body)

    def _respond(self, step: Step, body: Any) -> None:
        model = body.get("model", "scripted") if isinstance(body, dict) else "scripted"
        match step:
            case Delayed(seconds, inner):
                time.sleep(seconds)
                self._respond(inner, body)
            case Completion():
                self._send(200, json.dumps(completion_json(step, model)), "application/json")
            case StreamedCompletion():
                self._send(200, _event_stream(step, body, model), "text/event-stream")
            case Trickle(inner, interval):
                self._trickle(inner, body, model, interval)
            case HttpError(status, message, code, retry_after, extra_headers):
                headers = dict(extra_headers)
                if retry_after is not None:
                    headers["Retry-After"] = retry_after
                details = {"message": message, "type": "scripted_error", "param": None, "code": code}
                payload = {"error": details}
                self._send(status, json.dumps(payload), "application/json", headers)
            case RawBody(text, status, content_type):
                self._send(status, text, content_type)

    def _trickle(self, step: Completion | StreamedCompletion, body: Any, model: str, interval: float) -> None:
        if isinstance(step, Completion):
            text, content_type = json.dumps(completion_json(step, model)), "application/json"
        else:
            text, content_type = _event_stream(step, body, model), "text/event-stream"
        payload = text.encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        for position in range(len(payload)):
            if self.server.stopping.is_set():
                return
            self.wfile.write(payload[position : position + 1])
            self.wfile.flush()
            time.sleep(interval)

    def _send(self, status: int, text: str, content_type: str, headers: dict[str, str] | None = None) -> None:
        payload = text.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)


def _event_stream(step: StreamedCompletion, body: Any, model: str) -> str:
    options = body.get("stream_options") if isinstance(body, dict) else None
    include_usage = bool(options and options.get("include_usage"))
    chunks = stream_chunks(step, model, include_usage)
    return "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in chunks) + "data: [DONE]\n\n"


class _ScriptedHTTPServer(ThreadingHTTPServer):
    daemon_threads = True  # a handler still sleeping in a delay step must not block stop()

    def __init__(self, scripted: ScriptedServer) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.scripted = scripted
        self.stopping = threading.Event()  # ends a trickle when the test is over


class ScriptedServer:
    """An OpenAI-compatible endpoint on 127.0.0.1 answering each request with the next scripted step."""

    def __init__(self) -> None:
        self._steps: deque[Step] = deque()
        self._lock = threading.Lock()
        self.requests: list[RecordedRequest] = []
        self.invalid: list[tuple[int, list[str]]] = []  # (request number, problems) of requests a strict server refuses
        self._http = _ScriptedHTTPServer(self)
        # A short poll interval keeps stop() (which waits for the next poll) from slowing every test.
        self._thread = threading.Thread(
            target=self._http.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self._http.server_address[:2]
        return f"http://{host}:{port}/v1"

    @property
    def remaining(self) -> int:
        """How many scripted steps have not been served yet."""
        return len(self._steps)

    @property
    def bodies(self) -> list[Any]:
        """The parsed JSON body of every request, in order."""
        return [request.body for request in self.requests]

    def add(self, *steps: Step) -> None:
        with self._lock:
            self._steps.extend(steps)

    def take(self, request: RecordedRequest) -> Step:
        """Record the request and return the step that answers it."""
        with self._lock:
            self.requests.append(request)
            number = len(self.requests)
            if request.path != CHAT_COMPLETIONS_PATH:
                message = f"scripted server only serves {CHAT_COMPLETIONS_PATH}, not {request.path}"
                return HttpError(404, message)
            problems = request_problems(request.body)
            if problems:  # as llama-cpp-python answers a request its schema refuses
                self.invalid.append((number, problems))
                message = f"scripted server: request #{number} is invalid: {'; '.join(problems)}"
                return HttpError(500, message, headers={"x-should-retry": "false"})
            if not self._steps:
                # x-should-retry stops the SDK retrying, so the test fails at once with this text.
                message = f"scripted server: no scripted response left for request #{number}"
                return HttpError(500, message, headers={"x-should-retry": "false"})
            return self._steps.popleft()

    def start(self) -> ScriptedServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._http.stopping.set()
        self._http.shutdown()
        self._http.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
