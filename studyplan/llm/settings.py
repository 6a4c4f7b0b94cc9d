"""Which model to talk to, and for how long: resolved from flags, the environment and the config file.

The model: `--model`, else STUDYPLAN_MODEL, else the config file's `model`. With none of them (and no endpoint
chosen) the run is offline, so `studyplan "..."` works on a fresh machine and never makes a paid call the user
did not choose: an OPENAI_API_KEY exported for other tools, alone, selects nothing (a notice says how to use it).

The endpoint: `--base-url`, else the preset's URL when the model names a provider (`deepseek-chat`,
`ollama/qwen2.5:7b`, see presets.py), else OPENAI_BASE_URL, else the config file's `base_url`.

The key: the provider's usual variable (DEEPSEEK_API_KEY, ...), else the keys file's entry for the provider
(for an endpoint no preset knows: OPENAI_API_KEY, else the keys file's entry for its host name; a preset
for a local server, such as ollama/ or local/, gets no key unless the keys file has one for it).

Time bounds: `--timeout` (one reply), `--deadline` (the whole run) and `--max-tokens`, else STUDYPLAN_TIMEOUT,
STUDYPLAN_DEADLINE, STUDYPLAN_MAX_TOKENS, else the config file, else defaults that are longer for a server on
this machine (a CPU model may need minutes for one reply).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from studyplan.errors import UsageError
from studyplan.llm.presets import (
    KEY_VARIABLES,
    OPENAI,
    Provider,
    host_of,
    is_local_url,
    parse_model_name,
    provider_for_url,
)

OFFLINE_MODEL = "offline"
DEFAULT_OPENAI_MODEL = "gpt-4o-mini"
# Local servers (Ollama, vLLM, llama.cpp) ignore the key, but the OpenAI SDK insists on one.
PLACEHOLDER_API_KEY = "not-needed"
REDACTED = "***"
# A plan the code composes needs a short reply; a model writing its own Markdown plan needs ~1,500 tokens.
DEFAULT_MAX_TOKENS = 2048
REMOTE_TIMEOUT, REMOTE_DEADLINE = 120.0, 600.0
# Measured: a 0.5B model on 2 CPU cores took 693 s for its first reply without a token limit.
LOCAL_TIMEOUT, LOCAL_DEADLINE = 600.0, 1800.0


@dataclass(frozen=True)
class TimeBounds:
    timeout: float  # seconds for one model reply, retries included
    deadline: float  # seconds for the whole run
    max_tokens: int  # most tokens one reply may generate


@dataclass(frozen=True)
class ModelSettings:
    model: str
    base_url: str | None  # None: offline
    api_key: str | None = field(repr=False)  # never in repr(), so never in a log line or traceback
    temperature: float
    offline: bool
    bounds: TimeBounds = field(default_factory=lambda: TimeBounds(REMOTE_TIMEOUT, REMOTE_DEADLINE, DEFAULT_MAX_TOKENS))
    key_hint: str = "OPENAI_API_KEY"  # where the key came from or belongs, for "refused the key" messages
    notice: str | None = field(default=None, compare=False)  # said once at the start of the run

    @property
    def endpoint(self) -> str:
        """What the header of a run names: the base URL, or 'offline'."""
        return self.base_url or OFFLINE_MODEL


@dataclass(frozen=True)
class BoundFlags:
    """The time-bound flags as given (None: not given)."""

    timeout: float | None = None
    deadline: float | None = None
    max_tokens: int | None = None


def _setting(value: Any) -> str | None:
    """An empty or blank flag/variable counts as unset (`OPENAI_BASE_URL=` in a shell profile)."""
    text = str(value).strip() if value is not None else ""
    return text or None


def resolve_settings(
    model_flag: str | None,
    base_url_flag: str | None,
    temperature: float,
    env: Mapping[str, str] = os.environ,
    *,
    config: Mapping[str, Any] | None = None,
    keys: Mapping[str, str] | None = None,
    flags: BoundFlags | None = None,
    check_key: bool = True,
) -> ModelSettings:
    """Combine flags, environment and config file (see the module docstring); UsageError for unusable ones.

    `check_key=False` checks a model name only (`config set model`): a missing key is not yet an error."""
    if not 0.0 <= temperature <= 2.0:
        raise UsageError(f"--temperature must be between 0 and 2, got {temperature}.")
    config = config or {}
    keys = keys or {}
    model = _setting(model_flag) or _setting(env.get("STUDYPLAN_MODEL")) or _setting(config.get("model"))
    if model == OFFLINE_MODEL:
        return _offline(temperature)
    name = parse_model_name(model) if model else None
    base_url = (
        _setting(base_url_flag)
        or (name.provider.base_url if name and name.provider else None)
        or _setting(env.get("OPENAI_BASE_URL"))
        or _setting(config.get("base_url"))
    )
    if model is None and base_url is None:
        return _offline(temperature, _unused_key_notice(env))
    if base_url is not None and any(character.isspace() or not character.isprintable() for character in base_url):
        raise UsageError(
            f"the endpoint URL holds a space, line break or control character ({base_url!r}): check "
            "--base-url, OPENAI_BASE_URL or the config file's base_url"
        )
    if base_url is not None and not base_url.startswith(("http://", "https://")):
        raise UsageError(
            f"--base-url must start with http:// or https:// (got {base_url!r}), e.g. http://localhost:11434/v1."
        )
    if name is None:
        if base_url is None or host_of(base_url) != host_of(OPENAI.base_url):
            raise UsageError(
                "--model is required with a custom endpoint (--base-url / OPENAI_BASE_URL / config base_url): "
                "name a model it serves, e.g. --model llama3.1."
            )
        name = parse_model_name(DEFAULT_OPENAI_MODEL)
    if base_url is None:
        raise UsageError(
            f"--model {model}: which server serves it? Name one, e.g. --model ollama/{model} or "
            f"--model local/{model}, or pass --base-url."
        )
    # A known host decides the key; else the preset, when its own URL is used or it is a local server anywhere.
    preset = name.provider
    provider = provider_for_url(base_url) or (
        preset if preset is not None and (preset.local or base_url == preset.base_url) else None
    )
    api_key, key_hint = _api_key(provider, base_url, env, keys)
    if api_key is None and not check_key:
        api_key = PLACEHOLDER_API_KEY
    if api_key is None:
        assert provider is not None and provider.key_variable is not None
        raise UsageError(
            f"--model {model} needs an API key: export {provider.key_variable}=..., or run "
            f"`studyplan keys set {provider.name}` (or use --model offline)."
        )
    bounds = _time_bounds(flags or BoundFlags(), env, config, local=is_local_url(base_url))
    return ModelSettings(name.served, base_url.rstrip("/"), api_key, temperature, False, bounds, key_hint)


def _offline(temperature: float, notice: str | None = None) -> ModelSettings:
    return ModelSettings(OFFLINE_MODEL, None, None, temperature, offline=True, key_hint="", notice=notice)


def _unused_key_notice(env: Mapping[str, str]) -> str | None:
    variable = next((name for name in KEY_VARIABLES if _setting(env.get(name))), None)
    if variable is None:
        return None
    return (
        f"{variable} is set, but no model was chosen, so this run is offline (no paid call). To use it, pass "
        "--model (e.g. openai/gpt-4o-mini, deepseek-chat, qwen-plus), set STUDYPLAN_MODEL, or run "
        "`studyplan config set model NAME`."
    )


def _api_key(
    provider: Provider | None, base_url: str, env: Mapping[str, str], keys: Mapping[str, str]
) -> tuple[str | None, str]:
    """The key for this endpoint and where it comes from; (None, ...) when a provider needs one and has none."""
    if provider is not None:
        if provider.key_variable is None:
            return _setting(keys.get(provider.name)) or PLACEHOLDER_API_KEY, f"studyplan keys set {provider.name}"
        hint = f"{provider.key_variable} or `studyplan keys set {provider.name}`"
        return _setting(env.get(provider.key_variable)) or _setting(keys.get(provider.name)), hint
    host = host_of(base_url)
    # The convention of OpenAI-compatible tools: a custom base URL goes with OPENAI_API_KEY.
    key = _setting(env.get("OPENAI_API_KEY")) or _setting(keys.get(host)) or PLACEHOLDER_API_KEY
    return key, f"OPENAI_API_KEY or `studyplan keys set {host}`"


def _time_bounds(flags: BoundFlags, env: Mapping[str, str], config: Mapping[str, Any], local: bool) -> TimeBounds:
    timeout = _number(flags.timeout, env, config, "timeout", LOCAL_TIMEOUT if local else REMOTE_TIMEOUT)
    deadline = _number(flags.deadline, env, config, "deadline", LOCAL_DEADLINE if local else REMOTE_DEADLINE)
    max_tokens = _number(flags.max_tokens, env, config, "max_tokens", DEFAULT_MAX_TOKENS)
    if max_tokens != int(max_tokens):
        raise UsageError(f"--max-tokens must be a whole number, got {max_tokens:g}.")
    return TimeBounds(timeout, deadline, int(max_tokens))


def _number(flag: float | None, env: Mapping[str, str], config: Mapping[str, Any], name: str, default: float) -> float:
    """A positive number from the flag, STUDYPLAN_<NAME>, or the config file, in that order."""
    variable = f"STUDYPLAN_{name.upper()}"
    flag_name = f"--{name.replace('_', '-')}"
    sources = [(flag_name, flag), (variable, env.get(variable)), (f"config {name}", config.get(name))]
    for where, value in sources:
        text = _setting(value)
        if text is None:
            continue
        try:
            number = float(text)
        except ValueError:
            raise UsageError(f"{where} must be a number, got {text!r}.") from None
        if not number > 0 or number == float("inf"):
            raise UsageError(f"{where} must be more than 0, got {text}.")
        return number
    return default


def redact(text: str, secrets: Iterable[str | None]) -> str:
    """Replace every occurrence of each secret in text, for traces and error messages."""
    # Longest first, so a secret that contains another is replaced whole.
    for secret in sorted((secret for secret in secrets if secret), key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return text
