"""The offline planner: a rule-based stand-in for the model, behind the same ChatModel interface.

With no endpoint configured, this takes the model's place in the real loop with the real tools and plays the
first article's trajectory: date → search the topic at the learner's level → notice that a beginner needs
prerequisites and search them (parallel calls) → get the calendar → compose and save the plan → summarize.

Like a real model it keeps no state of its own: every reply is derived from the goal (the first user message)
and what the tools did (the run's journal, their structured results: it never reads observation text), so
the same run gives the same reply.
"""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from studyplan.core.journal import Journal, JournalEntry
from studyplan.core.model import ModelReply, ToolCall
from studyplan.domain import vocabulary
from studyplan.domain.catalog import LEVELS, Catalog, Course
from studyplan.domain.document import PlanDoc, render_plan
from studyplan.engine.compose import compose_selection, planner_phrases
from studyplan.engine.goal import Goal, parse_goal
from studyplan.engine.schedule import Slot, Timetable, capstone_weeks
from studyplan.engine.select import (
    SearchKey,
    Selection,
    choose_courses,
    focus_words,
    level_rank,
    mentions,
    prerequisites_of,
)
from studyplan.errors import NoMatchingTopic
from studyplan.paths import display_path
from studyplan.planner.rule_policy import RulePolicy

MAX_SAVE_ATTEMPTS = 2
PACKING_SHARE = 0.1  # of a week, kept free per course when filling the time: pieces rarely fill weeks exactly
MAX_FURTHER_TOPICS = 2
# Until get_current_date has answered, the goal is read against a placeholder day: only its topic, level and
# duration are used then (and its errors raised), never a date.
_PLACEHOLDER_TODAY = date(2000, 1, 3)


# --- reading the run ----------------------------------------------------------------------------------


class _Conversation:
    """The goal and what the tools did (the journal's entries, failed calls included), as the planner asks."""

    def __init__(self, goal_text: str, journal: Journal) -> None:
        self.goal_text = goal_text
        self.journal = journal

    @property
    def exchanges(self) -> list[JournalEntry]:
        return self.journal.entries

    def of(self, name: str) -> list[JournalEntry]:
        return self.journal.of(name)

    def today(self) -> date | None:
        for entry in self.journal.succeeded("get_current_date"):
            return date.fromisoformat(entry.result.data["today"])
        return None

    def searches(self) -> dict[SearchKey, list[str]]:
        """The course ids every search so far listed, in order, by (topic, level)."""
        return {
            (str(entry.arguments.get("topic", "")), entry.arguments.get("level")): list(
                entry.result.data.get("course_ids", [])
            )
            for entry in self.of("search_courses")
        }

    def calendar(self) -> list[tuple[date, date]]:
        for entry in self.journal.succeeded("plan_calendar"):
            return [(date.fromisoformat(first), date.fromisoformat(last)) for first, last in entry.result.data["weeks"]]
        return []


def _found_courses(course_ids: list[str], catalog: Catalog) -> list[Course]:
    """The catalog courses a search listed, in its order."""
    courses = []
    for course_id in course_ids:
        course = catalog.get(course_id)
        if course is not None and course not in courses:
            courses.append(course)
    return courses


# --- the model -----------------------------------------------------------------------------------------


class OfflinePlanner(RulePolicy):
    """A ChatModel that plans with rules instead of a network call."""

    def reply(self, first_user_message: str) -> ModelReply:
        """The next step of the trajectory. A goal no catalog topic matches is declined in prose, as a model
        that searched and found nothing would (the run then ends without a plan)."""
        conversation = _Conversation(first_user_message, self.journal)
        today = conversation.today()
        try:
            goal = parse_goal(conversation.goal_text, today or _PLACEHOLDER_TODAY)
        except NoMatchingTopic as declined:
            return ModelReply(str(declined))
        turn = _Turn(goal, self.catalog, conversation)
        if today is None:
            return turn.ask_date()
        return turn.next_step(today)


