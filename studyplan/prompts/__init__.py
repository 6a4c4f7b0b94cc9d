"""Prompts, few-shot examples and reminders: package data, loaded by name."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources


@cache
def load_text(name: str) -> str:
    """The text of prompts/<name>, e.g. load_text("system.md")."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


@cache
def reminders() -> dict[str, str]:
    """Short messages the loop sends the model when it strays (not saved, repeated call, step limit...)."""
    return json.loads(load_text("reminders.json"))
