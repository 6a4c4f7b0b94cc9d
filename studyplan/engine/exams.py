"""Exam targets ("雅思6.5", "TOEFL 100", "一年考N2"): what the plan aims at, its real sections and mock tests,
and whether the plan's hours can reach it, checked against published estimates (data/targets.json, with
their sources). Plain functions over data.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any

from studyplan.lang import Lang

# Which topic an exam belongs to: a target is only read from a goal about that topic. Career targets (an
# interview, a job: data "role_target") are read from a goal about any topic; their level is the role.
EXAM_TOPICS = {"ielts": "english", "toefl": "english", "jlpt": "japanese", "hsk": "chinese"}
MOCK_SPACING_WEEKS = 4  # a full mock test about once a month, the diagnostic in week 1 and one near the end


@functools.cache
def targets_data() -> dict[str, Any]:
    text = resources.files("studyplan.data").joinpath("targets.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


@dataclass(frozen=True)
class Target:
    exam: str  # "ielts", "toefl", "jlpt", "hsk", "interview", "job"
    level: str  # "6.5", "100", "N2", "4", or the role of a career target ("数据分析", "junior front-end")
    stated: bool  # False when the goal names the exam but no score or level (the default is assumed)

    def data(self) -> dict[str, Any]:
        exam: dict[str, Any] = targets_data()["exams"][self.exam]
        return exam

    def label(self, lang: Lang) -> str:
        if not self.level:  # a career target that names no role
            return str(self.data()["default_label"][lang])
        return str(self.data()["target_label"][lang].format(level=self.level))

    def exam_name(self, lang: Lang) -> str:
        return str(self.data()["names"][lang])


def read_target(text: str, topic: str) -> Target | None:
    """The exam target a goal names for its topic, e.g. Target("ielts", "6.5")."""
    for exam, data in targets_data()["exams"].items():
        if EXAM_TOPICS.get(exam) != topic and not data.get("role_target"):
            continue
        match = re.search(data["pattern"], text, re.IGNORECASE)
        if match is None:
            continue
        level = match.groupdict().get("level") or match.groupdict().get("level2")
        if data.get("role_target"):
            return Target(exam, (level or "").strip(), stated=level is not None)
        if level is None:
            return Target(exam, data["default_level"], stated=False)
        level = level.upper()
        if exam == "ielts" and "." not in level:
            level += ".0"
        return Target(exam, level, stated=True)
    return None


def mock_weeks(course_weeks: int) -> list[int]:
    """0-based weeks with a full mock test: the diagnostic first, then about once a month, the last one in
    the last week of study."""
    if course_weeks <= 1:
        return [0]
    count = max(2, round((course_weeks - 1) / MOCK_SPACING_WEEKS) + 1)
    count = min(count, course_weeks)
    return sorted({round(i * (course_weeks - 1) / (count - 1)) for i in range(count)})


def phrases(lang: Lang) -> dict[str, str]:
    words: dict[str, str] = targets_data()["phrases"][lang]
    return words


def target_phrases(target: Target, lang: Lang) -> dict[str, str]:
    """The shared phrases with the target's own in their place (a mock interview is not a practice test)."""
    own: dict[str, str] = target.data().get("phrases", {}).get(lang, {})
    return {**phrases(lang), **own}


def capstone_project(target: Target, lang: Lang) -> str:
    return target_phrases(target, lang)["capstone_project"].format(target=target.label(lang))


def mock_task(target: Target, lang: Lang, number: int) -> str:
    """Number 0 is the diagnostic."""
    words, data = target_phrases(target, lang), target.data()
    key = "mock_diagnostic" if number == 0 else "mock"
    return words[key].format(
        exam=target.exam_name(lang), sections=data["sections"][lang], target=target.label(lang), number=number
    )


def mock_deliverable(target: Target, lang: Lang, number: int) -> str:
    words = target_phrases(target, lang)
    if number == 0:
        return words["diagnostic_deliverable"]
    return words["mock_deliverable"].format(number=number, target=target.label(lang))


def drills(target: Target, lang: Lang) -> tuple[list[str], list[str]]:
    """Per-section practice tasks and deliverables, at the target's level."""
    data = target.data()
    tasks = [task.format(level=target.level) for task in data["drills"][lang]]
    return tasks, [item.format(level=target.level) for item in data["drill_deliverables"][lang]]


def phase_title(title: str, target: Target, lang: Lang) -> str:
    return target_phrases(target, lang)["phase_target"].format(title=title, target=target.label(lang))


def self_check(target: Target, lang: Lang, final: bool) -> str:
    words = target_phrases(target, lang)
    return words["self_check_final" if final else "self_check_target"].format(target=target.label(lang))


def _hours_range(target: Target, lang: Lang) -> tuple[int, int] | None:
    data = target.data()
    if target.exam == "jlpt":
        background = "kanji" if lang == "zh" else "no_kanji"  # a learner who writes Chinese reads kanji
        low, high = data["hours"][target.level][background]
        return int(low), int(high)
    cefr = _cefr(target)
    if cefr is None:
        return None
    low, high = data["hours_by_cefr"][cefr]
    return int(low), int(high)


def _cefr(target: Target) -> str | None:
    data = target.data()
    if "levels" in data:
        return data["levels"].get(target.level)
    if "level_ranges" in data:
        score = float(target.level)
        reached = [cefr for floor, cefr in data["level_ranges"] if score >= floor]
        return reached[-1] if reached else None
    return None


def feasibility(target: Target, lang: Lang, level: str, weeks: int, hours_per_week: float) -> str:
    """The feasibility line in numbers: what the target usually needs, what the plan has, what it does."""
    words, data = target_phrases(target, lang), target.data()
    estimate = _hours_range(target, lang)
    if estimate is None:
        return words["no_hours"].format(target=target.label(lang), source=data["hours_source"][lang])
    have = round(weeks * hours_per_week)
    already = int(targets_data()["levels_as_hours"].get(level, 0)) if data.get("uses_level_hours") else 0
    need_low, need_high = max(0, estimate[0] - already), max(0, estimate[1] - already)
    line = words["feasibility_hours"].format(
        target=target.label(lang), low=estimate[0], high=estimate[1], source=data["hours_source"][lang],
        need_low=need_low, need_high=need_high, have=have, weeks=weeks, hours=hours_per_week,
    )  # fmt: skip
    verdict = words["feasibility_short"] if have < need_low else words["feasibility_ok"]
    separator = " " if lang == "en" else ""
    parts = [line, verdict.format(exam=target.exam_name(lang))]
    if (reaches := data.get("catalog_reaches")) and _beyond(target, reaches):
        parts.append(words["no_material"].format(exam=target.exam_name(lang), reaches=reaches,
                                                 target=target.label(lang)))
    return separator.join(parts)


def _beyond(target: Target, reaches: str) -> bool:
    order: list[str] = target.data().get("order", [])
    return target.level in order and reaches in order and order.index(target.level) > order.index(reaches)
