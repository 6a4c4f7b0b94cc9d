"""A small valid plan, built with the real plan model, for tests that need save_plan to accept something."""

from __future__ import annotations

from datetime import date, timedelta

from studyplan.domain.catalog import Catalog
from studyplan.domain.document import Phase, PlanDoc, Week, render_plan


def valid_plan(
    catalog: Catalog,
    start: date,
    course_ids: tuple[str, str, str] = ("py4e", "cs50p", "ml-supervised"),
    lang: str = "zh",
    hours_per_week: float = 12,
) -> str:
    """Three one-course phases of two weeks each, starting on `start`."""
    phases = []
    for index, course_id in enumerate(course_ids):
        weeks = []
        for offset in range(2):
            number = index * 2 + offset + 1
            first = start + timedelta(days=7 * (number - 1))
            weeks.append(
                Week(
                    number,
                    first,
                    first + timedelta(days=6),
                    [course_id],
                    f"{course_id} part {offset + 1}",
                    ["watch the lectures", "do the exercises"],
                    "exercise notebook",
                )
            )
        phases.append(Phase(index + 1, f"Phase {index + 1}", weeks, ["I can explain what I learned"]))
    plan = PlanDoc(
        title="Test plan",
        goal="test goal",
        lang=lang,
        start=start,
        end=start + timedelta(days=6 * 7 - 1),  # type: ignore[arg-type]
        hours_per_week=hours_per_week,
        phases=phases,
        resources=list(course_ids),
        time_note="Courses are compressed to fit.",
    )
    return render_plan(plan, catalog)
