"""Reading a revision request ("第三周太紧了", "make it 10 weeks", "drop the visualization course").

Rule-based and deterministic, in Chinese and English: the kind of change, the week it is about, how many
weeks or hours, the topic. None when the request is not one the rules know.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from studyplan.domain import vocabulary
from studyplan.engine.time_phrases import chinese_number, hours_per_week

_EN_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
               "ten": 10, "a": 1, "an": 1}  # fmt: skip
_EN_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
                "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12}  # fmt: skip
_ZH_NUMBER = r"\d+|[一二两三四五六七八九十]+"
_EN_NUMBER = r"\d+|" + "|".join(sorted(_EN_NUMBERS, key=len, reverse=True))
_WEEK_REFERENCE = re.compile(
    rf"第\s*(?P<zh>{_ZH_NUMBER})\s*(?:周|个?星期|个?礼拜)"
    rf"|\bweek\s*(?P<en>\d+)\b"
    rf"|\b(?P<ordinal>{'|'.join(_EN_ORDINALS)}|\d+(?:st|nd|rd|th))\s+week\b",
    re.IGNORECASE,
)
_WEEKS_AMOUNT = re.compile(rf"(?P<n>{_ZH_NUMBER}|{_EN_NUMBER})\s*(?:个)?\s*(?P<unit>周|星期|礼拜|weeks?\b)", re.I)
_MONTHS_AMOUNT = re.compile(rf"(?P<n>{_ZH_NUMBER}|{_EN_NUMBER})\s*(?:个月|months?\b)", re.IGNORECASE)
_ABSOLUTE = re.compile(rf"(?:到|至|为|成|\bto)\s*(?:{_ZH_NUMBER}|{_EN_NUMBER})", re.IGNORECASE)
_PER_DAY = re.compile(r"每天|一天|每日|per day|a day|daily|each day", re.IGNORECASE)
_PER_WEEK = re.compile(r"每周|一周|每星期|每个星期|per week|a week|weekly|each week|/\s*week", re.IGNORECASE)

_WEEK_PAIR = re.compile(r"\bweeks?\s+(\d+)\s*(?:and|&|with|,)\s*(?:week\s*)?(\d+)\b", re.IGNORECASE)
_SWAP = re.compile(r"对调|互换|调换|交换|\bswap\b|\bswitch\b|\bexchange\b", re.IGNORECASE)
_HOLIDAY = re.compile(r"休假|放假|度假|旅行|出差|请假|没空|\bholiday|\bvacation|\baway\b|\bbusy\b|\bskip\b", re.I)
_PROJECTS = re.compile(r"项目|实战|动手|project[- ]based|more projects?|hands[- ]on", re.IGNORECASE)
_COURSE_WORD = re.compile(r"(?:课程?|\bcourse\b)", re.IGNORECASE)
_FILLER_WORDS = {"drop", "remove", "the", "course", "please", "skip", "without", "get", "rid", "of", "a", "an", "my"}
_MEASURED_WEEKS = re.compile(r"实测\s*(\d+)\s*周|measured over\s+(\d+)\s+weeks?", re.IGNORECASE)
_REPLAN = re.compile(r"按实际进度|重新安排|replan|measured pace", re.IGNORECASE)
_BEHIND = re.compile(r"落后\s*(\d+)\s*天|(\d+)\s*days?\s+behind", re.IGNORECASE)
_AHEAD = re.compile(r"(?:领先|超前)\s*(\d+)\s*天|(\d+)\s*days?\s+ahead", re.IGNORECASE)
_MEASURED = re.compile(r"实际每周约?\s*(\d+(?:\.\d+)?)\s*小时|actually about\s+(\d+(?:\.\d+)?)\s*hours?", re.I)
_POSTPONE = re.compile(r"推迟|延后|往后推|后推|推后|顺延|postpone|push\b.*\bback|delay|move\b.*\blater", re.I)
_LIGHTEN = re.compile(
    r"太紧|太满|太多|太累|太重|减掉|减少|减半|减轻|砍掉|少一点|轻一点|一半"
    r"|too (?:much|tight|heavy|full|busy|packed)|lighten|lighter|halve|\bhalf\b|\bcut\b|reduce|\bless\b",
    re.IGNORECASE,
)
_LONGER = re.compile(r"延长|拉长|放慢|多|extend|stretch|lengthen|longer|more", re.IGNORECASE)
_SHORTER = re.compile(r"压缩|缩短|加快|缩到|compress|shorten|shorter|fewer|faster", re.IGNORECASE)
_RESIZE = re.compile(
    r"改成|改为|调整|变成|延到|make it|change (?:it )?to|in\s+\d+\s+weeks|" + _LONGER.pattern + "|" + _SHORTER.pattern,
    re.IGNORECASE,
)
_DROP = re.compile(r"去掉|删掉|删除|不学|不要|拿掉|跳过|取消|\b(?:drop|remove|skip|without|no more|get rid of)\b", re.I)
_ADD = re.compile(r"加上|加入|增加|添加|补充|再学|也学|加一?门|加点|\b(?:add|include|also learn|plus)\b", re.I)

# --- understanding the request -------------------------------------------------------------------------

RequestKind = Literal[
    "lighten", "postpone", "resize", "hours", "drop", "add", "replan", "swap", "drop_course", "projects"
]


@dataclass(frozen=True)
class Request:
    kind: RequestKind
    week: int | None = None  # lighten / postpone: the week asked about
    weeks: int | None = None  # resize: total weeks; postpone: how many weeks later
    relative: int = 0  # resize by this many weeks when no total was given
    hours: float | None = None  # hours: the new weekly time; replan: the measured weekly time
    topic: str | None = None  # drop / add: a topic key
    days_ahead: int = 0  # replan: negative when behind
    other_week: int | None = None  # swap: the week exchanged with `week`
    words: tuple[str, ...] = ()  # drop_course: the words that may name the course
    measured_weeks: int | None = None  # replan: full weeks of check-ins the pace was measured over


def _number(token: str) -> int:
    token = token.strip().lower()
    if token.isdigit():
        return int(token)
    if token in _EN_NUMBERS:
        return _EN_NUMBERS[token]
    return chinese_number(token)


def _week_reference(text: str) -> int | None:
    match = _WEEK_REFERENCE.search(text)
    if match is None:
        return None
    if match["zh"]:
        return _number(match["zh"])
    if match["en"]:
        return int(match["en"])
    ordinal = match["ordinal"].lower()
    return _EN_ORDINALS.get(ordinal) or int(re.sub(r"\D", "", ordinal))


def _weeks_amount(text: str) -> int | None:
    """A number of weeks (or months, as weeks) in the text once week references ("第5周") are taken out."""
    rest = _WEEK_REFERENCE.sub(" ", text)
    if match := _WEEKS_AMOUNT.search(rest):
        return _number(match["n"])
    if match := _MONTHS_AMOUNT.search(rest):
        return round(_number(match["n"]) * 52 / 12)
    return None


def _hours(text: str) -> float | None:
    """New weekly hours, when the request names a period ("每周 6 小时", "2 hours a day")."""
    if not (_PER_WEEK.search(text) or _PER_DAY.search(text)):
        return None
    return hours_per_week(text)


def _first_group(match: re.Match[str] | None) -> int:
    return int(next(group for group in match.groups() if group)) if match else 0


def _week_references(text: str) -> list[int]:
    """Every week the text names, in order ("把第二周和第三周对调" → [2, 3])."""
    if pair := _WEEK_PAIR.search(text):
        return [int(pair[1]), int(pair[2])]
    found = []
    for match in _WEEK_REFERENCE.finditer(text):
        found.append(_week_reference(match.group(0)) or 0)
    return found


def parse_request(text: str) -> Request | None:
    """What the learner asks for, or None when the offline reviser does not understand it."""
    if _REPLAN.search(text):
        measured = _MEASURED.search(text)
        measured_weeks = _MEASURED_WEEKS.search(text)
        return Request(
            "replan",
            days_ahead=_first_group(_AHEAD.search(text)) - _first_group(_BEHIND.search(text)),
            hours=float(next(g for g in measured.groups() if g)) if measured else None,
            measured_weeks=_first_group(measured_weeks) if measured_weeks else None,
        )
    return _parse_change(text)


def _parse_change(text: str) -> Request | None:
    if (hours := _hours(text)) is not None:
        return Request("hours", hours=hours)
    week = _week_reference(text)
    amount = _weeks_amount(text)
    weeks_named = _week_references(text)
    if _SWAP.search(text) and len(weeks_named) >= 2:
        return Request("swap", week=weeks_named[0], other_week=weeks_named[1])
    if week is not None and _HOLIDAY.search(text) and not _LIGHTEN.search(text):
        return Request("postpone", week=week, weeks=amount or 1)  # "skip week 5, I'm on holiday"
    if _POSTPONE.search(text) and (week is not None or amount is not None):
        return Request("postpone", week=week or 1, weeks=amount or 1)
    if week is not None and _LIGHTEN.search(text):
        return Request("lighten", week=week)
    if amount is not None and _RESIZE.search(text):
        if _ABSOLUTE.search(text) or not (_LONGER.search(text) or _SHORTER.search(text)):
            return Request("resize", weeks=amount)
        return Request("resize", relative=-amount if _SHORTER.search(text) else amount)
    topics = vocabulary.find_topics(text)
    if topics and _DROP.search(text):
        return Request("drop", topic=topics[0])
    if topics and _ADD.search(text):
        return Request("add", topic=topics[0])
    if _DROP.search(text) and _COURSE_WORD.search(text):  # "drop the visualization course"
        named = [w for w in re.findall(r"[\w+#.-]+", _DROP.sub(" ", text).lower()) if w not in _FILLER_WORDS]
        return Request("drop_course", words=tuple(named)) if named else None
    if _PROJECTS.search(text):
        return Request("projects")
    return None
