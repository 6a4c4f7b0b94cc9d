"""Which model to talk to, resolved from flags and the environment the way OpenAI-compatible tools do.

Precedence: command-line flag, then environment (OPENAI_API_KEY, OPENAI_BASE_URL, STUDYPLAN_MODEL).
With nothing configured the run is offline, so `studyplan "..."` works on a fresh machine.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from studyplan.errors import UsageError

OFFLINE_MODEL = "offline"
DEFAULT_MODEL = "gpt-4o-mini"
# Local servers (Ollama, vLLM, llama.cpp) ignore the key, but the OpenAI SDK insists on one.
PLACEHOLDER_API_KEY = "not-needed"
REDACTED = "***"


@dataclass(frozen=True)
class ModelSettings:
    model: str
    base_url: str | None  # None means the SDK default, api.openai.com
    api_key: str | None = field(repr=False)  # never in repr(), so never in a log line or traceback
    temperature: float
    offline: bool


def _setting(value: str | None) -> str | None:
    """An empty or blank flag/variable counts as unset (`OPENAI_BASE_URL=` in a shell profile)."""
    return value.strip() if value and value.strip() else None


def resolve_settings(
    model_flag: str | None,
    base_url_flag: str | None,
    temperature: float,
    env: Mapping[str, str] = os.environ,
) -> ModelSettings:
    """Combine the --model/--base-url flags with the environment; UsageError for unusable combinations."""
    if not 0.0 <= temperature <= 2.0:
        raise UsageError(f"--temperature must be between 0 and 2, got {temperature}.")
    model = _setting(model_flag) or _setting(env.get("STUDYPLAN_MODEL"))
    base_url = _setting(base_url_flag) or _setting(env.get("OPENAI_BASE_URL"))
    api_key = _setting(env.get("OPENAI_API_KEY"))

    if model == OFFLINE_MODEL or (model is None and api_key is None and base_url is None):
        return ModelSettings(OFFLINE_MODEL, None, None, temperature, offline=True)
    if base_url is not None and not base_url.startswith(("http://", "https://")):
        raise UsageError(
            f"--base-url must start with http:// or https:// (got {base_url!r}), e.g. http://localhost:11434/v1."
        )
    if api_key is None and base_url is None:
        raise UsageError(
            f"--model {model} needs an endpoint: set OPENAI_API_KEY, or pass --base-url for a local server, "
            "or use --model offline."
        )
    if model is None:
        if base_url is not None:
            raise UsageError(
                "--model is required with a custom endpoint (--base-url / OPENAI_BASE_URL): "
                "name a model it serves, e.g. --model llama3.1."
            )
        model = DEFAULT_MODEL
    return ModelSettings(model, base_url, api_key or PLACEHOLDER_API_KEY, temperature, offline=False)


def redact(text: str, secrets: Iterable[str | None]) -> str:
    """Replace every occurrence of each secret in text, for traces and error messages."""
    # Longest first, so a secret that contains another is replaced whole.
    for secret in sorted((secret for secret in secrets if secret), key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return text
