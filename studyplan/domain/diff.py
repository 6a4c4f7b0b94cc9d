"""The week diff between two versions of a plan: which weeks were added, removed, changed or only moved.

Plain functions over the plan model; revise uses them to describe a saved revision and to guard done weeks,
the UI shows them as a table.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from difflib import SequenceMatcher
from typing import TYPE_CHECKING, Literal

from studyplan.domain.document import PlanDoc, Week

if TYPE_CHECKING:
    from studyplan.domain.catalog import Catalog


def format_weeks(numbers: set[int] | list[int]) -> str:
    """1, 2, 3, 5 → "1-3, 5": week numbers as ranges."""
    ranges: list[list[int]] = []
    for number in sorted(set(numbers)):
        if ranges and number == ranges[-1][-1] + 1:
            ranges[-1].append(number)
        else:
            ranges.append([number])
    return ", ".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in ranges)


ChangeKind = Literal["changed", "added", "removed", "moved"]
WeekField = Literal["number", "dates", "courses", "content", "tasks", "deliverable"]


@dataclass(frozen=True)
class WeekChange:
    kind: ChangeKind
    before: Week | None  # None for an added week
    after: Week | None  # None for a removed week
    fields: tuple[WeekField, ...] = ()  # what differs, for changed and moved weeks


@dataclass(frozen=True)
class PlanDiff:
    changes: tuple[WeekChange, ...]
    unchanged: int  # weeks with the same number, dates and content
    before_weeks: int
    after_weeks: int
    before_end: date
    after_end: date
    before_hours: float
    after_hours: float


def _squash(text: str) -> str:
    return " ".join(text.split())


def _course_key(ref: str, catalog: Catalog | None) -> str:
    course = catalog.find(ref) if catalog else None
    return course.id if course else _squash(ref).lower()


# A week's content: course keys, content, tasks, deliverable (spacing squashed).
WeekContent = tuple[tuple[str, ...], str, tuple[str, ...], str]


def week_content(week: Week, catalog: Catalog | None = None) -> WeekContent:
    """What a week asks of the learner, whatever its number and dates (spacing and course naming ignored)."""
    return (
        tuple(_course_key(ref, catalog) for ref in week.courses),
        _squash(week.content),
        tuple(_squash(task) for task in week.tasks),
        _squash(week.deliverable),
    )


def week_signature(week: Week, catalog: Catalog | None = None) -> tuple[object, ...]:
    """Everything a done week must keep: its number, dates and content."""
    return (week.number, week.start, week.end, *week_content(week, catalog))


def changed_fields(before: Week, after: Week, catalog: Catalog | None) -> tuple[WeekField, ...]:
    old, new = week_content(before, catalog), week_content(after, catalog)
    fields: list[WeekField] = []
    if before.number != after.number:
        fields.append("number")
    if (before.start, before.end) != (after.start, after.end):
        fields.append("dates")
    names: tuple[WeekField, ...] = ("courses", "content", "tasks", "deliverable")
    fields += [name for name, old_value, new_value in zip(names, old, new, strict=True) if old_value != new_value]
    return tuple(fields)


def diff_plans(before: PlanDoc, after: PlanDoc, catalog: Catalog | None = None) -> PlanDiff:
    """Which weeks were added, removed, changed, or only moved to other dates.

    Weeks are aligned by what they contain (difflib), so inserting one week shows one added week and the
    later weeks as moved, not every later week as changed.
    """
    old, new = before.weeks, after.weeks
    matcher = SequenceMatcher(
        a=[week_content(w, catalog) for w in old], b=[week_content(w, catalog) for w in new], autojunk=False
    )
    changes: list[WeekChange] = []
    unchanged = 0
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for was, now in zip(old[i1:i2], new[j1:j2], strict=True):
                if (was.number, was.start, was.end) == (now.number, now.start, now.end):
                    unchanged += 1
                else:
                    changes.append(WeekChange("moved", was, now, changed_fields(was, now, catalog)))
            continue
        changes += _replaced(old[i1:i2], new[j1:j2], catalog)
    return PlanDiff(
        changes=tuple(changes),
        unchanged=unchanged,
        before_weeks=len(old),
        after_weeks=len(new),
        before_end=before.end,
        after_end=after.end,
        before_hours=before.hours_per_week,
        after_hours=after.hours_per_week,
    )


def _similarity(before: Week, after: Week, catalog: Catalog | None) -> float:
    old, new = week_content(before, catalog), week_content(after, catalog)
    old_courses, new_courses = set(old[0]), set(new[0])
    shared_courses = len(old_courses & new_courses) / max(len(old_courses | new_courses), 1)
    return shared_courses + SequenceMatcher(a=before.content, b=after.content, autojunk=False).ratio()


def _replaced(old: list[Week], new: list[Week], catalog: Catalog | None) -> list[WeekChange]:
    """A block of old weeks replaced by new ones: as many pairs as possible (in order), each old week paired
    with the new week most like it; the rest are removed or added."""
    # best[i][j]: the best score pairing old[:i] with new[:j]; every pair is worth 1 plus its similarity.
    best = [[0.0] * (len(new) + 1) for _ in range(len(old) + 1)]
    for i in range(1, len(old) + 1):
        for j in range(1, len(new) + 1):
            paired = best[i - 1][j - 1] + 1 + _similarity(old[i - 1], new[j - 1], catalog)
            best[i][j] = max(best[i - 1][j], best[i][j - 1], paired)
    pairs: list[tuple[int, int]] = []
    i, j = len(old), len(new)
    while i and j:
        if best[i][j] == best[i - 1][j]:
            i -= 1
        elif best[i][j] == best[i][j - 1]:
            j -= 1
        else:
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
    changes: list[WeekChange] = []
    next_old = next_new = 0
    for i, j in reversed(pairs):
        changes += [WeekChange("removed", week, None) for week in old[next_old:i]]
        changes += [WeekChange("added", None, week) for week in new[next_new:j]]
        changes.append(WeekChange("changed", old[i], new[j], changed_fields(old[i], new[j], catalog)))
        next_old, next_new = i + 1, j + 1
    changes += [WeekChange("removed", week, None) for week in old[next_old:]]
    changes += [WeekChange("added", None, week) for week in new[next_new:]]
    return changes


def describe_diff(diff: PlanDiff) -> str:
    """The diff in one English sentence, for the model's observation."""
    parts = []
    for kind in ("changed", "added", "removed", "moved"):
        weeks = [
            (change.after or change.before).number  # type: ignore[union-attr]
            for change in diff.changes
            if change.kind == kind
        ]
        if weeks:
            word = "week" if len(weeks) == 1 else "weeks"
            parts.append(f"{kind} {word} {format_weeks(weeks)}")
    if diff.before_hours != diff.after_hours:
        parts.append(f"weekly time {diff.before_hours:g} → {diff.after_hours:g} hours")
    summary = "; ".join(parts) or "no week changed"
    return (
        f"{summary}. The plan now has {diff.after_weeks} weeks and ends on {diff.after_end.isoformat()}"
        f" (before: {diff.before_weeks} weeks, ending {diff.before_end.isoformat()})."
    )
