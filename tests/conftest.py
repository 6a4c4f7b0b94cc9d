"""Fixtures for every test: no network beyond loopback, no leaking of the developer's environment."""

from __future__ import annotations

import ipaddress
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from scripted_server import ScriptedServer

pytest_plugins = ["pytester"]  # lets the guard's own test run a test session that misbehaves

LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}
# Variables that would otherwise point a test at a real endpoint, key or catalog.
ISOLATED_ENV_VARS = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "DEEPSEEK_API_KEY",
    "DASHSCOPE_API_KEY",
    "STUDYPLAN_MODEL",
    "STUDYPLAN_CATALOG",
    "STUDYPLAN_TIMEOUT",
    "STUDYPLAN_DEADLINE",
    "STUDYPLAN_MAX_TOKENS",
    "STUDYPLAN_PLANS_DIR",
)


class NetworkBlocked(RuntimeError):
    """A test tried to reach a non-loopback address.

    Deliberately not an OSError: HTTP clients would turn that into an ordinary connection error, which a
    test expecting "unreachable" could mistake for success. The guard also fails the test at teardown.
    """


def _is_loopback(host: Any) -> bool:
    if not isinstance(host, str):
        return False
    name = host.strip("[]").split("%")[0].lower()
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


class NetworkGuard:
    """Refuses connections and name lookups beyond loopback, remembering each attempt."""

    def __init__(self) -> None:
        self.violations: list[str] = []

    def refuse(self, what: str) -> NetworkBlocked:
        self.violations.append(what)
        return NetworkBlocked(f"Tests must not use the network: blocked {what} (only 127.0.0.1/::1 allowed).")

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        original_connect = socket.socket.connect
        original_connect_ex = socket.socket.connect_ex
        original_getaddrinfo = socket.getaddrinfo
        guard = self

        def check_address(sock: socket.socket, address: Any) -> None:
            if sock.family in (socket.AF_INET, socket.AF_INET6) and not _is_loopback(address[0]):
                raise guard.refuse(f"connection to {address[0]}:{address[1]}")

        def connect(sock: socket.socket, address: Any) -> None:
            check_address(sock, address)
            original_connect(sock, address)

        def connect_ex(sock: socket.socket, address: Any) -> int:
            check_address(sock, address)
            return original_connect_ex(sock, address)

        def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
            # A literal IP needs no DNS (connect() checks it); any other name but localhost would.
            if host is not None and not _is_loopback(host) and not _is_ip_literal(host):
                raise guard.refuse(f"name lookup of {host!r}")
            return original_getaddrinfo(host, *args, **kwargs)

        monkeypatch.setattr(socket.socket, "connect", connect)
        monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
        monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


def _is_ip_literal(host: Any) -> bool:
    text = host.decode() if isinstance(host, bytes) else str(host)
    try:
        ipaddress.ip_address(text.strip("[]").split("%")[0])
    except ValueError:
        return False
    return True


@pytest.fixture(autouse=True)
def network_guard(monkeypatch: pytest.MonkeyPatch) -> Iterator[NetworkGuard]:
    """Every test runs offline; an attempt that some library swallowed still fails the test here."""
    guard = NetworkGuard()
    guard.install(monkeypatch)
    yield guard
    if guard.violations:
        attempts = "; ".join(guard.violations)
        pytest.fail(f"Tests must not use the network; attempted: {attempts}", pytrace=False)


@pytest.fixture(autouse=True)
def isolated_environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The developer's own key, endpoint, model, catalog, config, keys and run log must not change what a test
    sees, and no test writes into the developer's own folders. The user folders live outside pytest's tmp
    folders, so tests that list what a run wrote there see only the run's own files."""
    for name in ISOLATED_ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    with tempfile.TemporaryDirectory(prefix="studyplan-user-") as folder:
        user = Path(folder)
        monkeypatch.setenv("STUDYPLAN_CONFIG_DIR", str(user / "config"))
        monkeypatch.setenv("STUDYPLAN_DATA_DIR", str(user / "data"))
        yield user


@pytest.fixture
def scripted_server() -> Iterator[ScriptedServer]:
    """An OpenAI-compatible server on 127.0.0.1; `.base_url` ends in /v1, script it with `.add(...)`."""
    with ScriptedServer() as server:
        yield server
    assert not server.invalid, f"requests a strict OpenAI-compatible server refuses: {server.invalid}"
