"""Composing the plan document: chosen courses, the weeks and the calendar in, a PlanDoc out.

`compose_selection` is what the offline planner uses (its courses carry the topic and role they were chosen
for); `compose_plan` is the same composition for course ids given in order, as a model's composing tool
calls it, with a short summary of what went where and what did not fit.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date, timedelta
from typing import Any, Literal

from studyplan.domain import vocabulary
from studyplan.domain.catalog import Catalog, Course, Level
from studyplan.domain.document import Phase, PlanDoc, Week
from studyplan.engine import exams, skills
from studyplan.engine.goal import Goal, load_phrases
from studyplan.engine.schedule import SLIVER_SHARE, Slot, Step, Timetable, capstone_weeks, fit_timetable
from studyplan.engine.select import ChosenCourse, Selection
from studyplan.engine.week_text import slot_text, span_text, study_task, unitless
from studyplan.lang import Lang

MAX_PHASE_WEEKS = 16

Stage = Literal["foundation", "core", "advanced", "capstone"]


def planner_phrases(lang: str) -> dict[str, Any]:
    """The planner's wording in one language (data/offline_phrases.json)."""
    return load_phrases()["planner"][lang]


@dataclass(frozen=True)
class _PhaseDraft:
    stage: Stage
    weeks: list[int]  # 0-based week indexes


def _stage_of(week_slots: list[Slot]) -> Stage:
    if not week_slots:
        return "capstone"
    return max(week_slots, key=lambda slot: slot.hours).chosen.role


def _cut(weeks: list[int], slots: list[list[Slot]]) -> int:
    """Where to halve a phase: at a course's end near the middle, else in the middle."""
    length = len(weeks)
    ends = [k + 1 for k, index in enumerate(weeks[:-1]) if any(slot.finishes for slot in slots[index])]
    near_middle = [k for k in ends if length / 4 <= k <= 3 * length / 4]
    return min(near_middle, key=lambda k: (abs(k - length / 2), k)) if near_middle else (length + 1) // 2


def _phase_drafts(slots: list[list[Slot]]) -> list[_PhaseDraft]:
    """Consecutive weeks of one stage form a phase; the longest is halved while there are fewer than three
    phases or one is longer than MAX_PHASE_WEEKS."""
    segments: list[tuple[Stage, list[int]]] = []
    for index, week_slots in enumerate(slots):
        stage = _stage_of(week_slots)
        if segments and segments[-1][0] == stage:
            segments[-1][1].append(index)
        else:
            segments.append((stage, [index]))
    while len(segments) < 3 or any(len(weeks) > MAX_PHASE_WEEKS for _, weeks in segments):
        longest = max(range(len(segments)), key=lambda i: len(segments[i][1]))
        stage, weeks = segments[longest]
        if len(weeks) < 2:
            break
        cut = _cut(weeks, slots)
        segments[longest : longest + 1] = [(stage, weeks[:cut]), (stage, weeks[cut:])]
    return [_PhaseDraft(stage, weeks) for stage, weeks in segments]


def _weeks_into_main_course(slots: list[list[Slot]], index: int) -> int:
    """How many earlier weeks hold the course that takes most of week `index`."""
    main = max(slots[index], key=lambda slot: slot.hours).chosen.course
    return sum(1 for week_slots in slots[:index] if any(slot.chosen.course == main for slot in week_slots))


