"""Reading a learner's one-sentence goal: topic, level, duration, weekly hours and start date.

The parser is rule-based and deterministic. Whatever the goal leaves open is filled with a default and
recorded as an assumption, in the goal's language, so that the plan can say what it assumed. Goals that
cannot be planned at all (empty, no known topic, absurd durations or hours) raise a one-line UsageError.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache
from importlib import resources
from typing import Any

from dateutil.relativedelta import relativedelta

from studyplan.domain import vocabulary
from studyplan.domain.catalog import Level
from studyplan.errors import UsageError
from studyplan.lang import Lang, detect_lang

MIN_WEEKS = 1
MAX_WEEKS = 156  # three years
DEFAULT_WEEKS = 12
SEMESTER_WEEKS = 16
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


@cache
def load_phrases() -> dict[str, Any]:
    """The offline wording (goal messages and the planner's text), shipped as package data."""
    text = resources.files("studyplan.data").joinpath("offline_phrases.json").read_text(encoding="utf-8")
    return json.loads(text)


def _goal_phrases(lang: Lang) -> dict[str, Any]:
    return load_phrases()["goal"][lang]


# --- numbers -------------------------------------------------------------------------------------------

_CN_DIGITS = {
    "零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9,
}  # fmt: skip
_CN_UNITS = {"十": 10, "百": 100, "千": 1000}
_EN_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "eighteen": 18, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "ninety": 90, "hundred": 100, "couple": 2, "few": 3,
}  # fmt: skip
_ZH_NUM = r"\d+(?:\.\d+)?|[零〇一二两三四五六七八九十百千]+"
_EN_NUM = r"\d+(?:\.\d+)?|" + "|".join(sorted(_EN_NUMBERS, key=len, reverse=True))


def chinese_number(text: str) -> int:
    """二 → 2, 十二 → 12, 九十 → 90, 一百零五 → 105 (the numbers goals use)."""
    total, current = 0, 0
    for char in text:
        if char in _CN_DIGITS:
            current = _CN_DIGITS[char]
        elif char in _CN_UNITS:
            total += (current or 1) * _CN_UNITS[char]
            current = 0
    return total + current


def _number(token: str) -> float:
    token = token.strip().lower()
    if re.fullmatch(r"\d+(?:\.\d+)?", token):
        return float(token)
    if token in _EN_NUMBERS:
        return float(_EN_NUMBERS[token])
    return float(chinese_number(token))


# --- language, topics, level ---------------------------------------------------------------------------

_CLAUSE_BREAK = re.compile(r"[，,。；;！!？?\n]|\bbut\b|但是?|不过")

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
    for clause in _CLAUSE_BREAK.split(text):
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


# --- dates (parsed first, then blanked out so that 12月7日 is not read as a duration) -------------------

_WEEKDAYS_ZH = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_WEEKDAYS_EN = {
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6,
    "mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3, "fri": 4, "sat": 5, "sun": 6,
}  # fmt: skip
_MONTHS_EN = {
    name: number
    for number, names in enumerate(
        [("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",), ("jun", "june"),
         ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"), ("oct", "october"),
         ("nov", "november"), ("dec", "december")],
        start=1,
    )
    for name in names
}  # fmt: skip
_MONTH_EN = "|".join(sorted(_MONTHS_EN, key=len, reverse=True))

_ISO_DATE = re.compile(r"(\d{4})\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})\s*[日号]?")
_ZH_MONTH_DAY = re.compile(rf"({_ZH_NUM})\s*月\s*({_ZH_NUM})\s*[日号]")
_EN_MONTH_DAY = re.compile(rf"\b({_MONTH_EN})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b", re.IGNORECASE)
_EN_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_EN})\b", re.IGNORECASE)
_NEXT_WEEKDAY_ZH = re.compile(r"下(?:个)?(?:周|星期|礼拜)([一二三四五六日天])?")
_THIS_WEEKDAY_ZH = re.compile(r"(?:这|本)(?:个)?(?:周|星期|礼拜)([一二三四五六日天])")
_BARE_WEEKDAY_ZH = re.compile(r"(?:周|星期|礼拜)([一二三四五六日天])(?:开始|起)")
_NEXT_WEEKDAY_EN = re.compile(rf"\bnext\s+(week|{'|'.join(_WEEKDAYS_EN)})\b", re.IGNORECASE)
_THIS_WEEKDAY_EN = re.compile(rf"\b(?:this|on|from|starting)\s+({'|'.join(_WEEKDAYS_EN)})\b", re.IGNORECASE)
_RELATIVE_DAY = re.compile(r"明天|后天|今天|\btomorrow\b|\btoday\b", re.IGNORECASE)
_NEXT_MONTH = re.compile(r"下个?月(?:初)?|\bnext month\b", re.IGNORECASE)


