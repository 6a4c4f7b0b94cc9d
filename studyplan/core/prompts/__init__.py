"""The loop's own texts (the text protocol's format, the generic reminders): package data, loaded by name.

A task's prompts (what the agent is for, its examples) live with the task and are given to the Agent.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources


@cache
def load_text(name: str) -> str:
    """The text of core/prompts/<name>, e.g. load_text("text_protocol.md")."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


@cache
def default_reminders() -> dict[str, str]:
    """Short messages the loop sends the model when it strays (not done, repeated call, step limit...)."""
    reminders: dict[str, str] = json.loads(load_text("reminders.json"))
    return reminders
