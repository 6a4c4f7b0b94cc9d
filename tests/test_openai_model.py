"""OpenAIChatModel through the real openai SDK over HTTP to a scripted server on 127.0.0.1."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

import pytest
from scripted_server import ScriptedServer, call, delayed, error, raw, reply, stream_reply, trickle

from studyplan.core.events import Usage
from studyplan.core.model import ChatModel, ModelReply, ToolCall
from studyplan.errors import (
    AuthenticationFailed,
    DeadlineExceeded,
    EndpointUnreachable,
    ModelError,
    ModelNotFound,
    RequestTimedOut,
    ToolsNotSupported,
)
from studyplan.llm.openai_model import OpenAIChatModel
from studyplan.llm.settings import DEFAULT_MAX_TOKENS, redact

SECRET_KEY = "sk-test-0123456789abcdef"
MESSAGES = [{"role": "user", "content": "零基础3个月学机器学习"}]
DATE_TOOL = {
    "type": "function",
    "function": {"name": "get_current_date", "description": "Today.", "parameters": {"type": "object"}},
}


def make_model(server: ScriptedServer, **options: Any) -> OpenAIChatModel:
    settings: dict[str, Any] = {"model": "test-model", "api_key": SECRET_KEY, "base_url": server.base_url}
    return OpenAIChatModel(**(settings | options))


def closed_port() -> int:
    """A loopback port that nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# --- replies -------------------------------------------------------------------------------------------


def test_plain_reply_returns_content_and_usage(scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(content="你好，先查一下今天的日期。", usage=(42, 7)))

    result = make_model(scripted_server).complete(MESSAGES)

    assert result == ModelReply("你好，先查一下今天的日期。", [], Usage(42, 7))
    assert isinstance(make_model(scripted_server), ChatModel)


def test_parallel_tool_calls_in_one_reply(scripted_server: ScriptedServer) -> None:
    scripted_server.add(
        reply(
            tool_calls=[
                call("get_current_date", call_id="call_a"),
                call("search_courses", call_id="call_b", topic="python"),
            ]
        )
    )

    result = make_model(scripted_server).complete(MESSAGES, tools=[DATE_TOOL])

    assert result.content is None
    assert result.tool_calls == [
        ToolCall("call_a", "get_current_date", "{}"),
        ToolCall("call_b", "search_courses", '{"topic": "python"}'),
    ]


def test_streamed_reply_assembles_split_content_and_tool_call_deltas(scripted_server: ScriptedServer) -> None:
    scripted_server.add(
        stream_reply(
            content="I will look up the date and the courses.",
            tool_calls=[
                call("get_current_date", call_id="call_a"),
                call("search_courses", call_id="call_b", topic="machine learning", level="beginner"),
            ],
            usage=(120, 30),
        )
    )

    result = make_model(scripted_server, stream=True).complete(MESSAGES, tools=[DATE_TOOL])

    assert result.content == "I will look up the date and the courses."
    assert result.tool_calls == [
        ToolCall("call_a", "get_current_date", "{}"),
        ToolCall("call_b", "search_courses", '{"topic": "machine learning", "level": "beginner"}'),
    ]
    assert result.usage == Usage(120, 30)
    assert scripted_server.bodies[0]["stream"] is True
    assert scripted_server.bodies[0]["stream_options"] == {"include_usage": True}


def test_stream_without_stream_options_support_retries_once_without_them(
    scripted_server: ScriptedServer,
) -> None:
    scripted_server.add(
        error(400, "Unrecognized request argument supplied: stream_options"),
        stream_reply(content="ok"),
        stream_reply(content="again"),
    )
    model = make_model(scripted_server, stream=True)

    first = model.complete(MESSAGES)
    assert (first.content, first.tool_calls) == ("ok", [])
    assert first.usage is not None and first.usage.estimated  # no usage from the server: estimated, and said so
    assert model.complete(MESSAGES).content == "again"
    assert ["stream_options" in body for body in scripted_server.bodies] == [True, False, False]


