"""The model chooses, the code composes: compose_plan and save_draft.

compose_plan takes only what the model should decide (which catalog courses, in what order, the weeks, the
hours a week, the start, the plan's language, optional focus notes), checks those choices against the goal
(studyplan.planner.choice_review) and composes the complete plan with the planning engine the offline planner
uses: exact dates, course units per week, tasks, deliverables, self-checks per phase, resources and the time
note. The model reads a short summary and a draft id; save_draft writes that draft, so a small model never has
to copy 5,000 characters of Markdown back. save_plan stays for models that write their own Markdown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Literal

from dateutil import parser as date_parser

from studyplan.core.tools import Tool, ToolResult, tool_from_function
from studyplan.domain.checks import check_plan
from studyplan.domain.document import PlanDoc, plan_template, render_plan
from studyplan.engine.compose import CompositionRequest, compose_plan
from studyplan.errors import ToolError
from studyplan.planner import observations
from studyplan.planner.choice_review import Choices, Review, plan_assumptions, read_goal, review_choices
from studyplan.planner.context import ToolContext
from studyplan.planner.filenames import checked_plan_filename

MAX_NOTES_CHARS = 600
_NOTE_SPLIT = re.compile(r"[\n;；]+")


@dataclass(frozen=True)
class Draft:
    plan: PlanDoc
    markdown: str
    filename: str  # the name offered when the model gives none


def _parse_start(text: str, today: date) -> date:
    try:
        return date_parser.isoparse(text.strip()).date()
    except ValueError as exc:
        monday = today + timedelta(days=(7 - today.weekday()) % 7 or 7)
        raise ToolError(
            f"start_date {text!r} is not a date in YYYY-MM-DD form. Today is {today.isoformat()} ({today:%A}); "
            f"e.g. start_date=\"{today.isoformat()}\" or the next Monday, \"{monday.isoformat()}\"."
        ) from exc


def _notes(text: str | None) -> tuple[str, ...]:
    if not text:
        return ()
    return tuple(note.strip() for note in _NOTE_SPLIT.split(text[:MAX_NOTES_CHARS]) if note.strip())


def _suggested_call(review: Review) -> str:
    ids = ", ".join(f'"{course_id}"' for course_id in review.suggested_ids)
    return (
        f"compose_plan(course_ids=[{ids}], weeks={review.weeks}, hours_per_week={review.hours_per_week:g}, "
        f'start_date="{review.start.isoformat()}")'
    )


def _refusal(review: Review) -> str:
    lines = ["nothing was composed. Fix these and call compose_plan again:"]
    lines += [f"- {problem}" for problem in review.problems + review.adjusted]
    if review.suggested_ids:
        lines.append(f"Corrected call: {_suggested_call(review)}")
    return "\n".join(lines)


def writing_help(ctx: ToolContext) -> str:
    """What a model writing its own Markdown is told when save_plan refuses it: the easier way, with the
    goal's own values, and the template (sent only then, not in every round's system prompt)."""
    goal = read_goal(ctx.goal, ctx.today)
    weeks = goal.weeks if goal else "<weeks>"
    hours = f"{goal.hours_per_week:g}" if goal else "<hours>"
    start = (goal.start if goal else ctx.today).isoformat()
    return (
        "Easier: let the code write the plan. Call compose_plan(course_ids=[ids from search_courses], "
        f'weeks={weeks}, hours_per_week={hours}, start_date="{start}"), then save_draft(draft_id=...).\n'
        "To write it yourself, follow this template exactly (same headings and labels):\n\n"
        + plan_template(goal.lang if goal else "en")
    )


class Drafts:
    """The drafts of one run, by id; each registry has its own (nothing is shared between runs)."""

    def __init__(self) -> None:
        self._drafts: dict[str, Draft] = {}

    def compose_plan(
        self,
        ctx: ToolContext,
        course_ids: list[str],
        weeks: int,
        hours_per_week: float,
        start_date: str,
        language: Literal["zh", "en"] | None = None,
        notes: str | None = None,
    ) -> ToolResult:
        """Compose the dated plan from the courses you chose; returns a summary and a draft_id.

        Args:
            course_ids: Catalog ids in study order.
            weeks: As the goal says.
            hours_per_week: As the goal says.
            start_date: YYYY-MM-DD, today or later.
            notes: Optional focus, one note per line.
        """
        today = ctx.today
        choices = Choices(tuple(course_ids), weeks, hours_per_week, _parse_start(start_date, today), language)
        goal = read_goal(ctx.goal, today)
        review = review_choices(choices, goal, ctx.catalog, today)
        if not review.ok:
            raise ToolError(_refusal(review))
        request = CompositionRequest(
            course_ids=tuple(course.id for course in review.courses),
            weeks=review.weeks,
            hours_per_week=review.hours_per_week,
            start=review.start,
            lang=review.lang,
            goal_text=ctx.goal,
            level=review.level,  # type: ignore[arg-type]
            notes=plan_assumptions(goal, review, today) + _notes(notes),
        )
        composition = compose_plan(request, ctx.catalog)
        plan = composition.plan
        draft_id = f"draft-{len(self._drafts) + 1}"
        topic = goal.topic.replace("_", "-") if goal else review.courses[0].id
        filename = f"{topic}-{review.weeks}w.md"
        self._drafts[draft_id] = Draft(plan, render_plan(plan, ctx.catalog), filename)
        lines = [
            f"Draft {draft_id} is composed (not saved yet): {len(plan.weeks)} weeks, "
            f"{plan.start.isoformat()} ({plan.start:%A}) to {plan.end.isoformat()} ({plan.end:%A}), "
            f"{plan.hours_per_week:g} h/week, {len(plan.phases)} phases, in {review.lang}.",
            composition.summary,
        ]
        lines += [f"Changed to follow the goal: {item}" for item in review.adjusted]
        lines += [f"Note: {item}" for item in review.notes]
        lines.append(f'Next: save_draft(draft_id="{draft_id}", filename="{filename}"), then answer the learner.')
        data = {
            "draft_id": draft_id,
            "course_ids": [course.id for course in review.courses],
            "weeks": [[week.start.isoformat(), week.end.isoformat()] for week in plan.weeks],
        }
        return ToolResult("\n".join(lines), data)

    def save_draft(self, ctx: ToolContext, draft_id: str, filename: str | None = None) -> ToolResult:
        """Save the draft compose_plan made.

        Args:
            filename: Optional, ends in .md.
        """
        from studyplan.paths import write_new_file
        draft = self._drafts.get(draft_id.strip())
        if draft is None:
            known = ", ".join(self._drafts) or "none yet: call compose_plan first"
            raise ToolError(f"there is no draft {draft_id!r} in this run; its drafts: {known}.")
        name = checked_plan_filename(filename) if filename and filename.strip() else draft.filename
        problems = check_plan(draft.markdown, ctx.catalog, ctx.today)
        if problems:  # the composer's output always passes; a failure here is a bug worth seeing
            raise observations.plan_rejected(problems, tool="save_draft")
        path = write_new_file(ctx.plans_dir, name, draft.markdown)
        ctx.saved_plans.append(path)
        saved = observations.plan_saved(path, name)
        plan = draft.plan
        return ToolResult(
            f"{saved.text}\n"
            f"Now answer the learner without calling a tool: where the plan is, {plan.start.isoformat()} to "
            f"{plan.end.isoformat()}, its {len(plan.phases)} phases and courses.",
            saved.data,
        )

    def tools(self) -> list[Tool]:
        return [tool_from_function(self.compose_plan), tool_from_function(self.save_draft)]
