"""The learner's measured pace (from check-ins) and the replan request built from it.

Plain functions over data: the weeks with their check-ins in, a Pace and a request sentence out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from studyplan.domain.diff import format_weeks
from studyplan.lang import Lang

REPLAN_MIN_DAYS = 4
REPLAN_HOURS_TOLERANCE = 0.25


@dataclass(frozen=True)
class WeekRecord:
    """One plan week as checked in: whether it is done and the hours spent on it."""

    number: int
    end: date
    done: bool
    spent_hours: float


@dataclass(frozen=True)
class Pace:
    done_weeks: list[int]
    days_ahead: int  # negative: behind the calendar
    measured_hours: float | None  # hours actually spent per week, where check-ins recorded hours
    planned_hours: float
    measured_weeks: int | None = None  # full weeks past with check-ins: a replan needs at least one

    @property
    def off_pace(self) -> bool:
        hours_off = self.measured_hours is not None and (
            abs(self.measured_hours - self.planned_hours) > REPLAN_HOURS_TOLERANCE * self.planned_hours
        )
        return abs(self.days_ahead) >= REPLAN_MIN_DAYS or hours_off


def measure_pace(weeks: Sequence[WeekRecord], today: date, days_ahead: int, planned_hours: float) -> Pace:
    """Done weeks, days ahead/behind and hours per week actually spent (over weeks done or past)."""
    finished = [w for w in weeks if (w.done or w.end < today) and w.spent_hours > 0]
    measured = sum(w.spent_hours for w in finished) / len(finished) if finished else None
    full_weeks = [w for w in weeks if w.end < today and (w.done or w.spent_hours > 0)]
    return Pace(
        done_weeks=[w.number for w in weeks if w.done],
        days_ahead=days_ahead,
        measured_hours=round(measured, 1) if measured is not None else None,
        planned_hours=planned_hours,
        measured_weeks=len(full_weeks),
    )


def replan_request(pace: Pace, lang: Lang) -> str:
    """The request sentence revise gets for a replan, e.g. "按实际进度重新安排：已完成第1-2周，落后5天"."""
    zh = lang == "zh"
    parts = []
    if pace.done_weeks:
        weeks = format_weeks(pace.done_weeks)
        word = "week" if len(pace.done_weeks) == 1 else "weeks"
        parts.append(f"已完成第{weeks}周" if zh else f"{word} {weeks} done")
    else:
        parts.append("还没有完成的周" if zh else "no week done yet")
    days = abs(pace.days_ahead)
    if pace.days_ahead < 0:
        parts.append(f"落后{days}天" if zh else f"{days} days behind")
    elif pace.days_ahead > 0:
        parts.append(f"领先{days}天" if zh else f"{days} days ahead")
    else:
        parts.append("进度与计划一致" if zh else "on schedule")
    if pace.measured_hours is not None and pace.measured_hours != pace.planned_hours:
        measured, planned = f"{pace.measured_hours:g}", f"{pace.planned_hours:g}"
        parts.append(
            f"实际每周约{measured}小时（计划{planned}小时）"
            if zh
            else f"actually about {measured} hours per week (planned {planned})"
        )
    if pace.measured_weeks is not None:
        count = pace.measured_weeks
        parts.append(f"实测{count}周" if zh else f"measured over {count} week{'s' if count != 1 else ''}")
    return ("按实际进度重新安排：" + "，".join(parts)) if zh else ("Replan from measured pace: " + ", ".join(parts))