def test_request_carries_model_temperature_tools_and_stop(scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(content="a"), reply(content="b"))
    model = make_model(scripted_server, model="qwen2.5:7b", temperature=0.1)

    model.complete(MESSAGES, tools=[DATE_TOOL], stop=["Observation:"])
    model.complete(MESSAGES)

    with_tools, plain = scripted_server.bodies
    assert with_tools["model"] == "qwen2.5:7b"
    assert with_tools["temperature"] == 0.1
    assert with_tools["messages"] == MESSAGES
    assert with_tools["tools"] == [DATE_TOOL]
    assert with_tools["stop"] == ["Observation:"]
    assert "tools" not in plain
    assert "stop" not in plain
    assert scripted_server.requests[0].headers["authorization"] == f"Bearer {SECRET_KEY}"


def test_every_request_carries_max_tokens(scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(content="a"), stream_reply(content="b"))

    make_model(scripted_server).complete(MESSAGES)
    make_model(scripted_server, stream=True, max_tokens=300).complete(MESSAGES)

    assert [body["max_tokens"] for body in scripted_server.bodies] == [DEFAULT_MAX_TOKENS, 300]


def test_history_is_sent_with_string_contents_never_null(scripted_server: ScriptedServer) -> None:
    """llama-cpp-python's server answers HTTP 500 to an assistant message whose content is null."""
    scripted_server.add(reply(content="ok"))
    history = [
        *MESSAGES,
        {"role": "assistant", "content": None, "tool_calls": [call("get_current_date", call_id="call_1")]},
        {"role": "tool", "tool_call_id": "call_1", "content": "2026-12-01"},
    ]

    make_model(scripted_server).complete(history, tools=[DATE_TOOL])

    sent = scripted_server.bodies[0]["messages"]
    assert all(isinstance(message["content"], str) for message in sent)
    assert sent[1]["content"] == ""
    assert sent[1]["tool_calls"] == history[1]["tool_calls"]  # ids and names as the model sent them
    assert history[1]["content"] is None  # the caller's history is not changed


# --- time bounds ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_trickling_server_cannot_hold_a_run_past_its_deadline(scripted_server: ScriptedServer, stream: bool) -> None:
    """A byte every 0.2 s never trips a read timeout; the deadline still ends the run on time."""
    step = stream_reply(content="x" * 200) if stream else reply(content="x" * 200)
    scripted_server.add(trickle(step, interval=0.2))
    model = make_model(scripted_server, stream=stream, timeout=30, deadline=1.5)

    started = time.monotonic()
    with pytest.raises(DeadlineExceeded) as raised:
        model.complete(MESSAGES)

    assert time.monotonic() - started < 3.0
    assert "--deadline SECONDS" in str(raised.value) and "STUDYPLAN_DEADLINE" in str(raised.value)
    assert len(scripted_server.requests) == 1


def test_deadline_counts_the_whole_run_not_each_reply(scripted_server: ScriptedServer) -> None:
    scripted_server.add(delayed(0.6, reply(content="one")), delayed(0.6, reply(content="two")))
    model = make_model(scripted_server, timeout=5, deadline=1.0)

    assert model.complete(MESSAGES).content == "one"
    with pytest.raises(DeadlineExceeded):
        model.complete(MESSAGES)

    model.new_run()  # a batch worker's next goal gets a fresh deadline
    scripted_server.add(reply(content="three"))
    assert model.complete(MESSAGES).content == "three"


def test_trickling_reply_is_bounded_by_the_request_timeout(scripted_server: ScriptedServer) -> None:
    scripted_server.add(trickle(reply(content="x" * 200), interval=0.2))
    model = make_model(scripted_server, timeout=1.0)

    started = time.monotonic()
    with pytest.raises(RequestTimedOut, match="--timeout"):
        model.complete(MESSAGES)
    assert time.monotonic() - started < 2.5


# --- retries -------------------------------------------------------------------------------------------


def test_server_error_is_retried_then_succeeds(scripted_server: ScriptedServer) -> None:
    scripted_server.add(error(500, retry_after="0.01"), reply(content="recovered"))

    assert make_model(scripted_server).complete(MESSAGES).content == "recovered"
    assert len(scripted_server.requests) == 2


