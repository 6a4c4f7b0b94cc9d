"""Checking a model's choices for a plan against the learner's goal, before the code composes the plan.

The model chooses the courses, their order, the weeks, the hours a week and the start; the goal parser and
the catalog know what the goal asks for. Where the goal is explicit (a duration, hours a week, a start day)
the goal wins and the review says so; a start before today is refused whatever the goal says. Choices only
the model can mend (a course for a skill the learner has, a goal topic no chosen course covers, a missing
prerequisite, an id not in the catalog) come back as problems, each with the concrete fix and a corrected
call, so that a small model can act on it in one more call.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta

from studyplan.domain import vocabulary
from studyplan.domain.catalog import LEVELS, Catalog, Course
from studyplan.engine.goal import DEFAULT_HOURS, DEFAULT_WEEKS, Goal, Lang, load_phrases, parse_goal
from studyplan.errors import UsageError

MIN_PLAN_WEEKS = 3  # three phases, each of at least one week
MAX_PLAN_WEEKS = 156
MAX_HOURS_PER_WEEK = 84
# A start further ahead than this is a date copied from an example or guessed, unless the goal names it.
MAX_DAYS_AHEAD = 180
OVERLOAD = 1.5  # courses needing more than 1.5× the plan's hours cannot be compressed into a plan worth following
SUGGESTIONS = 3


@dataclass(frozen=True)
class Choices:
    """What the model decided (after the arguments were read)."""

    course_ids: tuple[str, ...]
    weeks: int
    hours_per_week: float
    start: date
    lang: Lang | None = None


@dataclass
class Review:
    """The choices as they will be composed, and what the model must hear about them."""

    courses: list[Course]
    weeks: int
    hours_per_week: float
    start: date
    lang: Lang
    level: str
    problems: list[str] = field(default_factory=list)  # nothing is composed while there are any
    adjusted: list[str] = field(default_factory=list)  # choices the goal overrode (composed anyway)
    notes: list[str] = field(default_factory=list)  # worth knowing, composed anyway
    suggested_ids: list[str] = field(default_factory=list)  # the course list once every problem is fixed
    weeks_fixed: bool = False  # the goal gives the duration: more weeks is not a fix to offer

    @property
    def ok(self) -> bool:
        return not self.problems


def read_goal(goal_text: str, today: date) -> Goal | None:
    """The parsed goal, or None when there is none to check against (no goal given, or one the parser
    cannot plan: then the model's choices stand on their own)."""
    if not goal_text.strip():
        return None
    try:
        return parse_goal(goal_text, today)
    except UsageError:
        return None


def _said(goal: Goal, key: str, **values: object) -> bool:
    """Whether the goal parser filled `key` with a default (the goal itself did not say it)."""
    return load_phrases()["goal"][goal.lang][key].format(**values) in goal.assumptions


def explicit_weeks(goal: Goal) -> bool:
    return not _said(goal, "default_weeks", weeks=DEFAULT_WEEKS)


def explicit_hours(goal: Goal) -> bool:
    return not _said(goal, "default_hours", hours=DEFAULT_HOURS[goal.level])


def explicit_start(goal: Goal, today: date) -> bool:
    return not _said(goal, "default_start", start=today.isoformat()) and goal.start != today


def plan_assumptions(goal: Goal | None, review: Review, today: date) -> tuple[str, ...]:
    """What the plan assumes, in the goal's language, true of the choices as composed: the goal parser's own
    assumptions (level, a converted duration, a start that had passed), the defaults restated with the values
    the model chose, and the topics the learner already knows."""
    if goal is None:
        return ()
    words = load_phrases()["goal"][goal.lang]
    restated = {
        words["default_weeks"].format(weeks=DEFAULT_WEEKS),
        words["default_hours"].format(hours=DEFAULT_HOURS[goal.level]),
        words["default_start"].format(start=today.isoformat()),
    }
    items = [text for text in goal.assumptions if text not in restated]
    if not explicit_weeks(goal):
        items.append(words["default_weeks"].format(weeks=review.weeks))
    if not explicit_hours(goal):
        items.append(words["default_hours"].format(hours=review.hours_per_week))
    if not explicit_start(goal, today) and review.start == today:
        items.append(words["default_start"].format(start=today.isoformat()))
    if goal.known_topics:
        separator = words["separator"]
        known = separator.join(vocabulary.topic_label(topic, goal.lang) for topic in goal.known_topics)
        items.append(load_phrases()["planner"][goal.lang]["assumption_known"].format(topics=known))
    return tuple(items)


def _label(course: Course) -> str:
    return f"[{course.id}] {course.name}"


def _hours(value: float) -> str:
    return f"{value:g}"


def review_choices(choices: Choices, goal: Goal | None, catalog: Catalog, today: date) -> Review:
    """Check the model's choices against the goal and the catalog (see the module docstring)."""
    review = Review(
        courses=[],
        weeks=choices.weeks,
        hours_per_week=choices.hours_per_week,
        start=choices.start,
        lang=choices.lang or (goal.lang if goal else "en"),
        level=goal.level if goal else "beginner",
    )
    _review_time(review, choices, goal, today)
    _review_courses(review, choices, goal, catalog)
    if review.courses:
        _review_fit(review)
    return review


def _review_time(review: Review, choices: Choices, goal: Goal | None, today: date) -> None:
    """Weeks, hours, start and language: the goal's explicit values win; the start is never in the past."""
    if goal is not None:
        review.weeks_fixed = explicit_weeks(goal)
        if review.weeks_fixed and choices.weeks != max(goal.weeks, MIN_PLAN_WEEKS):
            review.weeks = max(goal.weeks, MIN_PLAN_WEEKS)
            review.adjusted.append(
                f"weeks: you gave {choices.weeks}, the goal asks for {goal.weeks} "
                f"(\"{goal.raw}\"); the plan uses {review.weeks}."
            )
        if explicit_hours(goal) and abs(choices.hours_per_week - goal.hours_per_week) > 1e-6:
            review.hours_per_week = goal.hours_per_week
            review.adjusted.append(
                f"hours_per_week: you gave {_hours(choices.hours_per_week)}, the goal says "
                f"{_hours(goal.hours_per_week)}; the plan uses {_hours(goal.hours_per_week)}."
            )
        if choices.lang is not None and choices.lang != goal.lang:
            review.lang = goal.lang
            review.adjusted.append(f"language: the goal is written in {goal.lang}, so the plan is too.")
    if not MIN_PLAN_WEEKS <= review.weeks <= MAX_PLAN_WEEKS:
        review.problems.append(f"weeks must be between {MIN_PLAN_WEEKS} and {MAX_PLAN_WEEKS}, got {review.weeks}.")
    if not 1 <= review.hours_per_week <= MAX_HOURS_PER_WEEK:
        review.problems.append(
            f"hours_per_week must be between 1 and {MAX_HOURS_PER_WEEK}, got {_hours(review.hours_per_week)}."
        )
    _review_start(review, choices, goal, today)


def _review_start(review: Review, choices: Choices, goal: Goal | None, today: date) -> None:
    next_monday = today + timedelta(days=(7 - today.weekday()) % 7 or 7)
    today_text = f"today is {today.isoformat()} ({today:%A})"
    if goal is not None and explicit_start(goal, today) and choices.start != goal.start:
        review.start = goal.start
        review.adjusted.append(
            f"start_date: you gave {choices.start.isoformat()}, the goal says {goal.start.isoformat()} "
            f"({goal.start:%A}); the plan starts then."
        )
        return
    fixed_start = goal.start if goal is not None and goal.start >= today else today
    if choices.start < today:
        review.start = fixed_start  # the corrected call offers it
        review.problems.append(
            f"start_date {choices.start.isoformat()} is in the past: {today_text}. Use a date on or after it, "
            f"e.g. start_date=\"{today.isoformat()}\" or the next Monday, \"{next_monday.isoformat()}\"."
        )
    elif choices.start > today + timedelta(days=MAX_DAYS_AHEAD):
        review.start = fixed_start
        review.problems.append(
            f"start_date {choices.start.isoformat()} is more than {MAX_DAYS_AHEAD} days ahead: {today_text} "
            f"(call get_current_date rather than guess). Use e.g. start_date=\"{next_monday.isoformat()}\"."
        )


def _review_courses(review: Review, choices: Choices, goal: Goal | None, catalog: Catalog) -> None:
    chosen: list[Course] = []
    for ref in choices.course_ids:
        course = catalog.find(ref.strip().strip("[]"))
        if course is None:
            closest = ", ".join(f"[{c.id}]" for c in catalog.closest(ref))
            hint = f" (closest: {closest})" if closest else ""
            review.problems.append(
                f"[{ref}] is not a catalog course id{hint}: use only ids that search_courses returned."
            )
        elif course in chosen:
            review.notes.append(f"[{course.id}] was listed twice; it is planned once.")
        else:
            chosen.append(course)
    if not choices.course_ids:
        review.problems.append("course_ids is empty: give the ids of the catalog courses to take, in order.")
    review.courses = _in_prerequisite_order(chosen, review)
    keep = list(review.courses)
    if goal is not None:
        keep = _review_known(review, keep, goal)
        keep = _review_topics(review, keep, goal, catalog)
    keep = _review_prerequisites(review, keep, goal, catalog)
    review.suggested_ids = [course.id for course in keep]


def _in_prerequisite_order(courses: list[Course], review: Review) -> list[Course]:
    """The courses in the model's order, except that a course's chosen prerequisites come before it."""
    ordered: list[Course] = []

    def place(course: Course) -> None:
        if course in ordered:
            return
        for other in courses:
            if other.id in course.prerequisites:
                place(other)
        ordered.append(course)

    for course in courses:
        place(course)
    if ordered != courses:
        review.notes.append(
            "order: prerequisites moved before the courses that need them: "
            + ", ".join(f"[{c.id}]" for c in ordered) + "."
        )
    return ordered


def _review_known(review: Review, courses: list[Course], goal: Goal) -> list[Course]:
    """Courses only about what the learner says they already know."""
    wanted = {goal.topic, *goal.extra_topics}
    known = set(goal.known_topics)
    keep = []
    for course in courses:
        if known.intersection(course.topics) and not wanted.intersection(course.topics):
            labels = ", ".join(vocabulary.topic_label(t, "en") for t in course.topics if t in known)
            review.problems.append(
                f"{_label(course)} teaches {labels}, which the learner already knows (\"{goal.raw}\"): "
                f"leave it out."
            )
        else:
            keep.append(course)
    return keep


def _candidates(catalog: Catalog, topic: str, level: str, exclude: list[Course]) -> list[Course]:
    """Catalog courses mainly about `topic`, at the learner's level first, then the other levels."""
    rank = LEVELS.index(level) if level in LEVELS else 0
    levels = [LEVELS[rank], *(lvl for lvl in LEVELS if lvl != LEVELS[rank])]
    found: list[Course] = []
    for lvl in levels:
        for course in catalog.search(topic, lvl):
            if course not in exclude and course not in found and course.topics and course.topics[0] == topic:
                found.append(course)
    return found or [c for c in catalog.search(topic) if c not in exclude]


def _describe(course: Course) -> str:
    return f"[{course.id}] {course.name} ({course.level}, {course.weeks} weeks × {course.hours_per_week:g} h)"


def _review_topics(review: Review, courses: list[Course], goal: Goal, catalog: Catalog) -> list[Course]:
    """A topic of the goal that none of the chosen courses covers: name the ids that do."""
    keep = list(courses)
    named = set(vocabulary.find_topics(goal.raw))  # what the goal says; the parser also implies topics
    for topic in (goal.topic, *goal.extra_topics):
        if any(topic in course.topics for course in keep):
            continue
        options = _candidates(catalog, topic, goal.level, keep)[:SUGGESTIONS]
        label = vocabulary.topic_label(topic, "en")
        if not options:
            review.notes.append(f"the catalog has no course for {label}; the plan cannot cover it.")
            continue
        listed = "; ".join(_describe(course) for course in options)
        if topic != goal.topic and topic not in named:
            review.notes.append(f"the goal usually also covers {label}: consider one of {listed}.")
            continue
        review.problems.append(f"no chosen course covers {label}, which the goal asks for: add one of {listed}.")
        keep.append(options[0])
    if goal.level == "beginner":
        _note_topic_prerequisites(review, keep, goal, catalog)
    return keep


def _note_topic_prerequisites(review: Review, courses: list[Course], goal: Goal, catalog: Catalog) -> None:
    """A beginner usually needs the main topic's foundations (machine learning: Python, linear algebra...):
    a note, not a problem, since the weeks may not hold them all."""
    covered = {topic for course in courses for topic in course.topics} | set(goal.known_topics)
    for topic in vocabulary.topic_prerequisites(goal.topic):
        if topic in covered:
            continue
        options = _candidates(catalog, topic, "beginner", courses)[:2]
        if options:
            ids = " or ".join(f"[{course.id}]" for course in options)
            label = vocabulary.topic_label(topic, "en")
            review.notes.append(f"a beginner usually needs {label} first: consider {ids} at the start.")


def _prerequisite_met(prerequisite: Course, taken: list[Course], goal: Goal | None, level: str) -> bool:
    """As the offline planner reads prerequisites: taken, below the learner's level, or its topic known."""
    if prerequisite in taken:
        return True
    if LEVELS.index(prerequisite.level) < LEVELS.index(level if level in LEVELS else "beginner"):
        return True
    covered = {topic for course in taken for topic in course.topics}
    if goal is not None:
        covered |= set(goal.known_topics)
    return bool(covered.intersection(prerequisite.topics[:1]))


def _review_prerequisites(
    review: Review, courses: list[Course], goal: Goal | None, catalog: Catalog
) -> list[Course]:
    """A chosen course whose prerequisite course is neither chosen nor covered at the learner's level."""
    keep: list[Course] = []
    for course in courses:
        for prerequisite_id in course.prerequisites:
            prerequisite = catalog.get(prerequisite_id)
            if prerequisite is None or _prerequisite_met(prerequisite, keep, goal, review.level):
                continue
            review.problems.append(
                f"{_label(course)} needs {_label(prerequisite)} first, and the learner is a {review.level}: "
                f"add [{prerequisite.id}] before [{course.id}]."
            )
            keep.append(prerequisite)
        keep.append(course)
    return keep


def _review_fit(review: Review) -> None:
    """Courses far beyond the plan's hours, or far below them: composed anyway, with the fix named."""
    need = sum(course.total_hours for course in review.courses)
    have = review.weeks * review.hours_per_week
    if need > have * OVERLOAD:
        weeks_needed = min(MAX_PLAN_WEEKS, int(-(-need // review.hours_per_week)) + 1)
        fix = "leave out the least needed course" if review.weeks_fixed else (
            f"give about {weeks_needed} weeks or leave out the least needed course")
        review.notes.append(
            f"time: the courses need {need:g} h, the plan has {have:g} h ({review.weeks} weeks × "
            f"{_hours(review.hours_per_week)} h), so they are compressed (see the time note); to avoid it, {fix}."
        )
    elif need < have * 0.5:
        review.notes.append(
            f"time: the courses fill {need:g} of the plan's {have:g} h; the rest is review and a project. "
            "search_courses for more on the topic to fill it, or keep it as is."
        )
