"""Reading a learner's one-sentence goal: topic, level, duration, weekly hours and start date.

The parser is rule-based and deterministic. Whatever the goal leaves open is filled with a default and
recorded as an assumption, in the goal's language, so that the plan can say what it assumed. Goals that
cannot be planned at all (empty, no known topic, absurd durations or hours) raise a one-line UsageError.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache
from importlib import resources
from typing import Any

from studyplan.domain import vocabulary
from studyplan.domain.catalog import Level
from studyplan.engine.exams import Target, read_target
from studyplan.engine.time_phrases import CLAUSE_BREAK, Dates, Duration, hours_per_week, read_dates, read_duration
from studyplan.errors import NoMatchingTopic, UsageError
from studyplan.lang import Lang, detect_lang

MIN_WEEKS = 1
MAX_WEEKS = 156  # three years
DEFAULT_WEEKS = 12
MIN_HOURS_PER_WEEK = 1
MAX_HOURS_PER_WEEK = 84  # twelve hours a day, every day
# Beginners are given a little less time by default: a realistic evening-and-weekend pace.
DEFAULT_HOURS: dict[Level, float] = {"beginner": 8, "intermediate": 10, "advanced": 10}


@dataclass(frozen=True)
class Goal:
    raw: str
    lang: Lang
    topic: str  # main topic key
    extra_topics: tuple[str, ...]  # other topics the goal mentions
    known_topics: tuple[str, ...]  # topics the learner says they already know
    level: Level
    weeks: int
    hours_per_week: float
    start: date
    assumptions: tuple[str, ...]  # in the goal's language
    target: Target | None = None  # an exam target the goal names ("雅思6.5", "JLPT N2")


@cache
def load_phrases() -> dict[str, Any]:
    """The offline wording (goal messages and the planner's text), shipped as package data."""
    text = resources.files("studyplan.data").joinpath("offline_phrases.json").read_text(encoding="utf-8")
    return json.loads(text)


def _goal_phrases(lang: Lang) -> dict[str, Any]:
    return load_phrases()["goal"][lang]

# --- language, topics, level ---------------------------------------------------------------------------


# What the learner already knows: the captured span is searched for topics.
_KNOWN_ZH = [
    re.compile(r"(?:有|具备|具有)(.{1,20}?)(?:基础|经验|背景)"),
    re.compile(r"(?:学过|掌握了|(?<![想要])熟悉|用过|(?<![搞弄看读想])懂得?)(.{1,20}?)(?=[，,。；;、]|想|要|准备|打算|希望|$)"),
    re.compile(r"(?<![学不将机社理体])会(?:用|写)?(.{1,20}?)(?=[，,。；;、]|想|要|准备|打算|希望|$)"),
]
_KNOWN_EN = [
    re.compile(
        r"(?<!to )\b(?:know|knows|learned|learnt|studied|familiar with|comfortable with|experienced (?:with|in)|"
        r"experience (?:with|in)|background in|good at|can (?:code|program|write) (?:in )?|fluent in)\s+"
        r"(.{1,40}?)(?=[,.;]|\band\b|\bbut\b|\bwant|\bwould|\bneed|\bnow\b|$)",
        re.IGNORECASE,
    ),
    re.compile(r"\b(?:have|with)\s+(?:some\s+)?(.{1,25}?)\s+(?:experience|background|basics)\b", re.IGNORECASE),
]

_LEVEL_PATTERNS: list[tuple[Level, re.Pattern[str]]] = [
    (
        "beginner",
        re.compile(
            r"零基础|小白|入门|新手|从零|从头|没有?(?:任何)?基础|没学过|完全不会|初学|"
            r"\bbeginners?\b|from scratch|\bno (?:prior )?(?:experience|background)\b|\bnewbie\b|\bnovice\b|"
            r"\bnever (?:coded|programmed|learned|studied)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "advanced",
        re.compile(r"高级|精通|深入|专家|\badvanced\b|\bexpert\b|\bmaster(?:y)?\b|\bin[- ]depth\b", re.IGNORECASE),
    ),
    (
        "intermediate",
        re.compile(
            r"有(?:一定|一些|点|一点)?(?:的)?基础|进阶|中级|提高|提升|"
            r"\bintermediate\b|\bsome (?:experience|background)\b|\bimprove\b|\blevel up\b|\bnext level\b",
            re.IGNORECASE,
        ),
    ),
]


def _known_topics(text: str) -> list[str]:
    known: list[str] = []
    for clause in CLAUSE_BREAK.split(text):
        for pattern in [*_KNOWN_ZH, *_KNOWN_EN]:
            for match in pattern.finditer(clause):
                for topic in vocabulary.find_topics(match.group(1)):
                    if topic not in known:
                        known.append(topic)
    return known


def _main_topic(wanted: list[str]) -> str:
    """The first topic that is not a prerequisite of another wanted one ("Python 和机器学习" → 机器学习)."""

    def needs(topic: str, other: str, seen: frozenset[str] = frozenset()) -> bool:
        direct = vocabulary.topic_prerequisites(topic)
        return other in direct or any(needs(p, other, seen | {topic}) for p in direct if p not in seen)

    return next(
        (topic for topic in wanted if not any(needs(other, topic) for other in wanted if other != topic)),
        wanted[0],
    )


def _implied_topics(text: str, main_topic: str, wanted: list[str]) -> list[str]:
    """Topics a general wording implies: "web development" is a front end and a back end, unless the goal
    narrows it to the front end ("前端", "frontend")."""
    implied = load_phrases()["goal"]["implied_topics"]
    lowered = text.lower()
    found: list[str] = []
    for rule in implied:
        if main_topic != rule["topic"] or rule["adds"] in wanted:
            continue
        if any(term in lowered for term in rule["general_terms"]) and not any(
            term in lowered for term in rule["narrowing_terms"]
        ):
            found.append(rule["adds"])
    return found


def _level(text: str) -> Level | None:
    for level, pattern in _LEVEL_PATTERNS:
        if pattern.search(text):
            return level
    return None

# --- the goal ------------------------------------------------------------------------------------------


def _start_day(
    given: date | None, chosen: date | None, today: date, words: dict[str, Any], assumptions: list[str]
) -> date:
    """The first day: `chosen` (--start) wins over what the goal says; a past day becomes today."""
    if chosen is not None:
        return chosen
    if given is None:
        assumptions.append(words["default_start"].format(start=today.isoformat()))
        return today
    if given < today:
        assumptions.append(words["past_start"].format(given=given.isoformat(), start=today.isoformat()))
        return today
    return given


def _weeks(
    duration: Duration | None, dates: Dates, start: date, words: dict[str, Any], assumptions: list[str]
) -> int:
    """The plan's length: the duration the goal gives, else the whole weeks until its deadline, else the
    default. A zero, negative or out-of-range duration is refused."""
    if duration is not None:
        if not duration.positive or duration.days < 7 * MIN_WEEKS:
            raise UsageError(words["too_short"].format(duration=duration.text))
        if duration.weeks > MAX_WEEKS:
            raise UsageError(words["too_long"].format(duration=duration.text))
        if duration.converted:
            assumptions.append(words["converted_duration"].format(duration=duration.text, weeks=duration.weeks))
    if dates.deadline is not None:
        until = (dates.deadline - start).days // 7
        if until < MIN_WEEKS:
            raise UsageError(words["deadline_too_close"].format(deadline=dates.deadline.isoformat(), start=start))
        if duration is None or duration.weeks > until:
            last_day = (start + timedelta(days=7 * until - 1)).isoformat()
            text = dates.deadline_text
            assumptions.append(words["deadline"].format(deadline=text, weeks=until, end=last_day))
            return min(until, MAX_WEEKS)
    if duration is None:
        assumptions.append(words["default_weeks"].format(weeks=DEFAULT_WEEKS))
        return DEFAULT_WEEKS
    return duration.weeks


def check_goal(text: str, today: date, start: date | None = None) -> None:
    """What can be refused without a model, before the loop runs, so that every model gets the same exit:
    an empty goal, a duration, deadline or weekly hours out of range (UsageError, one line). Whether the
    catalog covers the goal's topic is the model's finding, made in the run."""
    raw = " ".join(text.split())
    if not raw:
        raise UsageError(_goal_phrases("en")["empty"])
    lang = detect_lang(raw)
    words = _goal_phrases(lang)
    dates = read_dates(raw, today)
    first_day = _start_day(dates.start, start, today, words, [])
    _weeks(read_duration(dates.undated, lang), dates, first_day, words, [])
    _checked_hours(hours_per_week(dates.undated), words)


def _checked_hours(hours: float | None, words: dict[str, Any]) -> float | None:
    if hours is not None and not MIN_HOURS_PER_WEEK <= hours <= MAX_HOURS_PER_WEEK:
        raise UsageError(
            words["hours_out_of_range"].format(hours=hours, low=MIN_HOURS_PER_WEEK, high=MAX_HOURS_PER_WEEK)
        )
    return hours


def parse_goal(text: str, today: date, start: date | None = None) -> Goal:
    """Read a one-sentence goal. Raises UsageError (one line) when it cannot be planned. `start` (the
    --start option) overrides the start the goal names."""
    raw = " ".join(text.split())
    lang = detect_lang(raw)
    words = _goal_phrases(lang)
    if not raw:
        raise UsageError(_goal_phrases("en")["empty"])

    mentioned = vocabulary.find_topics(raw)
    if not mentioned:
        topics = words["separator"].join(vocabulary.topic_label(key, lang) for key in vocabulary.all_topics())
        raise NoMatchingTopic(words["no_topic"].format(goal=raw, topics=topics))
    said_known = [topic for topic in _known_topics(raw) if topic in mentioned]
    wanted = [topic for topic in mentioned if topic not in said_known] or mentioned
    main_topic = _main_topic(wanted)
    extra = [topic for topic in wanted if topic != main_topic]
    extra += [topic for topic in _implied_topics(raw, main_topic, wanted) if topic not in said_known]
    known = [topic for topic in said_known if topic != main_topic]

    assumptions: list[str] = []
    level = _level(raw)
    if level is None and main_topic in said_known:
        level = "intermediate"  # "I know Python, more Python": past the beginner courses
    if level is None:
        level = "beginner"
        if known:  # "I know Python; web development": new to the topic, not to everything
            labels = words["separator"].join(vocabulary.topic_label(topic, lang) for topic in known)
            # every topic the plan teaches: "web development" is new front and back end, not the front end only
            topic_label = words["separator"].join(vocabulary.topic_label(t, lang) for t in (main_topic, *extra))
            assumptions.append(words["default_level_known"].format(known=labels, topic=topic_label))
        else:
            assumptions.append(words["default_level"])

    dates = read_dates(raw, today)
    undated = dates.undated
    start = _start_day(dates.start, start, today, words, assumptions)
    weeks = _weeks(read_duration(undated, lang), dates, start, words, assumptions)

    hours = _checked_hours(hours_per_week(undated), words)
    if hours is None:
        hours = DEFAULT_HOURS[level]
        assumptions.append(words["default_hours"].format(hours=hours))

    return Goal(
        raw=raw,
        lang=lang,
        topic=main_topic,
        extra_topics=tuple(extra),
        known_topics=tuple(known),
        level=level,
        weeks=weeks,
        hours_per_week=float(round(hours, 1)),
        start=start,
        assumptions=tuple(assumptions),
        target=read_target(raw, main_topic),
    )