def _month_day(today: date, month: int, day: int) -> date | None:
    """A month and day without a year: this year's, or next year's once this year's has passed."""
    for year in (today.year, today.year + 1):
        try:
            candidate = date(year, month, day)
        except ValueError:
            return None
        if candidate >= today:
            return candidate
    return None


def _start(text: str, today: date) -> tuple[date | None, str]:
    """The start date the goal asks for (None if it names none) and the text with dates blanked out."""
    found: date | None = None

    def take(match: re.Match[str], value: date | None) -> str:
        nonlocal found
        if found is None and value is not None:
            found = value
        return " " * len(match.group(0))

    def iso(match: re.Match[str]) -> str:
        try:
            value = date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
        except ValueError:
            value = None
        return take(match, value)

    def next_monday() -> date:
        return today + timedelta(days=7 - today.weekday())

    def next_week_zh(match: re.Match[str]) -> str:
        offset = _WEEKDAYS_ZH[match.group(1)] if match.group(1) else 0
        return take(match, next_monday() + timedelta(days=offset))

    def this_week_zh(match: re.Match[str]) -> str:
        value = today + timedelta(days=_WEEKDAYS_ZH[match.group(1)] - today.weekday())
        return take(match, max(value, today))

    def upcoming(weekday: int) -> date:
        return today + timedelta(days=(weekday - today.weekday()) % 7)

    def next_en(match: re.Match[str]) -> str:
        word = match.group(1).lower()
        if word == "week":
            return take(match, next_monday())
        # "next Friday" is the coming one when it is still this week's future, as most people mean it.
        value = upcoming(_WEEKDAYS_EN[word])
        return take(match, value if value > today else value + timedelta(days=7))

    def relative(match: re.Match[str]) -> str:
        offsets = {"明天": 1, "后天": 2, "今天": 0, "tomorrow": 1, "today": 0}
        return take(match, today + timedelta(days=offsets[match.group(0).lower()]))

    text = _ISO_DATE.sub(iso, text)
    text = _ZH_MONTH_DAY.sub(
        lambda m: take(m, _month_day(today, int(_number(m.group(1))), int(_number(m.group(2))))), text
    )
    text = _EN_MONTH_DAY.sub(
        lambda m: take(m, _month_day(today, _MONTHS_EN[m.group(1).lower()], int(m.group(2)))), text
    )
    text = _EN_DAY_MONTH.sub(
        lambda m: take(m, _month_day(today, _MONTHS_EN[m.group(2).lower()], int(m.group(1)))), text
    )
    text = _NEXT_WEEKDAY_ZH.sub(next_week_zh, text)
    text = _THIS_WEEKDAY_ZH.sub(this_week_zh, text)
    text = _BARE_WEEKDAY_ZH.sub(lambda m: take(m, upcoming(_WEEKDAYS_ZH[m.group(1)])), text)
    text = _NEXT_WEEKDAY_EN.sub(next_en, text)
    text = _THIS_WEEKDAY_EN.sub(lambda m: take(m, upcoming(_WEEKDAYS_EN[m.group(1).lower()])), text)
    text = _RELATIVE_DAY.sub(relative, text)
    text = _NEXT_MONTH.sub(lambda m: take(m, (today + relativedelta(months=1)).replace(day=1)), text)
    return found, text


# --- duration ------------------------------------------------------------------------------------------

_DURATION_ZH = re.compile(
    rf"(?:(?P<n>{_ZH_NUM})\s*(?P<ge>个半|个)?|(?P<half>半个?))\s*"
    r"(?P<unit>天|日|周|星期|礼拜|月|年|学期)(?P<trail>半)?"
)
_DURATION_EN = re.compile(
    rf"\b(?:(?P<half>half\s+(?:an?\s+)?)|(?P<n>{_EN_NUM})(?P<and_half>\s+and\s+a\s+half)?[\s-]*)"
    r"(?P<unit>days?|weeks?|months?|years?|semesters?|terms?)\b(?P<trail>\s+and\s+a\s+half)?",
    re.IGNORECASE,
)
_HALF_YEAR_EN = re.compile(r"\bhalf[\s-]+(?:a\s+)?year\b", re.IGNORECASE)
_UNIT_ZH = {
    "天": "day", "日": "day", "周": "week", "星期": "week", "礼拜": "week", "月": "month", "年": "year",
    "学期": "semester",
}  # fmt: skip
# A rate follows ("一天2小时", "1周10小时") or a frequency precedes ("每周学3天"): not a duration.
_RATE_AFTER = re.compile(rf"^\s*(?:学习?|投入|花|约|大概)*\s*(?:{_ZH_NUM}|半)\s*个?半?\s*(?:小时|钟头|分钟|h\b)")
_FREQUENCY_BEFORE = re.compile(r"(?:每|周末|一周|每星期)\S{0,3}$")
_EN_RATE_BEFORE = re.compile(r"\b(?:hours?|hrs?|h|minutes?|mins?|days?|times|per|every|each)\s*$", re.IGNORECASE)
_EN_FREQUENCY_AFTER = re.compile(r"^\s*(?:a|per|each|every|/)\s*week\b", re.IGNORECASE)