class _Turn:
    """One reply: works out where the conversation stands and what to do next."""

    def __init__(self, goal: Goal, catalog: Catalog, conversation: _Conversation) -> None:
        self.goal = goal
        self.catalog = catalog
        self.conversation = conversation
        self.words = planner_phrases(goal.lang)
        self.weeks = goal.weeks  # the learner's time box wins: a 2-week goal gets a 2-week plan

    # replies

    def _reply(self, thought: str, calls: list[tuple[str, dict[str, Any]]]) -> ModelReply:
        numbered = len(self.conversation.exchanges)
        tool_calls = [
            ToolCall(f"call_{numbered + i}", name, json.dumps(arguments, ensure_ascii=False))
            for i, (name, arguments) in enumerate(calls, start=1)
        ]
        return ModelReply(content=thought, tool_calls=tool_calls)

    def _label(self, topic: str) -> str:
        return vocabulary.topic_label(topic, self.goal.lang)

    def _join(self, items: list[str]) -> str:
        return self.words["list_separator"].join(items)

    def _level_label(self, level: str) -> str:
        return self.words["level_labels"][level]

    @staticmethod
    def _search(topic: str, level: str | None) -> tuple[str, dict[str, Any]]:
        return ("search_courses", {"topic": topic, "level": level} if level else {"topic": topic})

    def ask_date(self) -> ModelReply:
        goal = self.goal
        thought = self.words["thought_date"].format(
            topic=self._label(goal.topic),
            level=self.words["level_names"][goal.level],
            weeks=self.weeks,
            hours=goal.hours_per_week,
        )
        # The main search needs no date: both go in the first turn (the first article's parallel calls).
        return self._reply(thought, [("get_current_date", {}), self._search(goal.topic, goal.level)])

    def next_step(self, today: date) -> ModelReply:
        goal = self.goal
        searches = self.conversation.searches()
        main_key: SearchKey = (goal.topic, goal.level)
        if main_key not in searches:
            return self._search_main(today)
        follow_ups = [key for key in self._follow_ups(searches[main_key]) if key not in searches]
        if follow_ups:
            return self._search_more(searches[main_key], follow_ups)
        further = [key for key in self._further_searches() if key not in searches]
        if further:
            return self._search_further(further)
        saves = self.conversation.of("save_plan")
        if saves and saves[-1].ok and "path" in saves[-1].result.data:
            return self._final(display_path(Path(saves[-1].result.data["path"])))
        return self._save(saves)

    def _search_main(self, today: date) -> ModelReply:
        goal = self.goal
        end = goal.start + timedelta(days=7 * self.weeks - 1)
        thought = self.words["thought_search_main"].format(
            today=today.isoformat(),
            start=goal.start.isoformat(),
            weeks=self.weeks,
            end=end.isoformat(),
            level_label=self._level_label(goal.level),
            topic=self._label(goal.topic),
        )
        return self._reply(thought, [self._search(goal.topic, goal.level)])

    def _prerequisite_topics(self) -> list[str]:
        goal = self.goal
        if goal.level != "beginner":
            return []
        return [t for t in prerequisites_of(goal.topic) if t not in goal.known_topics and t != goal.topic]

    def _budget_hours(self) -> float:
        return (self.weeks - capstone_weeks(self.weeks)) * self.goal.hours_per_week

    def _follow_ups(self, main_found: list[str]) -> list[SearchKey]:
        """What to search after the main topic: prerequisites, other topics named, more of the main topic."""
        goal = self.goal
        found = _found_courses(main_found, self.catalog)
        keys: list[SearchKey] = []
        if not found:
            keys.append((goal.topic, None))
        keys += [(topic, "beginner") for topic in self._prerequisite_topics()]
        keys += [(topic, goal.level) for topic in goal.extra_topics if (topic, "beginner") not in keys]
        # Too little at the learner's level for the time, or nothing for the goal's focus (a TOEFL course):
        # look at the higher levels too.
        fitting = sum(c.total_hours for c in found if c.total_hours <= self._budget_hours())
        focus = focus_words(goal.raw)
        if found and (fitting < self._budget_hours() or (focus and not any(mentions(c, focus) for c in found))):
            keys += [(goal.topic, level) for level in LEVELS[level_rank(goal.level) + 1 :]]
        return list(dict.fromkeys(keys))

    def _first_round(self) -> list[SearchKey]:
        main_key: SearchKey = (self.goal.topic, self.goal.level)
        return [main_key, *self._follow_ups(self.conversation.searches().get(main_key, []))]

    def _further_topics(self) -> list[str]:
        """Topics that build on the main one and that the learner is ready for: where the plan goes next when
        the main topic's courses leave time over."""
        goal = self.goal
        ready = set(goal.known_topics) | {goal.topic, *goal.extra_topics, *self._prerequisite_topics()}
        if goal.level != "beginner":  # with a background in a topic, its prerequisites are known too
            ready.update(vocabulary.topic_prerequisites(goal.topic))
        following = [
            topic
            for topic in vocabulary.all_topics()
            if goal.topic in vocabulary.topic_prerequisites(topic)
            and topic not in ready
            and set(vocabulary.topic_prerequisites(topic)) <= ready
        ]
        return following[:MAX_FURTHER_TOPICS]

    def _further_searches(self) -> list[SearchKey]:
        """Searches for the topics that build on the main one, when the first round of searches leaves more
        than a week beyond the capstone unfilled. Decided on the first round only, so it is asked once."""
        first_round = set(self._first_round())
        found = {key: courses for key, courses in self._found().items() if key in first_round}
        selection = self._selection(frozenset(), found)
        planned = sum(chosen.planned_hours for chosen in selection.courses)
        if not selection.courses or planned >= self._budget_hours() - self.goal.hours_per_week:
            return []
        levels = LEVELS[level_rank(self.goal.level) : level_rank(self.goal.level) + 2]
        return [(topic, level) for topic in self._further_topics() for level in levels]

    def _search_further(self, keys: list[SearchKey]) -> ModelReply:
        topics = list(dict.fromkeys(topic for topic, _ in keys))
        thought = self.words["thought_further"].format(
            topic=self._label(self.goal.topic), further=self._join([self._label(t) for t in topics])
        )
        return self._reply(thought, [self._search(topic, level) for topic, level in keys])

    def _search_more(self, main_found: list[str], keys: list[SearchKey]) -> ModelReply:
        goal, words = self.goal, self.words
        found = _found_courses(main_found, self.catalog)
        topic, level_label = self._label(goal.topic), self._level_label(goal.level)
        today = self.conversation.today() or goal.start
        end = goal.start + timedelta(days=7 * self.weeks - 1)
        parts = [words["thought_dates"].format(
            today=today.isoformat(), start=goal.start.isoformat(), weeks=self.weeks, end=end.isoformat())]
        if found:
            names = self._join([c.name for c in found[:3]])
            parts.append(
                words["thought_found"].format(count=len(found), level_label=level_label, topic=topic, names=names)
            )
        else:
            parts.append(words["thought_none_at_level"].format(level_label=level_label, topic=topic))
        prerequisites = [t for t, _ in keys if t in self._prerequisite_topics()]
        if prerequisites:
            parts.append(words["thought_prerequisites"].format(
                topic=topic, prerequisites=self._join([self._label(t) for t in prerequisites])))
        if goal.known_topics:
            parts.append(words["thought_known"].format(known=self._join([self._label(t) for t in goal.known_topics])))
        extra = [t for t, _ in keys if t in goal.extra_topics and t not in prerequisites]
        if extra:
            parts.append(words["thought_extra"].format(extra=self._join([self._label(t) for t in extra])))
        higher = [self._level_label(level) for t, level in keys if t == goal.topic and level and level != goal.level]
        if higher:
            parts.append(words["thought_next_level"].format(level_label=self._join(higher), topic=topic))
        separator = " " if goal.lang == "en" else ""
        return self._reply(separator.join(parts), [self._search(t, level) for t, level in keys])

    # composing and saving

    def _found(self) -> dict[SearchKey, list[Course]]:
        return {key: _found_courses(ids, self.catalog) for key, ids in self.conversation.searches().items()}

    def _excluded(self, saves: list[JournalEntry]) -> frozenset[str]:
        """Courses a rejected save complained about (its data names them): the next attempt leaves them out."""
        return frozenset(course_id for entry in saves for course_id in entry.result.data.get("course_ids", []))

    def _save(self, saves: list[JournalEntry]) -> ModelReply:
        goal, words = self.goal, self.words
        if len(saves) >= MAX_SAVE_ATTEMPTS:
            return self._give_up(saves)
        selection = self._selection(self._excluded(saves))
        if not selection.courses:
            return self._give_up(saves)
        if saves and _ids(selection) == _ids(self._selection(self._excluded(saves[:-1]))):
            return self._give_up(saves)  # the rejection named nothing this planner can leave out
        plan, timetable = self._compose(selection)
        content = render_plan(plan, self.catalog)
        filename = f"{goal.topic.replace('_', '-')}-{self.weeks}w.md"
        capstone = timetable.capstone_count
        ending = (words["thought_ending_capstone"].format(count=capstone) if capstone
                  else words["thought_ending_none"])
        time_status = words["thought_time_short"] if plan.time_note else words["thought_time_ok"]
        courses = self._join([self._course_span(chosen.course, timetable.slots) for chosen in timetable.courses])
        thought = words["thought_save"].format(
            hours=goal.hours_per_week, courses=courses, phases=len(plan.phases), ending=ending, time_status=time_status
        )
        if saves:
            problems = saves[-1].result.text.strip().replace("\n", " ")
            dropped = self._join(sorted(self._excluded(saves))) or "-"
            thought = words["thought_retry"].format(problems=problems, dropped=dropped) + " " + thought
        return self._reply(thought, [("save_plan", {"content": content, "filename": filename})])

    def _compose(self, selection: Selection) -> tuple[PlanDoc, Timetable]:
        return compose_selection(self.goal, self.weeks, selection, self.catalog, self.conversation.calendar())

    def _selection(self, excluded: frozenset[str], found: dict[SearchKey, list[Course]] | None = None) -> Selection:
        weeks, hours = self.weeks, self.goal.hours_per_week
        hours_available = (weeks - min(capstone_weeks(weeks), 1)) * hours
        found = self._found() if found is None else found
        further = tuple(topic for topic in self._further_topics() if any(key[0] == topic for key in found))
        return choose_courses(
            self.goal, self._prerequisite_topics(), found, self._budget_hours(), hours_available,
            self.catalog, excluded, further, fillable_later=bool(self._further_topics()),
            packing_hours=hours * PACKING_SHARE,
        )

    def _course_span(self, course: Course, slots: list[list[Slot]]) -> str:
        numbers = [i + 1 for i, week_slots in enumerate(slots) if any(s.chosen.course == course for s in week_slots)]
        span = f"{numbers[0]}–{numbers[-1]}" if numbers and numbers[0] != numbers[-1] else str(numbers[0])
        return self.words["course_span"].format(name=course.name, span=span)

    def _give_up(self, saves: list[JournalEntry]) -> ModelReply:
        problems = saves[-1].result.text.strip().replace("\n", " ") if saves else ""
        return ModelReply(content=self.words["give_up"].format(problems=problems))

    def _final(self, path: str) -> ModelReply:
        goal, words = self.goal, self.words
        # The plan is composed again rather than read back from the save's arguments: the same run gives the
        # same plan.
        saves = self.conversation.of("save_plan")
        plan, _ = self._compose(self._selection(self._excluded(saves[:-1])))
        phases = "\n".join(
            words["final_phase" if phase.weeks[0] != phase.weeks[-1] else "final_phase_single"].format(
                number=phase.number, title=phase.title, first=phase.weeks[0].number, last=phase.weeks[-1].number
            )
            for phase in plan.phases
            if phase.weeks
        )
        courses = self._join([course.name if (course := self.catalog.get(ref)) else f"[{ref}]"
                              for ref in plan.resources])
        time_note = words["final_time_note"].format(note=plan.time_note) if plan.time_note else ""
        separator = " " if goal.lang == "en" else ""
        assumptions = (
            words["final_assumptions"].format(items=separator.join(plan.assumptions)) if plan.assumptions else ""
        )
        text = words["final"].format(
            weeks=len(plan.weeks),
            topic=self._label(goal.topic),
            start=plan.start.isoformat(),
            end=plan.end.isoformat(),
            hours=plan.hours_per_week,
            path=path,
            phases=phases,
            courses=courses,
            time_note=time_note,
            assumptions=assumptions,
        )
        return ModelReply(content=text)


def _ids(selection: Selection) -> list[str]:
    return [chosen.course.id for chosen in selection.courses]
