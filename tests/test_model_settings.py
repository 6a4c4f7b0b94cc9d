"""How the model, endpoint, key and time bounds are chosen: presets, flags, environment and config, no network."""

from __future__ import annotations

import pytest

from studyplan.errors import UsageError
from studyplan.llm.settings import (
    DEFAULT_MAX_TOKENS,
    LOCAL_DEADLINE,
    LOCAL_TIMEOUT,
    PLACEHOLDER_API_KEY,
    REMOTE_DEADLINE,
    REMOTE_TIMEOUT,
    BoundFlags,
    ModelSettings,
    resolve_settings,
)

SECRET_KEY = "sk-test-0123456789abcdef"
ALL_KEYS = {"OPENAI_API_KEY": "key-openai", "DEEPSEEK_API_KEY": "key-deepseek", "DASHSCOPE_API_KEY": "key-qwen"}


def test_nothing_configured_is_offline_and_silent() -> None:
    settings = resolve_settings(None, None, 0.2, env={})

    assert settings.offline and settings.model == "offline"
    assert settings.notice is None
    assert settings.endpoint == "offline"


@pytest.mark.parametrize("variable", ["OPENAI_API_KEY", "DEEPSEEK_API_KEY"])
def test_an_exported_key_alone_makes_no_paid_call_and_says_how_to_use_it(variable: str) -> None:
    settings = resolve_settings(None, None, 0.2, env={variable: SECRET_KEY})

    assert settings.offline
    assert settings.notice is not None
    assert variable in settings.notice and "--model" in settings.notice and "STUDYPLAN_MODEL" in settings.notice
    assert SECRET_KEY not in settings.notice


def test_model_offline_wins_over_a_configured_endpoint() -> None:
    env = {"OPENAI_API_KEY": SECRET_KEY, "OPENAI_BASE_URL": "http://localhost:11434/v1"}
    assert resolve_settings("offline", None, 0.2, env=env).offline


@pytest.mark.parametrize(
    ("model", "served", "base_url", "api_key"),
    [
        ("deepseek-chat", "deepseek-chat", "https://api.deepseek.com/v1", "key-deepseek"),
        ("deepseek/deepseek-reasoner", "deepseek-reasoner", "https://api.deepseek.com/v1", "key-deepseek"),
        ("qwen-plus", "qwen-plus", "https://dashscope.aliyuncs.com/compatible-mode/v1", "key-qwen"),
        ("qwen/qwen-max", "qwen-max", "https://dashscope.aliyuncs.com/compatible-mode/v1", "key-qwen"),
        ("openai/gpt-4o-mini", "gpt-4o-mini", "https://api.openai.com/v1", "key-openai"),
        ("gpt-4o-mini", "gpt-4o-mini", "https://api.openai.com/v1", "key-openai"),
        ("ollama/qwen2.5:7b", "qwen2.5:7b", "http://localhost:11434/v1", PLACEHOLDER_API_KEY),
        ("local/qwen2.5-coder-0.5b", "qwen2.5-coder-0.5b", "http://127.0.0.1:8080/v1", PLACEHOLDER_API_KEY),
        ("llamacpp/qwen", "qwen", "http://127.0.0.1:8080/v1", PLACEHOLDER_API_KEY),
        ("vllm/Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B-Instruct", "http://127.0.0.1:8000/v1", PLACEHOLDER_API_KEY),
    ],
)
def test_presets_know_their_base_url_and_key_variable(model: str, served: str, base_url: str, api_key: str) -> None:
    settings = resolve_settings(model, None, 0.2, env=ALL_KEYS)

    assert (settings.model, settings.base_url, settings.api_key) == (served, base_url, api_key)
    assert not settings.offline


def test_a_local_preset_never_gets_a_key_exported_for_another_service() -> None:
    settings = resolve_settings("ollama/llama3.1", None, 0.0, env={"OPENAI_API_KEY": SECRET_KEY})
    assert settings.api_key == PLACEHOLDER_API_KEY
    # A custom endpoint follows the OpenAI convention: OPENAI_API_KEY goes with the base URL.
    custom = resolve_settings("llama3.1", "http://localhost:11434/v1", 0.0, env={"OPENAI_API_KEY": SECRET_KEY})
    assert custom.api_key == SECRET_KEY


def test_a_preset_without_its_key_names_the_variable_and_the_keys_command() -> None:
    with pytest.raises(UsageError) as raised:
        resolve_settings("deepseek-chat", None, 0.2, env={"OPENAI_API_KEY": SECRET_KEY})

    assert "DEEPSEEK_API_KEY" in str(raised.value)
    assert "studyplan keys set deepseek" in str(raised.value)


def test_the_keys_file_supplies_a_key_the_environment_lacks() -> None:
    settings = resolve_settings("qwen-plus", None, 0.2, env={}, keys={"dashscope": "from-file"})
    assert settings.api_key == "from-file"
    assert "DASHSCOPE_API_KEY" in settings.key_hint

    from_env = resolve_settings("qwen-plus", None, 0.2, env=ALL_KEYS, keys={"dashscope": "from-file"})
    assert from_env.api_key == "key-qwen"


def test_a_base_url_is_matched_back_to_its_provider_for_the_key() -> None:
    settings = resolve_settings("deepseek-chat", "https://api.deepseek.com", 0.2, env=ALL_KEYS)
    assert (settings.base_url, settings.api_key) == ("https://api.deepseek.com", "key-deepseek")


