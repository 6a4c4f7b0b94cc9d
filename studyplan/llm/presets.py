"""The providers studyplan knows by name: each one's base URL and the variable its API key usually lives in.

A model is named either `provider/NAME` (`ollama/qwen2.5:7b`, `openai/gpt-4o-mini`, `local/NAME`) or by a
name only one provider serves (`deepseek-chat`, `qwen-plus`, `gpt-4o-mini`). A base URL the user gives is
matched back to a provider by its host, so `--base-url https://api.deepseek.com` still finds DEEPSEEK_API_KEY.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from urllib.parse import urlsplit


@dataclass(frozen=True)
class Provider:
    name: str  # also the name of its entry in the keys file (`studyplan keys set deepseek`)
    base_url: str
    key_variable: str | None  # None: a local server that needs no key

    @property
    def local(self) -> bool:
        return self.key_variable is None


OPENAI = Provider("openai", "https://api.openai.com/v1", "OPENAI_API_KEY")
PROVIDERS: dict[str, Provider] = {
    provider.name: provider
    for provider in (
        OPENAI,
        Provider("deepseek", "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY"),
        Provider("dashscope", "https://dashscope.aliyuncs.com/compatible-mode/v1", "DASHSCOPE_API_KEY"),
        Provider("ollama", "http://localhost:11434/v1", None),
        Provider("llamacpp", "http://127.0.0.1:8080/v1", None),
        Provider("vllm", "http://127.0.0.1:8000/v1", None),
    )
}
# The prefixes a model name may carry, and the provider each one means.
PREFIXES: dict[str, str] = {
    "openai": "openai",
    "deepseek": "deepseek",
    "dashscope": "dashscope",
    "qwen": "dashscope",
    "ollama": "ollama",
    "llamacpp": "llamacpp",
    "llama.cpp": "llamacpp",
    "local": "llamacpp",
    "vllm": "vllm",
}
# Names only one provider serves. Names with a tag (`qwen2.5:7b`) are Ollama's, so they match nothing here.
_KNOWN_NAMES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^deepseek-[\w.-]+$"), "deepseek"),
    (re.compile(r"^(qwen|qwq)[\w.]*-[\w.-]+$"), "dashscope"),
    (re.compile(r"^(gpt-|chatgpt-|o[1-9](-|$))[\w.-]*$"), "openai"),
]
KEY_VARIABLES: tuple[str, ...] = tuple(p.key_variable for p in PROVIDERS.values() if p.key_variable)


@dataclass(frozen=True)
class ModelName:
    """A model name as the user wrote it, split into the provider it names (if any) and the served name."""

    served: str  # what the endpoint is asked for (`qwen2.5:7b` for `ollama/qwen2.5:7b`)
    provider: Provider | None


def parse_model_name(name: str) -> ModelName:
    prefix, slash, rest = name.partition("/")
    if slash and rest and prefix.lower() in PREFIXES:
        return ModelName(rest, PROVIDERS[PREFIXES[prefix.lower()]])
    for pattern, provider in _KNOWN_NAMES:
        if pattern.match(name):
            return ModelName(name, PROVIDERS[provider])
    return ModelName(name, None)


def provider_for_url(base_url: str) -> Provider | None:
    """The known remote provider whose host this URL is on (local ports are shared by many servers: none)."""
    host = host_of(base_url)
    for provider in PROVIDERS.values():
        if not provider.local and host_of(provider.base_url) == host:
            return provider
    return None


def host_of(base_url: str) -> str:
    return (urlsplit(base_url).hostname or "").lower()


def is_local_url(base_url: str) -> bool:
    """True for a server on this machine (localhost, 127.0.0.0/8, ::1): likely one slot on a CPU."""
    host = host_of(base_url)
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
