"""OpenAIChatModel through the real openai SDK over HTTP to a scripted server on 127.0.0.1."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

import pytest
from scripted_server import ScriptedServer, call, delayed, error, raw, reply, stream_reply

from studyplan.core.events import Usage
from studyplan.core.model import ChatModel, ModelReply, ToolCall
from studyplan.errors import (
    AuthenticationFailed,
    EndpointUnreachable,
    ModelError,
    ModelNotFound,
    ToolsNotSupported,
    UsageError,
)
from studyplan.llm.openai_model import OpenAIChatModel
from studyplan.llm.settings import PLACEHOLDER_API_KEY, ModelSettings, redact, resolve_settings

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

    assert model.complete(MESSAGES) == ModelReply("ok", [], None)
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
        make_model(scripted_server).complete(MESSAGES)

    message = str(raised.value)
    assert "HTTP 401" in message
    assert "OPENAI_API_KEY" in message
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


def test_closed_port_is_endpoint_unreachable() -> None:
    base_url = f"http://127.0.0.1:{closed_port()}/v1"
    model = OpenAIChatModel("test-model", SECRET_KEY, base_url, max_retries=0)

    with pytest.raises(EndpointUnreachable, match="connection refused") as raised:
        model.complete(MESSAGES)

    assert base_url in str(raised.value)


def test_slow_server_is_endpoint_unreachable_after_timeout(scripted_server: ScriptedServer) -> None:
    scripted_server.add(delayed(2.0, reply(content="too late")))
    model = make_model(scripted_server, timeout=0.3, max_retries=0)

    with pytest.raises(EndpointUnreachable, match=r"no reply within 0.3s after 1 attempt\."):
        model.complete(MESSAGES)


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


# --- settings ------------------------------------------------------------------------------------------


def test_nothing_configured_is_offline() -> None:
    expected = ModelSettings("offline", None, None, 0.2, offline=True)
    assert resolve_settings(None, None, 0.2, env={}) == expected


def test_model_offline_wins_over_a_configured_endpoint() -> None:
    env = {"OPENAI_API_KEY": SECRET_KEY, "OPENAI_BASE_URL": "http://localhost:11434/v1"}
    assert resolve_settings("offline", None, 0.2, env=env).offline


def test_key_alone_uses_the_default_openai_model() -> None:
    settings = resolve_settings(None, None, 0.2, env={"OPENAI_API_KEY": SECRET_KEY})

    assert settings == ModelSettings("gpt-4o-mini", None, SECRET_KEY, 0.2, offline=False)
    assert SECRET_KEY not in repr(settings)


def test_local_endpoint_needs_no_key_but_needs_a_model() -> None:
    settings = resolve_settings("llama3.1", "http://localhost:11434/v1", 0.0, env={})
    assert settings == ModelSettings("llama3.1", "http://localhost:11434/v1", PLACEHOLDER_API_KEY, 0.0, False)

    with pytest.raises(UsageError, match="--model is required with a custom endpoint"):
        resolve_settings(None, "http://localhost:11434/v1", 0.2, env={})


def test_flags_override_environment() -> None:
    env = {
        "OPENAI_API_KEY": SECRET_KEY,
        "OPENAI_BASE_URL": "http://env-host:8000/v1",
        "STUDYPLAN_MODEL": "env-model",
    }
    assert resolve_settings(None, None, 0.2, env=env).model == "env-model"
    assert resolve_settings(None, None, 0.2, env=env).base_url == "http://env-host:8000/v1"

    settings = resolve_settings("flag-model", "http://flag-host:9000/v1", 0.2, env=env)
    assert (settings.model, settings.base_url) == ("flag-model", "http://flag-host:9000/v1")


def test_blank_environment_values_count_as_unset() -> None:
    env = {"OPENAI_API_KEY": " ", "OPENAI_BASE_URL": "", "STUDYPLAN_MODEL": ""}
    assert resolve_settings(None, None, 0.2, env=env).offline


@pytest.mark.parametrize(
    ("model", "base_url", "temperature", "message"),
    [
        ("gpt-4o", None, 0.2, "needs an endpoint"),
        ("llama3.1", "localhost:11434", 0.2, "must start with http"),
        (None, None, 3.0, "between 0 and 2"),
    ],
)
def test_unusable_settings_are_usage_errors(
    model: str | None, base_url: str | None, temperature: float, message: str
) -> None:
    with pytest.raises(UsageError, match=message):
        resolve_settings(model, base_url, temperature, env={})


def test_redact_hides_every_secret() -> None:
    text = f"key={SECRET_KEY} again {SECRET_KEY} other=tok-1"
    assert redact(text, [SECRET_KEY, None, "", "tok-1"]) == "key=*** again *** other=***"