class PlanComposer:
    """Turns a goal, the chosen courses and the calendar into a PlanDoc in the goal's language."""

    def __init__(self, goal: Goal, weeks: int, catalog: Catalog) -> None:
        self.goal = goal
        self.weeks = weeks
        self.catalog = catalog
        self.words = planner_phrases(goal.lang)
        self.lang = goal.lang
        self.target = goal.target
        self.taught: list[set[str]] = []  # per week: the tools taught by then (or known), see engine/skills.py
        self.mocks = exams.mock_weeks(weeks) if goal.target else []  # 0-based weeks with a full mock test

    # wording helpers

    def _topic_words(self, topic: str) -> dict[str, Any]:
        topics = self.words["topics"]
        return topics.get(topic, topics["generic"])

    def _course_name(self, course: Course) -> str:
        return self.words["course_ref"].format(name=course.name)

    def _join(self, items: list[str]) -> str:
        return self.words["list_separator"].join(items)

    def _project(self) -> str:
        """The project of the main topic, or of the last topic the goal adds to it ("web development" ends
        with a back end, so its project is a web app rather than a static site)."""
        goal = self.goal
        if self.target is not None:
            return exams.capstone_project(self.target, self.lang)
        added = [t for t in goal.extra_topics if t not in vocabulary.topic_prerequisites(goal.topic)]
        topic = added[-1] if added else goal.topic
        project = self._topic_words(topic)["project"]
        if self.taught and not skills.fits(project, self.taught[-1]):
            project = self.words["topics"]["generic"]["project"]
        return str(project.format(topic=vocabulary.topic_label(topic, self.lang)))

    def _capstone_words(self) -> dict[str, Any]:
        """Language goals end with a mock test rather than a software project."""
        if self.goal.topic in load_phrases()["planner"]["language_topics"]:
            return self.words["capstone_language"]
        return self.words["capstone_project"]

    # weeks

    def _course_week(self, number: int, dates: tuple[date, date], week_slots: list[Slot], into_course: int) -> Week:
        """A week of courses; `into_course` counts the earlier weeks of its main course, so that practice and
        deliverables follow the course from its first week (set-up and basics) on."""
        words = self.words
        main = max(week_slots, key=lambda slot: slot.hours)
        tasks = [study_task(slot, words) for slot in week_slots]
        if len(tasks) > 2:  # the courses after the first together, so that the week keeps room for practice
            tasks = [tasks[0], words["content_separator"].join(tasks[1:])]
        practice, deliverables = self._practice(main)
        taught = self.taught[number - 1]
        # no task asks for a tool (NumPy, scikit-learn...) before a course of the plan has taught it
        tasks.append(skills.first_fitting(practice, into_course, taught) or words["practice_plain"])
        if (mock := self._mock(number, tasks)) is not None:
            deliverables = [mock]
        # a course taken in part ends at its last unit planned, without the course's final exam
        in_part = [slot.chosen.course for slot in week_slots if slot.finishes and slot.chosen.units_taken]
        finished = [slot.chosen.course for slot in week_slots if slot.finishes and not slot.chosen.units_taken]
        if finished:
            names = self._join([self._course_name(course) for course in finished])
            tasks.append(words["task_finish"].format(course=names))
        if in_part:
            tasks.append(words["task_finish_part"].format(course=self._join([self._course_name(c) for c in in_part])))
        spare = self.goal.hours_per_week - sum(slot.hours for slot in week_slots)
        if len(tasks) < 4 and spare >= max(1.0, SLIVER_SHARE * self.goal.hours_per_week):
            tasks.append(words["task_spare"].format(hours=round(spare, 1)))
        if finished and number - 1 not in self.mocks:
            done = next(slot for slot in reversed(week_slots) if slot.finishes and not slot.chosen.units_taken)
            finish = self._topic_words(done.chosen.topic)["finish"]
            deliverable = words["deliverable_finish"].format(
                course=self._course_name(done.chosen.course),
                deliverable=finish if skills.fits(finish, taught) else words["deliverable_plain"],
            )
        else:
            deliverable = skills.first_fitting(deliverables, into_course, taught) or words["deliverable_plain"]
        return Week(
            number=number,
            start=dates[0],
            end=dates[1],
            courses=list(dict.fromkeys(slot.chosen.course.id for slot in week_slots)),
            content=words["content_separator"].join(slot_text(slot, words) for slot in week_slots),
            tasks=tasks[:4],
            deliverable=deliverable,
        )

    def _taught_by_week(self, slots: list[list[Slot]]) -> list[set[str]]:
        taught = skills.known_tools(self.goal.known_topics)
        by_week = []
        for week_slots in slots:
            for slot in week_slots:
                taught |= skills.course_tools(slot.chosen.course)
            by_week.append(set(taught))
        return by_week

    def _mock(self, number: int, tasks: list[str]) -> str | None:
        """In a mock-test week, the mock takes the practice task's place (the last task); its deliverable."""
        if self.target is None or number - 1 not in self.mocks:
            return None
        which = self.mocks.index(number - 1)
        tasks[-1] = exams.mock_task(self.target, self.lang, which)
        return exams.mock_deliverable(self.target, self.lang, which)

    def _practice(self, main: Slot) -> tuple[list[str], list[str]]:
        """Practice tasks and deliverables for the week's main course: its resource kind's when the topic's
        would not fit it (no "write 10 sentences with this week's grammar" for a kanji SRS app); an exam
        target's section drills when the goal has one."""
        if self.target is not None:
            return exams.drills(self.target, self.lang)
        words = self.words
        topic_words = self._topic_words(main.chosen.topic)
        kind = main.chosen.course.format or ""
        practice = words["practice_by_format"].get(kind) or topic_words["practice"]
        deliverable = words["deliverable_by_format"].get(kind)
        return list(practice), [deliverable] if deliverable else list(topic_words["deliverables"])

    def _capstone_week(self, number: int, dates: tuple[date, date], position: int, count: int) -> Week:
        capstone = self._capstone_words()
        templates, deliverables = capstone["tasks"], capstone["deliverables"]
        if count == 1:
            tasks = [templates[0][0], templates[1][0], templates[2][0]]
            deliverable = deliverables[-1]
        else:
            # first week starts the project, last week finishes it, the weeks between build it
            which = 0 if position == 0 else 2 if position == count - 1 else 1
            tasks, deliverable = list(templates[which]), deliverables[which]
        project = self._project()
        tasks = [task.format(project=project) for task in tasks]
        if self.target is not None:  # the exam's own mocks and section drills, not a generic full test
            drills, drill_deliverables = exams.drills(self.target, self.lang)
            review = templates[1][1]  # redo the self-check items not ticked yet
            tasks = [drills[position % len(drills)], drills[(position + 1) % len(drills)], review]
            deliverable = drill_deliverables[position % len(drill_deliverables)]
            if number - 1 in self.mocks:
                which = self.mocks.index(number - 1)
                tasks[0] = exams.mock_task(self.target, self.lang, which)
                deliverable = exams.mock_deliverable(self.target, self.lang, which)
        return Week(
            number=number,
            start=dates[0],
            end=dates[1],
            courses=[],
            content=self.words["capstone_content"].format(project=project),
            tasks=tasks,
            deliverable=deliverable,
        )

    # phases

    @staticmethod
    def _stage_topics(draft: _PhaseDraft, slots: list[list[Slot]], drafts: list[_PhaseDraft]) -> list[str]:
        """The topics of the phase's own courses, and of courses whose stage has no phase of its own."""
        with_phase = {d.stage for d in drafts}
        pieces = [slot for i in draft.weeks for slot in slots[i]]
        own = [s.chosen.topic for s in pieces if s.chosen.role == draft.stage or s.chosen.role not in with_phase]
        return list(dict.fromkeys(own or [slot.chosen.topic for slot in pieces]))

    def _phase_title(self, draft: _PhaseDraft, slots: list[list[Slot]], drafts: list[_PhaseDraft]) -> str:
        words = self.words
        if draft.stage == "capstone":
            return words["phase_capstone"]
        topics = self._stage_topics(draft, slots, drafts)
        labels = self._join([vocabulary.topic_label(topic, self.lang) for topic in topics])
        return words[f"phase_{draft.stage}"].format(topics=labels)

    def _phase_courses(self, draft: _PhaseDraft, slots: list[list[Slot]], topics: list[str]) -> str:
        """What the phase covers in its topics: whole courses by name, others by the steps done in it."""
        stretches: dict[str, tuple[Course, list[Step], bool, bool]] = {}
        for slot in (slot for i in draft.weeks for slot in slots[i] if slot.chosen.topic in topics):
            course = slot.chosen.course
            if course.id not in stretches:
                first = slot.steps[0]
                stretches[course.id] = (course, [], first.index == 0 and first.part == 1, False)
            entry = stretches[course.id]
            stretches[course.id] = (course, entry[1] + list(slot.steps), entry[2], slot.finishes)
        parts = [
            self._course_name(course) if starts and finishes else span_text(course, steps[0], steps[-1], self.words)
            for course, steps, starts, finishes in stretches.values()
        ]
        return self._join(parts)

    def _self_check(
        self, draft: _PhaseDraft, slots: list[list[Slot]], drafts: list[_PhaseDraft], part: int, parts: int
    ) -> list[str]:
        """Checks for the phase's topics, then one on the phase's own course weeks. The parts of a split phase
        share out a topic's checks, which run from first skills to later ones."""
        if draft.stage == "capstone":
            return list(self._capstone_words()["self_check"])
        topics = self._stage_topics(draft, slots, drafts)
        items: list[str] = []
        for topic in topics[:3]:
            checks = self._topic_words(topic)["self_check"]
            if parts > 1:
                low = part * len(checks) // parts
                high = max(low + 1, (part + 1) * len(checks) // parts)
                items += checks[low:high]
            else:
                items += checks[: 3 if len(topics) == 1 else 2]
        if self.taught:
            items = [item for item in items if skills.fits(item, self.taught[draft.weeks[-1]])]
        items.append(self.words["phase_courses_check"].format(courses=self._phase_courses(draft, slots, topics)))
        items.append(self.words["generic_self_check"])
        return list(dict.fromkeys(items))

    def _phases(self, slots: list[list[Slot]], calendar: list[tuple[date, date]]) -> list[Phase]:
        drafts = _phase_drafts(slots)
        capstone = [i for i, week_slots in enumerate(slots) if not week_slots]
        titles = [self._phase_title(draft, slots, drafts) for draft in drafts]
        phases = []
        for number, (draft, title) in enumerate(zip(drafts, titles, strict=True), start=1):
            weeks = [
                self._course_week(i + 1, calendar[i], slots[i], _weeks_into_main_course(slots, i))
                if slots[i]
                else self._capstone_week(i + 1, calendar[i], capstone.index(i), len(capstone))
                for i in draft.weeks
            ]
            part, parts = titles[:number].count(title), titles.count(title)  # 1, 2, ... among same-titled phases
            checks = self._self_check(draft, slots, drafts, part - 1, parts)
            if parts > 1:
                names = self.words["part_names"]
                title = self.words["phase_part"].format(
                    title=title, part=names[part - 1] if part <= len(names) else str(part)
                )
            if self.target is not None:
                title = exams.phase_title(title, self.target, self.lang)
                checks.insert(-1, exams.self_check(self.target, self.lang, final=number == len(drafts)))
            phases.append(Phase(number, title, weeks, checks))
        return phases

    # the document

    def compose(self, selection: Selection, calendar: list[tuple[date, date]]) -> tuple[PlanDoc, Timetable]:
        goal, words = self.goal, self.words
        weeks = self.weeks
        if len(calendar) != weeks:  # the calendar tool failed: the dates follow from the start
            starts = [goal.start + timedelta(days=7 * i) for i in range(weeks)]
            calendar = [(first, first + timedelta(days=6)) for first in starts]
        timetable = fit_timetable(selection.courses, weeks, goal.hours_per_week)
        self.taught = self._taught_by_week(timetable.slots)
        phases = self._phases(timetable.slots, calendar)
        topics = self._join([vocabulary.topic_label(topic, self.lang) for topic in (goal.topic, *goal.extra_topics)])
        if self.target is not None:
            topics = f"{topics} · {self.target.label(self.lang)}"
        level = words["level_labels"][goal.level]
        plan = PlanDoc(
            title=words["title"].format(topic=topics, level=level, weeks=weeks),
            goal=goal.raw,
            lang=goal.lang,
            start=calendar[0][0],
            end=calendar[-1][1],
            hours_per_week=goal.hours_per_week,
            phases=phases,
            resources=[chosen.course.id for chosen in timetable.courses],
            time_note=self.time_note(selection, timetable),
            assumptions=self.assumptions(selection, timetable),
        )
        return plan, timetable

    def time_note(self, selection: Selection, timetable: Timetable) -> str | None:
        words, hours = self.words, self.goal.hours_per_week
        need = sum(chosen.full_hours for chosen in timetable.courses)
        count = timetable.capstone_count
        have = (self.weeks - count) * hours  # the capstone weeks hold no course, so they are not counted
        compressed = [c for c in timetable.courses if c.compressed]
        parts = []
        if compressed or selection.dropped or need > have:
            capstone = words["time_note_capstone"].format(count=count) if count else ""
            # Courses can need fewer hours than the weeks give and still be squeezed by whole units: say so.
            note = words["time_note_need" if need > have + 1e-6 else "time_note_packing"]
            parts.append(
                note.format(need=round(need, 1), weeks=self.weeks - count, hours=hours, have=round(have, 1),
                            capstone=capstone)
            )
        if compressed:
            courses = [
                words["time_note_compressed_course"].format(
                    course=self._course_name(c.course), planned=round(c.planned_hours, 1), total=round(c.full_hours, 1)
                )
                for c in compressed
            ]
            parts.append(words["time_note_compressed"].format(courses=self._join(courses)))
        partial = [c for c in timetable.courses if c.units_taken]
        if partial:
            courses = [
                words["time_note_partial_course"].format(
                    course=self._course_name(c.course), count=c.units_taken, total=c.course.total_hours,
                    last=c.course.units[(c.units_taken or 1) - 1].display_title, hours=round(c.full_hours, 1),
                )
                for c in partial
            ]
            parts.append(words["time_note_partial"].format(courses=self._join(courses)))
        if selection.dropped:
            dropped = self._join([f"[{c.id}] {c.name}" for c in selection.dropped])
            parts.append(words["time_note_dropped"].format(courses=dropped))
        if timetable.pace < hours:
            parts.append(
                words["time_note_pace"].format(
                    need=round(need, 1), weeks=self.weeks - timetable.capstone_count, hours=hours,
                    pace=timetable.pace, spare=round(hours - timetable.pace, 1),
                )
            )
        if self.target is not None:
            goal = self.goal
            parts.insert(0, exams.feasibility(self.target, self.lang, goal.level, self.weeks, goal.hours_per_week))
        if not parts:
            return None
        return " ".join(parts) if self.lang == "en" else "".join(parts)

    def assumptions(self, selection: Selection, timetable: Timetable) -> list[str]:
        words, goal = self.words, self.goal
        items = list(goal.assumptions)
        if goal.weeks < self.weeks:
            items.append(words["assumption_min_weeks"].format(weeks=goal.weeks))
        if goal.known_topics:
            known = self._join([vocabulary.topic_label(t, self.lang) for t in goal.known_topics])
            items.append(words["assumption_known"].format(topics=known))
        for topic in selection.missing_topics:
            label = vocabulary.topic_label(topic, self.lang)
            items.append(words["assumption_no_prerequisite_course"].format(topic=label))
        by_weeks = unitless([chosen.course for chosen in timetable.courses])
        if by_weeks:
            names = self._join([self._course_name(course) for course in by_weeks])
            items.append(words["assumption_no_units"].format(courses=names))
        return items



def compose_selection(
    goal: Goal, weeks: int, selection: Selection, catalog: Catalog, calendar: list[tuple[date, date]]
) -> tuple[PlanDoc, Timetable]:
    """The plan. When the courses, split into whole pieces, need compressing to fit the weeks, a course
    added only to fill the time goes instead, if one is small enough not to leave a hole in the plan
    (one about the size of the squeeze, at most two weeks' time or four times the squeeze)."""
    composer = PlanComposer(goal, weeks, catalog)
    while True:
        plan, timetable = composer.compose(selection, calendar)
        squeezed = sum(c.planned_hours for c in selection.courses) - sum(c.planned_hours for c in timetable.courses)
        limit = max(2 * goal.hours_per_week, 4 * squeezed)
        fillers = [c for c in selection.courses if c.filler and c.planned_hours <= limit]
        if squeezed < 1e-6 or not fillers:
            return plan, timetable
        dropped = min(fillers, key=lambda c: (c.planned_hours < squeezed, abs(c.planned_hours - squeezed)))
        selection = replace(selection, courses=[c for c in selection.courses if c is not dropped])


# --- composing from course ids (the composing tool) ------------------------------------------------------


@dataclass(frozen=True)
class CompositionRequest:
    """What a composing tool is given: the courses in the order to take them, and the time."""

    course_ids: tuple[str, ...]
    weeks: int
    hours_per_week: float
    start: date
    lang: Lang
    goal_text: str = ""
    level: Level = "beginner"
    notes: tuple[str, ...] = ()  # focus notes from the caller, kept in the plan's assumptions


@dataclass(frozen=True)
class Composition:
    plan: PlanDoc
    placed: tuple[str, ...] = ()  # "[id] Name: weeks 1–4", in plan order
    not_fitted: tuple[str, ...] = ()  # unknown ids, courses compressed or left out

    @property
    def summary(self) -> str:
        lines = [f"Placed: {'; '.join(self.placed) or 'nothing'}."]
        if self.not_fitted:
            lines.append(f"Did not fit: {'; '.join(self.not_fitted)}.")
        return "\n".join(lines)


def _main_topic(courses: list[Course], goal_text: str) -> str:
    """The goal's first topic that a course is about, else the topic most of the hours go to."""
    primary = [course.topics[0] for course in courses if course.topics]
    for topic in vocabulary.find_topics(goal_text):
        if topic in primary:
            return topic
    hours: dict[str, float] = {}
    for course in courses:
        if course.topics:
            hours[course.topics[0]] = hours.get(course.topics[0], 0.0) + course.total_hours
    return max(hours, key=lambda topic: hours[topic]) if hours else "generic"


def compose_plan(request: CompositionRequest, catalog: Catalog) -> Composition:
    """A plan for the given courses in the given order: weeks from `start`, at most `hours_per_week`."""
    courses = list(dict.fromkeys(c for ref in request.course_ids if (c := catalog.find(ref)) is not None))
    unknown = [f"[{ref}] is not in the catalog" for ref in request.course_ids if catalog.find(ref) is None]
    if not courses:
        raise ValueError("none of the course ids is in the catalog")
    topic = _main_topic(courses, request.goal_text)
    before = set(vocabulary.topic_prerequisites(topic))
    others = [c.topics[0] for c in courses if c.topics and c.topics[0] != topic and c.topics[0] not in before]
    goal = Goal(
        raw=request.goal_text, lang=request.lang, topic=topic, extra_topics=tuple(dict.fromkeys(others)),
        known_topics=(), level=request.level, weeks=request.weeks, hours_per_week=request.hours_per_week,
        start=request.start, assumptions=request.notes,
    )  # fmt: skip
    weeks = request.weeks
    available = (weeks - min(capstone_weeks(weeks), 1)) * request.hours_per_week
    need = sum(course.total_hours for course in courses)
    scale = min(1.0, available / need) if need > 0 else 1.0
    chosen = [
        ChosenCourse(course, primary, "foundation" if primary in before else "core", course.total_hours * scale)
        for course in courses
        for primary in [course.topics[0] if course.topics else topic]
    ]
    plan, timetable = compose_selection(goal, weeks, Selection(chosen), catalog, [])
    placed = []
    for scheduled in timetable.courses:
        numbers = [i + 1 for i, slots in enumerate(timetable.slots) if any(s.chosen == scheduled for s in slots)]
        span = f"{numbers[0]}–{numbers[-1]}" if numbers and numbers[0] != numbers[-1] else str(numbers[0])
        placed.append(f"[{scheduled.course.id}] {scheduled.course.name}: weeks {span}")
    squeezed = [
        f"[{c.course.id}] planned {round(c.planned_hours, 1)} of {c.course.total_hours} h"
        for c in timetable.courses
        if c.planned_hours < c.course.total_hours - 1e-6
    ]
    return Composition(plan, tuple(placed), tuple(unknown + squeezed))
