"""Topic and level vocabulary: Chinese and English aliases mapped to catalog topic keys and course levels.

The data lives in studyplan/data/vocabulary.json and is loaded once. Matching is tolerant of case, spaces,
hyphens and underscores. ASCII aliases only match as whole words, so "ML" is found in "学ML" but not inside
"HTML"; CJK aliases match anywhere, because Chinese has no spaces between words.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Literal

from rapidfuzz import fuzz, process

Level = Literal["beginner", "intermediate", "advanced"]
LEVELS: tuple[Level, ...] = ("beginner", "intermediate", "advanced")
Language = Literal["zh", "en"]

# Typos such as "pyhton" or "machin learning" still resolve; shorter words are too easy to confuse.
_FUZZY_MIN_LENGTH = 5
_FUZZY_CUTOFF = 80
# Separators ignored when comparing a text with an alias ("Machine-Learning" == "machine learning").
_IGNORED_CHARS = re.compile(r"[\s\-_.·'\"“”‘’《》「」()（）]+")
_ALIAS_SEPARATOR = r"[\s_\-]*"


@dataclass(frozen=True)
class _Vocabulary:
    labels: dict[str, dict[str, str]]  # topic key -> {"zh": ..., "en": ...}
    prerequisites: dict[str, tuple[str, ...]]  # topic key -> topic keys to learn first
    topic_by_alias: dict[str, str]  # squashed alias (and squashed key) -> topic key
    topic_pattern: re.Pattern[str]
    level_labels: dict[Level, dict[str, str]]
    level_by_alias: dict[str, Level]
    level_pattern: re.Pattern[str]


def _squash(text: str) -> str:
    """The comparison form of a text: case-folded, without spaces, hyphens, underscores, dots or quotes."""
    return _IGNORED_CHARS.sub("", text.casefold())


def _alias_regex(alias: str) -> str:
    """A regex for one alias: separators optional between its words, word boundaries on ASCII ends."""
    words = [word for word in re.split(r"[\s_\-]+", alias.strip()) if word]
    body = _ALIAS_SEPARATOR.join(re.escape(word) for word in words)
    # Python's \b treats CJK characters as word characters, so "学ML" would not match; check ASCII only.
    if body[:1].isascii() and body[:1].isalnum():
        body = r"(?<![a-z0-9])" + body
    if alias[-1:].isascii() and alias[-1:].isalnum():
        body += r"(?![a-z0-9])"
    return body


def _alternation(aliases: list[str]) -> re.Pattern[str]:
    # Longest alias first, so "machine learning basics" wins over "machine learning" at the same position.
    ordered = sorted(set(aliases), key=len, reverse=True)
    return re.compile("|".join(_alias_regex(alias) for alias in ordered), re.IGNORECASE)


@cache
def _vocabulary() -> _Vocabulary:
    data_file = resources.files("studyplan").joinpath("data/vocabulary.json")
    data = json.loads(data_file.read_text(encoding="utf-8"))

    labels: dict[str, dict[str, str]] = {}
    prerequisites: dict[str, tuple[str, ...]] = {}
    topic_by_alias: dict[str, str] = {}
    topic_aliases: list[str] = []
    for key, entry in data["topics"].items():
        labels[key] = {"zh": entry["zh"], "en": entry["en"]}
        prerequisites[key] = tuple(entry["prerequisites"])
        for alias in [key, entry["zh"], entry["en"], *entry["aliases"]]:
            topic_by_alias.setdefault(_squash(alias), key)
            topic_aliases.append(alias)

    level_labels: dict[Level, dict[str, str]] = {}
    level_by_alias: dict[str, Level] = {}
    level_aliases: list[str] = []
    for level in LEVELS:
        entry = data["levels"][level]
        level_labels[level] = {"zh": entry["zh"], "en": entry["en"]}
        for alias in [level, *entry["aliases"]]:
            level_by_alias.setdefault(_squash(alias), level)
            level_aliases.append(alias)

    return _Vocabulary(
        labels=labels,
        prerequisites=prerequisites,
        topic_by_alias=topic_by_alias,
        topic_pattern=_alternation(topic_aliases),
        level_labels=level_labels,
        level_by_alias=level_by_alias,
        level_pattern=_alternation(level_aliases),
    )


def all_topics() -> list[str]:
    """Every topic key the vocabulary knows, in the order of vocabulary.json."""
    return list(_vocabulary().labels)


def find_topics(text: str) -> list[str]:
    """All topic keys mentioned anywhere in a free sentence, in order of first appearance, without repeats.

    "零基础3个月学机器学习" -> ["machine_learning"]; "HTML and CSS" -> ["web_frontend"] (no "ML" in "HTML").
    """
    vocabulary = _vocabulary()
    found: list[str] = []
    for match in vocabulary.topic_pattern.finditer(text):
        key = vocabulary.topic_by_alias[_squash(match.group())]
        if key not in found:
            found.append(key)
    return found


def resolve_topic(text: str) -> str | None:
    """The topic key for a topic given as a key, a Chinese or English alias, or a slightly misspelled alias.

    Tries an exact (case/space/hyphen-insensitive) match first, then an alias inside the text, then a fuzzy
    match for typos. None when nothing fits.
    """
    vocabulary = _vocabulary()
    squashed = _squash(text)
    if not squashed:
        return None
    if squashed in vocabulary.topic_by_alias:
        return vocabulary.topic_by_alias[squashed]
    mentioned = find_topics(text)
    if mentioned:
        return mentioned[0]
    if len(squashed) >= _FUZZY_MIN_LENGTH:
        best = process.extractOne(
            squashed, list(vocabulary.topic_by_alias), scorer=fuzz.ratio, score_cutoff=_FUZZY_CUTOFF
        )
        if best is not None:
            return vocabulary.topic_by_alias[best[0]]
    return None


def normalize_level(text: str) -> Level | None:
    """The level a text names ("零基础", "入门" -> "beginner"; "进阶" -> "intermediate"), or None."""
    vocabulary = _vocabulary()
    squashed = _squash(text)
    if squashed in vocabulary.level_by_alias:
        return vocabulary.level_by_alias[squashed]
    return find_level(text)


def find_level(text: str) -> Level | None:
    """The first level mentioned in a free sentence ("零基础3个月学机器学习" -> "beginner"), or None."""
    vocabulary = _vocabulary()
    match = vocabulary.level_pattern.search(text)
    return vocabulary.level_by_alias[_squash(match.group())] if match else None


def topic_label(key: str, lang: Language = "zh") -> str:
    """A readable name for a topic key ("机器学习" / "Machine learning"); unknown keys are returned as is."""
    labels = _vocabulary().labels.get(key)
    return labels[lang] if labels else key


def level_label(level: Level, lang: Language = "zh") -> str:
    """A readable name for a level ("入门" / "Beginner")."""
    return _vocabulary().level_labels[level][lang]


def topic_prerequisites(key: str) -> list[str]:
    """Topic keys a complete beginner should study before `key` (direct ones only); [] if none/unknown."""
    return list(_vocabulary().prerequisites.get(key, ()))