def test_base_url_flag_overrides_a_preset_but_the_environment_does_not() -> None:
    env = {**ALL_KEYS, "OPENAI_BASE_URL": "http://localhost:11434/v1"}

    assert resolve_settings("deepseek-chat", None, 0.2, env=env).base_url == "https://api.deepseek.com/v1"
    moved = resolve_settings("ollama/qwen2.5:7b", "http://gpu-box:11434/v1", 0.2, env=env)
    assert (moved.model, moved.base_url) == ("qwen2.5:7b", "http://gpu-box:11434/v1")
    assert moved.api_key == PLACEHOLDER_API_KEY
    # A name no preset knows goes to the endpoint the environment names, with its conventional key.
    custom = resolve_settings("llama3.1", None, 0.2, env=env)
    assert (custom.base_url, custom.api_key) == ("http://localhost:11434/v1", "key-openai")


def test_precedence_flag_then_environment_then_config_file() -> None:
    config = {"model": "ollama/from-config", "base_url": "http://localhost:9999/v1"}

    assert resolve_settings(None, None, 0.2, env={}, config=config).model == "from-config"
    env = {"STUDYPLAN_MODEL": "ollama/from-env"}
    assert resolve_settings(None, None, 0.2, env=env, config=config).model == "from-env"
    assert resolve_settings("ollama/from-flag", None, 0.2, env=env, config=config).model == "from-flag"
    custom = resolve_settings(None, None, 0.2, env={}, config={"model": "my-model", "base_url": "http://localhost:9/v1"})
    assert (custom.model, custom.base_url) == ("my-model", "http://localhost:9/v1")


def test_a_name_no_server_is_known_for_asks_which_server() -> None:
    with pytest.raises(UsageError, match=r"ollama/llama3\.1"):
        resolve_settings("llama3.1", None, 0.2, env={"OPENAI_API_KEY": SECRET_KEY})


def test_an_endpoint_without_a_model_needs_one() -> None:
    with pytest.raises(UsageError, match="--model is required with a custom endpoint"):
        resolve_settings(None, "http://localhost:11434/v1", 0.2, env={})
    # OpenAI's own endpoint has a default model.
    assert resolve_settings(None, "https://api.openai.com/v1", 0.2, env=ALL_KEYS).model == "gpt-4o-mini"


def test_time_bounds_default_longer_on_this_machine() -> None:
    remote = resolve_settings("deepseek-chat", None, 0.2, env=ALL_KEYS).bounds
    local = resolve_settings("ollama/qwen2.5:7b", None, 0.2, env={}).bounds

    assert (remote.timeout, remote.deadline, remote.max_tokens) == (REMOTE_TIMEOUT, REMOTE_DEADLINE, DEFAULT_MAX_TOKENS)
    assert (local.timeout, local.deadline) == (LOCAL_TIMEOUT, LOCAL_DEADLINE)
    assert local.timeout > remote.timeout


def test_time_bounds_from_flags_environment_and_config() -> None:
    env = {"STUDYPLAN_TIMEOUT": "30", "STUDYPLAN_DEADLINE": "90", "STUDYPLAN_MAX_TOKENS": "512"}
    config = {"timeout": 10, "deadline": 20, "max_tokens": 256}

    from_env = resolve_settings("ollama/m", None, 0.2, env=env, config=config).bounds
    assert (from_env.timeout, from_env.deadline, from_env.max_tokens) == (30, 90, 512)
    from_config = resolve_settings("ollama/m", None, 0.2, env={}, config=config).bounds
    assert (from_config.timeout, from_config.deadline, from_config.max_tokens) == (10, 20, 256)
    flags = BoundFlags(timeout=5, deadline=6, max_tokens=7)
    from_flags = resolve_settings("ollama/m", None, 0.2, env=env, config=config, flags=flags).bounds
    assert (from_flags.timeout, from_flags.deadline, from_flags.max_tokens) == (5, 6, 7)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"STUDYPLAN_TIMEOUT": "soon"}, "STUDYPLAN_TIMEOUT must be a number"),
        ({"STUDYPLAN_DEADLINE": "0"}, "STUDYPLAN_DEADLINE must be more than 0"),
        ({"STUDYPLAN_MAX_TOKENS": "10.5"}, "--max-tokens must be a whole number"),
    ],
)
def test_unusable_time_bounds_are_usage_errors(env: dict[str, str], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        resolve_settings("ollama/m", None, 0.2, env=env)


@pytest.mark.parametrize(
    ("model", "base_url", "temperature", "message"),
    [
        ("llama3.1", "localhost:11434", 0.2, "must start with http"),
        (None, None, 3.0, "between 0 and 2"),
    ],
)
def test_unusable_settings_are_usage_errors(
    model: str | None, base_url: str | None, temperature: float, message: str
) -> None:
    with pytest.raises(UsageError, match=message):
        resolve_settings(model, base_url, temperature, env={})


def test_the_key_is_never_in_the_settings_repr() -> None:
    settings = resolve_settings("openai/gpt-4o-mini", None, 0.2, env={"OPENAI_API_KEY": SECRET_KEY})
    assert isinstance(settings, ModelSettings)
    assert SECRET_KEY not in repr(settings)
