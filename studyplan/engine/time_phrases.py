"""Time in a learner's words: numbers, start dates and deadlines, durations and weekly hours, zh and en.

"在十七周内", "in seventeen weeks", "10 wks", "in a fortnight", "寒假"; "by next June", "到明年6月", "before
March 1" (deadlines: they set the end, not the start); "每周三次每次两小时" (sessions × hours). A duration that
is negative or zero is refused with a one-line UsageError by the goal parser.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date, timedelta

from dateutil.relativedelta import relativedelta

SEMESTER_WEEKS = 16

# --- numbers -------------------------------------------------------------------------------------------

_CN_DIGITS = {
    "零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9,
}  # fmt: skip
_CN_UNITS = {"十": 10, "百": 100, "千": 1000}
_EN_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "eighteen": 18, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "ninety": 90, "hundred": 100, "couple": 2, "few": 3, "seventeen": 17, "nineteen": 19, "seventy": 70,
    "eighty": 80,
}  # fmt: skip
_EN_NUMBERS.update({
    f"{tens}{joint}{unit}": _EN_NUMBERS[tens] + _EN_NUMBERS[unit]
    for tens in ("twenty", "thirty", "forty", "fifty")
    for unit in ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
    for joint in ("-", " ")
})
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


@dataclass(frozen=True)
class Dates:
    start: date | None  # the start the text asks for
    deadline: date | None  # "by / before / 到 / 之前 X": the plan ends before this day
    deadline_text: str  # as the text wrote it, for the assumption
    undated: str  # the text with every date blanked out


_DEADLINE_BEFORE = re.compile(
    r"(?:\b(?:by|before|until|till|no later than|in time for|ahead of)\s+(?:the\s+)?(?:end\s+of\s+)?"
    r"|(?:到|在|截止|截至|赶在|于)\s*)$",
    re.IGNORECASE,
)
_DEADLINE_AFTER = re.compile(r"^\s*(?:之前|以前|前|为止|截止)")
_ZH_MONTH_ONLY = re.compile(
    rf"(?P<year>明年|今年|后年|(?P<number>\d{{4}})\s*年)?\s*(?P<month>{_ZH_NUM})\s*月(?:份|底|初)?"
)
_EN_MONTH_ONLY = re.compile(
    rf"\b(?P<next>next\s+)?(?P<month>{_MONTH_EN})\b(?:\s+(?P<year>\d{{4}}))?", re.IGNORECASE
)


def _first_of_month(today: date, month: int, year: int | None) -> date | None:
    """The first day of a month: in the year given, else the next such month to come."""
    if not 1 <= month <= 12:
        return None
    if year is not None:
        return date(year, month, 1)
    candidate = date(today.year, month, 1)
    return candidate if candidate > today else date(today.year + 1, month, 1)


def _is_deadline(match: re.Match[str]) -> bool:
    before, after = match.string[: match.start()], match.string[match.end() :]
    return bool(_DEADLINE_BEFORE.search(before) or _DEADLINE_AFTER.match(after))


def _zh_month(match: re.Match[str], today: date) -> tuple[int, int | None]:
    years = {"今年": today.year, "明年": today.year + 1, "后年": today.year + 2}
    year = int(match["number"]) if match["number"] else years.get((match["year"] or "").strip())
    return int(_number(match["month"])), year


def _en_month(match: re.Match[str], today: date) -> tuple[int, int | None]:
    month = _MONTHS_EN[match["month"].lower()]
    year = int(match["year"]) if match["year"] else None
    if match["next"] and year is None:
        year = today.year + 1 if month <= today.month else today.year
    return month, year


def read_dates(text: str, today: date) -> Dates:
    """The start date and the deadline the text names (None where it names none), the text with dates
    blanked out. A date right after "by", "before", "到", "在" or right before "之前", "前" is a deadline."""
    found: date | None = None
    deadline: date | None = None
    deadline_text = ""

    def take(match: re.Match[str], value: date | None) -> str:
        nonlocal found, deadline, deadline_text
        if value is not None and _is_deadline(match):
            if deadline is None:
                deadline, deadline_text = value, match.group(0).strip()
        elif found is None and value is not None:
            found = value
        return " " * len(match.group(0))

    def month_only(match: re.Match[str], month_and_year: tuple[int, int | None]) -> str:
        if not _is_deadline(match):
            return match.group(0)  # "3月" alone is not a date a plan can use
        return take(match, _first_of_month(today, *month_and_year))

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
    text = _ZH_MONTH_ONLY.sub(lambda m: month_only(m, _zh_month(m, today)), text)
    text = _EN_MONTH_ONLY.sub(lambda m: month_only(m, _en_month(m, today)), text)
    return Dates(found, deadline, deadline_text, text)


# --- duration ------------------------------------------------------------------------------------------

_DURATION_ZH = re.compile(
    rf"(?:(?P<n>{_ZH_NUM})\s*(?P<ge>个半|个)?|(?P<half>半个?))\s*"
    r"(?P<unit>天|日|周|星期|礼拜|月|年|学期)(?P<trail>半)?"
)
_DURATION_EN = re.compile(
    rf"\b(?:(?P<half>half\s+(?:an?\s+)?)|(?P<n>{_EN_NUM})(?P<and_half>\s+and\s+a\s+half)?[\s-]*)"
    r"(?P<unit>days?|weeks?|wks?|months?|mos?|years?|yrs?|semesters?|terms?|fortnights?)\b"
    r"(?P<trail>\s+and\s+a\s+half)?",
    re.IGNORECASE,
)
_HALF_YEAR_EN = re.compile(r"\bhalf[\s-]+(?:a\s+)?year\b", re.IGNORECASE)
_EN_UNITS = {"wk": "week", "mo": "month", "yr": "year", "term": "semester"}
_NEGATIVE_BEFORE = re.compile(r"(?<![\d.])(?:-|−|负|minus\s)\s*$", re.IGNORECASE)
# School holidays, as long as they usually are in China (winter about 4 weeks, summer about 8).
_HOLIDAYS = [
    (re.compile(r"寒假|\bwinter (?:break|vacation|holidays?)\b", re.IGNORECASE), 4),
    (re.compile(r"暑假|\bsummer (?:break|vacation|holidays?)\b", re.IGNORECASE), 8),
]
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
class Duration:
    weeks: int
    days: float  # for the "at least one week" check: 3 days rounds up to a week but is still too short
    text: str  # as the goal wrote it, for messages
    converted: bool  # months, years, days or a semester: the week count is our reading
    positive: bool = True  # False for "-3 weeks" or "0 weeks": refused, never read as something else


def _duration(amount: float, unit: str, text: str) -> Duration:
    """Weeks for an amount of days, weeks, months, years or semesters (a month is 52/12 weeks)."""
    if unit == "week":
        weeks, days = math.ceil(amount), amount * 7
    elif unit == "day":
        weeks, days = math.ceil(amount / 7), amount
    elif unit == "fortnight":
        weeks, days = math.ceil(amount * 2), amount * 14
    elif unit == "semester":
        weeks, days = math.ceil(amount * SEMESTER_WEEKS), amount * SEMESTER_WEEKS * 7
    else:
        months = amount * 12 if unit == "year" else amount
        weeks, days = round(months * 52 / 12), months * 365.25 / 12
    return Duration(weeks, days, text.strip(), converted=unit != "week")


def _checked(amount: float, unit: str, text: str, before: str) -> Duration:
    """The duration, marked not positive when it is zero or has a minus sign before it."""
    duration = _duration(amount, unit, text)
    if amount <= 0 or _NEGATIVE_BEFORE.search(before):
        return Duration(duration.weeks, duration.days, (before[-1:] + text).strip(), duration.converted, False)
    return duration


def read_duration(text: str, lang: str) -> Duration | None:
    """The duration a goal names ("3个月", "in seventeen weeks", "10 wks", "a fortnight", "寒假")."""
    found = _duration_zh(text) if lang == "zh" else None
    found = found or _duration_en(text)
    if found is not None:
        return found
    for pattern, weeks in _HOLIDAYS:
        if match := pattern.search(text):
            return Duration(weeks, weeks * 7, match.group(0), converted=True)
    return None


def _duration_zh(text: str) -> Duration | None:
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
        return _checked(amount, _UNIT_ZH[unit_word], match.group(0), before)
    return None


def _duration_en(text: str) -> Duration | None:
    half_year = _HALF_YEAR_EN.search(text)
    for match in _DURATION_EN.finditer(text):
        if half_year and half_year.start() < match.start():
            break
        before, after = text[: match.start()], text[match.end() :]
        if _EN_RATE_BEFORE.search(before) or _EN_FREQUENCY_AFTER.match(after):
            continue
        unit = match.group("unit").lower().rstrip("s")
        unit = _EN_UNITS.get(unit, unit)
        if match.group("half"):
            amount = 0.5
        else:
            amount = _number(match.group("n"))
            if match.group("and_half") or match.group("trail"):
                amount += 0.5
        return _checked(amount, unit, match.group(0), before)
    if half_year:
        return _duration(0.5, "year", half_year.group(0))
    return None


CLAUSE_BREAK = re.compile(r"[，,。；;！!？?\n]|\bbut\b|但是?|不过")

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


_SESSIONS_PER_WEEK = re.compile(
    rf"(?:每周|一周|每星期|每个星期|每礼拜)\s*(?:学习?|上课)?\s*(?P<zh>{_ZH_NUM})\s*次"
    rf"|\b(?P<en>{_EN_NUM}|twice|thrice)\s+(?:times\s+|sessions\s+)?(?:a|per|each|every)\s+week\b",
    re.IGNORECASE,
)
_PER_SESSION = re.compile(r"每次|一次|\beach(?: time| session)?\b|\bper session\b|\ba session\b", re.IGNORECASE)


def _sessions_hours(text: str) -> float | None:
    """ "每周三次每次两小时", "3 times a week, 2 hours each": sessions × hours per session."""
    sessions = _SESSIONS_PER_WEEK.search(text)
    if sessions is None or not _PER_SESSION.search(f"{text[: sessions.start()]} {text[sessions.end() :]}"):
        return None
    count_word = (sessions["zh"] or sessions["en"]).lower()
    count = {"twice": 2.0, "thrice": 3.0}.get(count_word) or _number(count_word)
    for pattern in (_HOURS_ZH, _HOURS_EN):
        if amount := pattern.search(text):
            return count * _amount_in_hours(amount)
    return None


def hours_per_week(text: str) -> float | None:
    """Weekly hours: "每周6小时", "每天2小时" (×7), "工作日每天1小时，周末每天3小时" (5 + 6), "2h/day",
    "每周三次每次两小时" (3 × 2)."""
    if (by_sessions := _sessions_hours(text)) is not None:
        return by_sessions
    totals: list[tuple[float, str]] = []
    for clause in CLAUSE_BREAK.split(text):
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