@dataclass(frozen=True)
class _Duration:
    weeks: int
    days: float  # for the "at least one week" check: 3 days rounds up to a week but is still too short
    text: str  # as the goal wrote it, for messages
    converted: bool  # months, years, days or a semester: the week count is our reading


def _duration(amount: float, unit: str, text: str) -> _Duration:
    """Weeks for an amount of days, weeks, months, years or semesters (a month is 52/12 weeks)."""
    if unit == "week":
        weeks, days = math.ceil(amount), amount * 7
    elif unit == "day":
        weeks, days = math.ceil(amount / 7), amount
    elif unit == "semester":
        weeks, days = math.ceil(amount * SEMESTER_WEEKS), amount * SEMESTER_WEEKS * 7
    else:
        months = amount * 12 if unit == "year" else amount
        weeks, days = round(months * 52 / 12), months * 365.25 / 12
    return _Duration(weeks, days, text.strip(), converted=unit != "week")


def _duration_zh(text: str) -> _Duration | None:
    for match in _DURATION_ZH.finditer(text):
        unit_word = match.group("unit")
        if unit_word == "月" and not (match.group("ge") or match.group("half")):
            continue  # "3月" is March, a duration says "3个月"
        before, after = text[: match.start()], text[match.end() :]
        if _RATE_AFTER.match(after) or _FREQUENCY_BEFORE.search(before):
            continue
        if before.endswith("第"):
            continue
        amount = 0.5 if match.group("half") else _number(match.group("n"))
        if match.group("ge") == "个半" or match.group("trail"):
            amount += 0.5
        if amount > 0:
            return _duration(amount, _UNIT_ZH[unit_word], match.group(0))
    return None


def _duration_en(text: str) -> _Duration | None:
    half_year = _HALF_YEAR_EN.search(text)
    for match in _DURATION_EN.finditer(text):
        if half_year and half_year.start() < match.start():
            break
        before, after = text[: match.start()], text[match.end() :]
        if _EN_RATE_BEFORE.search(before) or _EN_FREQUENCY_AFTER.match(after):
            continue
        unit = match.group("unit").lower().rstrip("s")
        if match.group("half"):
            amount = 0.5
        else:
            amount = _number(match.group("n"))
            if match.group("and_half") or match.group("trail"):
                amount += 0.5
        if amount > 0:
            return _duration(amount, "semester" if unit == "term" else unit, match.group(0))
    if half_year:
        return _duration(0.5, "year", half_year.group(0))
    return None


# --- weekly hours --------------------------------------------------------------------------------------

_HOURS_ZH = re.compile(rf"(?:(?P<n>{_ZH_NUM})\s*(?P<ge>个半|个)?|(?P<half>半个?))\s*(?P<unit>小时|钟头|分钟)")
_HOURS_EN = re.compile(
    rf"\b(?:(?P<half>half\s+an?)|(?P<n>{_EN_NUM}))\s*-?\s*(?P<unit>hours?|hrs?|h|minutes?|mins?)(?![a-z])",
    re.IGNORECASE,
)
_WEEK_MARKER = re.compile(
    r"每周|一周|每星期|每个星期|每礼拜|周末|/\s*周|/\s*week\b|\b(?:per|a|each|every)\s+week\b|\bweekly\b|"
    r"\bweekends?\b",
    re.IGNORECASE,
)
_DAY_MARKER = re.compile(
    r"每天|每日|一天|天天|每晚|晚上|工作日|/\s*天|/\s*day\b|\b(?:per|a|each|every)\s+(?:day|night|evening)\b|"
    r"\bdaily\b|\bweekdays?\b|\bevenings?\b",
    re.IGNORECASE,
)
_DAYS_PER_WEEK = re.compile(
    rf"(?:每周|一周|每星期)(?:学习?|上课)?\s*(?P<zh>{_ZH_NUM})\s*天|"
    rf"\b(?P<en>{_EN_NUM})\s+days?\s+(?:a|per|each|every)\s+week\b",
    re.IGNORECASE,
)
_WEEKDAYS_ONLY = re.compile(r"工作日|\bweekdays?\b", re.IGNORECASE)
_WEEKENDS_ONLY = re.compile(r"周末|\bweekends?\b", re.IGNORECASE)


