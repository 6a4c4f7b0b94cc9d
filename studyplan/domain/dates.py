"""Dates, weekday tokens and week numbers as plans write them: "2026/11/30", "2026年12月27日 周日",
"2026-12-14 (Mon)", "第十二周", "Week 3"."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

_ZH_NUMERALS = "零一二三四五六七八九"
# Arabic digits (any script), or a Chinese numeral up to 99: 三, 十二, 二十.
NUMBER = r"(?:\d+|[一二两三四五六七八九]?十[一二三四五六七八九]?|[一二两三四五六七八九])"
_WEEKDAY_TOKEN = r"(?:周|星期|礼拜)[一二三四五六日天]|(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?"
_DATE = re.compile(
    r"(?<!\d)(?P<y>\d{4})\s*[-/.年]\s*(?P<m>\d{1,2})\s*[-/.月]\s*(?P<d>\d{1,2})\s*日?"
    rf"(?:\s*[（(,，]?\s*(?P<wd>{_WEEKDAY_TOKEN})\s*[)）]?)?",
    re.IGNORECASE,
)


def number_value(text: str) -> int:
    """A number matched by NUMBER: "12", "１２", "十二", "二十"."""
    if text.isdigit():
        return int(text)
    text = text.replace("两", "二")
    tens, has_ten, ones = text.partition("十")
    if not has_ten:
        return _ZH_NUMERALS.index(text)
    return (_ZH_NUMERALS.index(tens) if tens else 1) * 10 + (_ZH_NUMERALS.index(ones) if ones else 0)


def weekday_of_token(token: str) -> int | None:
    """Monday=0 for a weekday token such as "周一", "星期天", "Mon", "Tuesday"; None if not one."""
    token = token.strip().lower().rstrip(".")
    if token[:1] in "周星礼":
        index = "一二三四五六日".find(token[-1].replace("天", "日"))
        return index if index >= 0 else None
    names = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
    return names.index(token[:3]) if token[:3] in names else None


@dataclass(frozen=True)
class DateMention:
    value: date
    weekday: str | None  # the weekday token written next to the date, if any


# Years a plan can be in: the checker refuses other dates before any week arithmetic could overflow.
PLAN_YEARS = range(1900, 9001)


def find_dates(text: str) -> list[DateMention]:
    """Every valid date in `text`, with the weekday token written after it."""
    mentions = []
    for match in _DATE.finditer(text):
        try:
            value = date(int(match["y"]), int(match["m"]), int(match["d"]))
        except ValueError:
            continue
        mentions.append(DateMention(value, match["wd"]))
    return mentions