def test_persistent_server_error_gives_up_after_bounded_attempts(scripted_server: ScriptedServer) -> None:
    scripted_server.add(*[error(500, "upstream exploded", retry_after="0.01")] * 5)

    with pytest.raises(ModelError) as raised:
        make_model(scripted_server, max_retries=2).complete(MESSAGES)

    assert len(scripted_server.requests) == 3
    assert "HTTP 500 after 3 attempts" in str(raised.value)
    assert "upstream exploded" in str(raised.value)
    assert "\n" not in str(raised.value)


def test_rate_limit_honours_retry_after(scripted_server: ScriptedServer) -> None:
    scripted_server.add(error(429, "slow down", retry_after="0.6"), reply(content="ok"))
    model = make_model(scripted_server)

    started = time.monotonic()
    result = model.complete(MESSAGES)

    assert result.content == "ok"
    # The SDK's own first backoff would be at most 0.5 s, so 0.6 s proves Retry-After was followed.
    assert time.monotonic() - started >= 0.6


# --- errors --------------------------------------------------------------------------------------------


def test_refused_key_is_authentication_failed_without_the_key(scripted_server: ScriptedServer) -> None:
    scripted_server.add(error(401, f"Incorrect API key provided: {SECRET_KEY}"))

    with pytest.raises(AuthenticationFailed) as raised:
        make_model(scripted_server, key_hint="DEEPSEEK_API_KEY").complete(MESSAGES)

    message = str(raised.value)
    assert "HTTP 401" in message
    assert "DEEPSEEK_API_KEY" in message  # the variable the key came from
    assert scripted_server.base_url in message
    assert SECRET_KEY not in message
    assert SECRET_KEY not in repr(make_model(scripted_server))


def test_forbidden_is_authentication_failed(scripted_server: ScriptedServer) -> None:
    scripted_server.add(error(403, "forbidden"))

    with pytest.raises(AuthenticationFailed, match="HTTP 403"):
        make_model(scripted_server).complete(MESSAGES)


def test_unknown_model_is_model_not_found(scripted_server: ScriptedServer) -> None:
    scripted_server.add(error(404, "The model `gpt-9` does not exist", code="model_not_found"))

    with pytest.raises(ModelNotFound, match=r"Model 'gpt-9' is not available at http://127\.0\.0\.1"):
        make_model(scripted_server, model="gpt-9").complete(MESSAGES)


def test_closed_port_is_endpoint_unreachable_at_once_without_retries() -> None:
    base_url = f"http://127.0.0.1:{closed_port()}/v1"
    model = OpenAIChatModel("test-model", SECRET_KEY, base_url, max_retries=8)

    started = time.monotonic()
    with pytest.raises(EndpointUnreachable, match="connection refused") as raised:
        model.complete(MESSAGES)

    assert time.monotonic() - started < 1.0  # 8 retries with backoff would take about 40 s
    assert base_url in str(raised.value)


def test_slow_server_times_out_naming_the_flag_and_is_not_retried(scripted_server: ScriptedServer) -> None:
    scripted_server.add(delayed(2.0, reply(content="too late")), reply(content="never asked"))
    model = make_model(scripted_server, timeout=0.3, max_retries=2)

    started = time.monotonic()
    with pytest.raises(RequestTimedOut, match=r"within 0.3s; wait longer with --timeout SECONDS") as raised:
        model.complete(MESSAGES)

    assert time.monotonic() - started < 1.5
    assert len(scripted_server.requests) == 1  # a one-slot server still busy with it gets no second copy
    assert "STUDYPLAN_TIMEOUT" in str(raised.value)


