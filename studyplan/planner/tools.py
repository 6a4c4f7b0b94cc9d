"""The agent's tools: plain functions whose schemas are derived by `studyplan.core.tools`.

Each returns a ToolResult: the observation text the model reads next, written to serve the model's next
decision (the second article, 6.1), and the data code reads. All those texts are written in
`studyplan.planner.observations`. A tool that cannot do its job raises ToolError; the loop turns that into an
observation the model can act on.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Literal

from dateutil import parser as date_parser
from dateutil.rrule import WEEKLY, rrule

from studyplan.core.tools import Tool, ToolRegistry, ToolResult, tool_from_function
from studyplan.domain import vocabulary
from studyplan.domain.catalog import Course
from studyplan.domain.checks import fill_note, review_plan
from studyplan.domain.document import render_plan
from studyplan.engine.goal import parse_goal
from studyplan.errors import StudyplanError
from studyplan.paths import write_new_file
from studyplan.planner import observations
from studyplan.planner.choice_review import read_goal
from studyplan.planner.compose_tool import Drafts, writing_help
from studyplan.planner.context import ToolContext
from studyplan.planner.filenames import checked_plan_filename

SEARCH_LIMIT = 8
MAX_CALENDAR_WEEKS = 156  # three years, the longest plan a goal may ask for
def get_current_date(ctx: ToolContext) -> ToolResult:
    """Today's date. Call it first: never guess the date."""
    return observations.current_date(ctx.today)


def search_courses(
    ctx: ToolContext, topic: str, level: Literal["beginner", "intermediate", "advanced"] | None = None
) -> ToolResult:
    """Find catalog courses (id, level, weeks × h/week, prerequisites); only these may be in a plan.

    Args:
        topic: e.g. "机器学习", "SQL".
    """
    normalized_level = vocabulary.normalize_level(level) if level else None
    matches = ctx.catalog.search(topic, normalized_level)
    result = observations.search_result(
        matches[:SEARCH_LIMIT],
        total=len(matches),
        limit=SEARCH_LIMIT,
        topic=topic,
        level=normalized_level,
        known_topics=ctx.catalog.topics(),
    )
    next_call = _compose_example(ctx, matches[:SEARCH_LIMIT])
    if not next_call:
        return result
    # A 0.5B model given a list and no next step searched again (twice, so the repeat guard ended the run):
    # a concrete call with the goal's own weeks, hours and a valid start is what it can act on.
    text = f"{result.text}\nNext: choose ids from this list in study order (prerequisites first), e.g. {next_call}"
    return ToolResult(text, {**result.data, "next_call": next_call})


def _compose_example(ctx: ToolContext, found: list[Course]) -> str:
    """A compose_plan call built from the goal and the first course found (its prerequisites first); "" when
    nothing was found or there is no goal to take weeks and hours from."""
    goal = read_goal(ctx.goal, ctx.today)
    if not found or goal is None:
        return ""
    first = found[0]
    ids = [*(pid for pid in first.prerequisites if ctx.catalog.get(pid) is not None), first.id]
    start = max(goal.start, ctx.today)
    listed = ", ".join(f'"{course_id}"' for course_id in ids)
    return (
        f"compose_plan(course_ids=[{listed}], weeks={goal.weeks}, hours_per_week={goal.hours_per_week:g}, "
        f'start_date="{start.isoformat()}")'
    )


def plan_calendar(start_date: str, weeks: int) -> ToolResult:
    """List the exact 7-day weeks of a plan, with weekdays, so that week ranges are copied rather than computed.

    Args:
        start_date: The first day of the plan, YYYY-MM-DD.
        weeks: How many weeks the plan lasts.
    """
    try:
        start = date_parser.isoparse(start_date).date()
    except ValueError as exc:
        raise observations.not_a_date(start_date) from exc
    if not 1 <= weeks <= MAX_CALENDAR_WEEKS:
        raise observations.weeks_out_of_range(weeks, MAX_CALENDAR_WEEKS)
    firsts = [week_start.date() for week_start in rrule(WEEKLY, dtstart=start, count=weeks)]
    return observations.calendar([(first, date.fromordinal(first.toordinal() + 6)) for first in firsts])


def save_plan(ctx: ToolContext, content: str, filename: str) -> ToolResult:
    """Save a plan you wrote yourself in Markdown (compose_plan is easier); a refusal shows the template.

    Args:
        filename: Ends in .md.
    """
    name = checked_plan_filename(filename)
    review = review_plan(content, ctx.catalog, ctx.today, goal_hours=_goal_hours(ctx))
    if review.plan is None:
        raise observations.plan_rejected(review.problems, advice=writing_help(ctx))
    # The file is the canonical rendering of what was read, whatever Markdown the model wrote.
    path = write_new_file(ctx.plans_dir, name, render_plan(review.plan, ctx.catalog))
    ctx.saved_plans.append(path)
    return observations.plan_saved(path, name, filled=fill_note(review.filled))


def _goal_hours(ctx: ToolContext) -> float | None:
    """The learner's weekly hours, for a plan the model wrote without a weekly-time line."""
    if not ctx.goal.strip():
        return None
    try:
        return parse_goal(ctx.goal, ctx.today).hours_per_week
    except StudyplanError:  # a goal the run accepted parses; if not, the plan's courses decide
        return None


def build_registry(context: ToolContext) -> ToolRegistry:
    """The tools the study-plan agent may call, in the order the prompt lists them."""

    functions: list[Callable[..., ToolResult]] = [get_current_date, search_courses]
    tools: list[Tool] = [tool_from_function(function) for function in functions]
    tools += [*Drafts().tools(), tool_from_function(save_plan)]
    return ToolRegistry(tools, context)
