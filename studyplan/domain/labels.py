"""The plan's wording, from package data (data/plan_labels.json): Markdown labels per language, the
reader's aliases for headings and line keys, the checker's messages, and the plan template an LLM is shown."""

from __future__ import annotations

import functools
import json
import re
from datetime import date
from importlib import resources
from typing import Any

from studyplan.domain.plan_model import LANGS, Lang


@functools.cache
def plan_labels() -> dict[str, Any]:
    """data/plan_labels.json: Markdown wording per language, the parser's aliases, the checker's messages."""
    text = resources.files("studyplan").joinpath("data/plan_labels.json").read_text(encoding="utf-8")
    return json.loads(text)


def render_labels(lang: Lang) -> dict[str, Any]:
    """The Markdown wording of one language (headings, line labels, weekday names)."""
    return plan_labels()["render"][lang]


def plan_template(lang: Lang) -> str:
    """The empty plan template an LLM is shown, in `lang` ("zh" or "en")."""
    if lang not in LANGS:
        raise ValueError(f"unknown plan language {lang!r}; expected one of {LANGS}")
    path = resources.files("studyplan").joinpath(f"prompts/plan_template_{lang}.md")
    return path.read_text(encoding="utf-8")


def weekday_label(day: date, lang: Lang) -> str:
    return render_labels(lang)["weekdays"][day.weekday()]


def dated(day: date, lang: Lang) -> str:
    """A date as the plan writes it: "2026-11-30（周一）", "2026-11-30 (Mon)"."""
    return render_labels(lang)["date"].format(date=day.isoformat(), weekday=weekday_label(day, lang))


def format_hours(value: float) -> str:
    return f"{value:g}"


def normalize_label(text: str) -> str:
    """A label compared without spacing, emphasis or case: "**Start date**" → "startdate"."""
    return re.sub(r"[\s*_`]+", "", text).lower()


@functools.cache
def aliases() -> dict[str, tuple[str, ...]]:
    """Every alias list of plan_labels.json, normalized."""
    return {key: tuple(normalize_label(a) for a in values) for key, values in plan_labels()["aliases"].items()}


def key_of(label: str, keys: tuple[str, ...]) -> str | None:
    """Which of `keys` the label names exactly (by any alias), or None."""
    normalized = normalize_label(label)
    return next((key for key in keys if normalized in aliases()[key]), None)


def starts_with_alias(label: str, key: str) -> bool:
    normalized = normalize_label(label)
    return any(normalized.startswith(alias) for alias in aliases()[key])


def is_self_check(text: str) -> bool:
    """A self-check label: it contains a self-check word ("自检", "Self-check") or starts with a weaker one
    ("Review", "复盘") that could otherwise be a week's topic."""
    normalized = normalize_label(text)
    return any(alias in normalized for alias in aliases()["self_check"]) or starts_with_alias(text, "self_check_prefix")