@pytest.mark.parametrize(
    "step",
    [
        raw("<html>502 Bad Gateway</html>"),
        raw("{not json", content_type="application/json"),
        raw(json.dumps({"object": "list", "data": []}), content_type="application/json"),
        raw(json.dumps({"choices": []}), content_type="application/json"),
    ],
    ids=["html", "broken-json", "json-without-choices", "empty-choices"],
)
def test_reply_that_is_not_a_chat_completion_is_model_error(
    scripted_server: ScriptedServer, step: Any
) -> None:
    scripted_server.add(step)

    with pytest.raises(ModelError, match="not an OpenAI chat completion"):
        make_model(scripted_server).complete(MESSAGES)


def test_streamed_reply_that_is_not_an_event_stream_is_model_error(scripted_server: ScriptedServer) -> None:
    scripted_server.add(raw("<html>hello</html>"))

    with pytest.raises(ModelError, match="not an OpenAI chat completion"):
        make_model(scripted_server, stream=True).complete(MESSAGES)


@pytest.mark.parametrize(
    "server_message",
    [
        "registry.ollama.ai/library/gemma:2b does not support tools",
        '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
        "tools param requires --jinja flag",
        "Function calling is not supported by this model",
    ],
)
def test_endpoint_without_tool_support_is_tools_not_supported(
    scripted_server: ScriptedServer, server_message: str
) -> None:
    scripted_server.add(error(400, server_message))

    with pytest.raises(ToolsNotSupported):
        make_model(scripted_server).complete(MESSAGES, tools=[DATE_TOOL])


def test_other_bad_request_is_a_plain_model_error(scripted_server: ScriptedServer) -> None:
    scripted_server.add(error(400, "messages: too long\nfor this model"))

    with pytest.raises(ModelError) as raised:
        make_model(scripted_server).complete(MESSAGES, tools=[DATE_TOOL])

    assert type(raised.value) is ModelError
    assert str(raised.value).endswith("rejected the request (HTTP 400): messages: too long for this model")


def test_exhausted_script_fails_loudly(scripted_server: ScriptedServer) -> None:
    with pytest.raises(ModelError, match="no scripted response left for request #1"):
        make_model(scripted_server).complete(MESSAGES)
    assert len(scripted_server.requests) == 1


# --- the network guard ---------------------------------------------------------------------------------


def test_network_guard_blocks_non_loopback_connections(network_guard: Any) -> None:
    blocked = r"Tests must not use the network: blocked connection to 10\.255\.255\.1:80"
    with pytest.raises(Exception, match=blocked):
        socket.create_connection(("10.255.255.1", 80), timeout=1)

    assert network_guard.violations == ["connection to 10.255.255.1:80"]
    network_guard.violations.clear()  # the attempt was this test's point


def test_network_guard_blocks_the_sdk_and_name_lookups(network_guard: Any) -> None:
    model = OpenAIChatModel("gpt-4o-mini", SECRET_KEY, "https://api.example.com/v1", max_retries=0)

    with pytest.raises(Exception, match="Tests must not use the network") as raised:
        model.complete(MESSAGES)

    assert raised.typename == "NetworkBlocked"  # not disguised as an ordinary unreachable endpoint

    assert network_guard.violations == ["name lookup of 'api.example.com'"]
    network_guard.violations.clear()


def test_network_guard_fails_a_test_that_swallows_the_attempt(pytester: pytest.Pytester) -> None:
    tests_dir = Path(__file__).parent
    pytester.makeconftest((tests_dir / "conftest.py").read_text(encoding="utf-8"))
    pytester.makepyfile(
        scripted_server=(tests_dir / "scripted_server.py").read_text(encoding="utf-8"),
        test_sneaky="""
import contextlib, socket

def test_sneaky():
    with contextlib.suppress(Exception):
        socket.create_connection(("10.255.255.1", 80), timeout=1)
""",
    )

    result = pytester.runpytest("-p", "no:cacheprovider")

    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*Tests must not use the network; attempted: connection to 10.255.255.1:80"])


# --- redaction ------------------------------------------------------------------------------------------


def test_redact_hides_every_secret() -> None:
    text = f"key={SECRET_KEY} again {SECRET_KEY} other=tok-1"
    assert redact(text, [SECRET_KEY, None, "", "tok-1"]) == "key=*** again *** other=***"