def _days_per_week(clause: str, text: str) -> float:
    """How many days a daily amount counts for: the clause's weekdays/weekends, "每周学5天", or every day."""
    if _WEEKDAYS_ONLY.search(clause):
        return 5
    if _WEEKENDS_ONLY.search(clause):
        return 2
    match = _DAYS_PER_WEEK.search(text)
    if match:
        return min(7.0, _number(match.group("zh") or match.group("en")))
    return 7


def _amount_in_hours(match: re.Match[str]) -> float:
    if match.group("half"):
        amount = 0.5
    else:
        amount = _number(match.group("n"))
        if match.groupdict().get("ge") == "个半":
            amount += 0.5
    return amount / 60 if match.group("unit").lower().startswith(("分", "min")) else amount


def _is_daily(clause: str, match: re.Match[str]) -> bool:
    """Whether an amount of hours is per day: the nearest period word around it decides."""
    after = clause[match.end() : match.end() + 12]
    week_after, day_after = _WEEK_MARKER.match(after.lstrip()), _DAY_MARKER.match(after.lstrip())
    if week_after or day_after:
        return bool(day_after)
    before = clause[: match.start()]
    last_week = max((m.end() for m in _WEEK_MARKER.finditer(before)), default=-1)
    last_day = max((m.end() for m in _DAY_MARKER.finditer(before)), default=-1)
    return last_day > last_week


def _scope(clause: str) -> str:
    if _WEEKDAYS_ONLY.search(clause):
        return "weekdays"
    return "weekends" if _WEEKENDS_ONLY.search(clause) else "week"


def hours_per_week(text: str) -> float | None:
    """Weekly hours: "每周6小时", "每天2小时" (×7), "工作日每天1小时，周末每天3小时" (5 + 6), "2h/day"."""
    totals: list[tuple[float, str]] = []
    for clause in _CLAUSE_BREAK.split(text):
        for pattern in (_HOURS_ZH, _HOURS_EN):
            for match in pattern.finditer(clause):
                hours = _amount_in_hours(match)
                if _is_daily(clause, match):
                    hours *= _days_per_week(clause, text)
                totals.append((hours, _scope(clause)))
    if not totals:
        return None
    # Weekday and weekend time add up; otherwise a second amount restates the first ("2 h a day, 14 a week").
    scopes = {scope for _, scope in totals}
    if scopes == {"weekdays", "weekends"}:
        return sum(next(hours for hours, scope in totals if scope == wanted) for wanted in scopes)
    return totals[0][0]


# --- the goal ------------------------------------------------------------------------------------------


def parse_goal(text: str, today: date) -> Goal:
    """Read a one-sentence goal. Raises UsageError (one line) when it cannot be planned."""
    raw = " ".join(text.split())
    lang = detect_lang(raw)
    words = _goal_phrases(lang)
    if not raw:
        raise UsageError(_goal_phrases("en")["empty"])

    mentioned = vocabulary.find_topics(raw)
    if not mentioned:
        topics = words["separator"].join(vocabulary.topic_label(key, lang) for key in vocabulary.all_topics())
        raise UsageError(words["no_topic"].format(goal=raw, topics=topics))
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
        assumptions.append(words["default_level"])

    given_start, undated = _start(raw, today)
    duration = _duration_zh(undated) if lang == "zh" else None
    duration = duration or _duration_en(undated)
    if duration is None:
        weeks = DEFAULT_WEEKS
        assumptions.append(words["default_weeks"].format(weeks=weeks))
    else:
        if duration.days < 7 * MIN_WEEKS:
            raise UsageError(words["too_short"].format(duration=duration.text))
        if duration.weeks > MAX_WEEKS:
            raise UsageError(words["too_long"].format(duration=duration.text))
        weeks = duration.weeks
        if duration.converted:
            assumptions.append(words["converted_duration"].format(duration=duration.text, weeks=weeks))

    hours = hours_per_week(undated)
    if hours is None:
        hours = DEFAULT_HOURS[level]
        assumptions.append(words["default_hours"].format(hours=hours))
    elif not MIN_HOURS_PER_WEEK <= hours <= MAX_HOURS_PER_WEEK:
        raise UsageError(
            words["hours_out_of_range"].format(hours=hours, low=MIN_HOURS_PER_WEEK, high=MAX_HOURS_PER_WEEK)
        )

    if given_start is None:
        start = today
        assumptions.append(words["default_start"].format(start=today.isoformat()))
    elif given_start < today:
        start = today
        assumptions.append(words["past_start"].format(given=given_start.isoformat(), start=today.isoformat()))
    else:
        start = given_start

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
    )
