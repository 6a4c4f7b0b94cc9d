"""The offline reviser: a rule-based stand-in for the model in `studyplan revise`, behind the ChatModel interface.

It plays the revision trajectory with the real tools: read_plan → (search_courses, to add a topic) → edit the
parsed plan → save_revision → a summary. It understands the common requests in Chinese and English: compress
or extend the schedule, lighten or postpone a week, drop or add a topic, change the hours per week, and the
sentence `studyplan replan` builds from the measured pace. Weeks checked in as done, and the weeks before
them, are never touched; every later week is renumbered and re-dated from the plan's start.

Like the offline planner it keeps no state: each reply is derived from the messages (the request is the first
user message, the facts are what the tools did: the run's journal, never observation text), so the same run
gives the same reply.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from studyplan.core.journal import JournalEntry
from studyplan.core.model import ModelReply, ToolCall
from studyplan.domain import vocabulary
from studyplan.domain.catalog import Catalog, Course
from studyplan.domain.document import PlanDoc, parse_plan, render_plan
from studyplan.engine.editor import PlanEditor, Refusal, phrases
from studyplan.engine.revision_request import Request, parse_request
from studyplan.errors import PlanFileError
from studyplan.lang import Lang, detect_lang
from studyplan.paths import display_path
from studyplan.planner.rule_policy import RulePolicy

MAX_SAVE_ATTEMPTS = 2


# --- the model -----------------------------------------------------------------------------------------


class OfflineReviser(RulePolicy):
    """A ChatModel that revises a saved plan with rules instead of a network call."""

    def reply(self, first_user_message: str) -> ModelReply:
        return _Turn(first_user_message, self.journal.entries, self.catalog).reply()


class _Turn:
    """One reply: where the conversation stands and what to do next."""

    def __init__(self, request_text: str, exchanges: list[JournalEntry], catalog: Catalog) -> None:
        self.request_text = request_text
        self.exchanges = exchanges
        self.catalog = catalog
        self.lang: Lang = detect_lang(request_text)
        self.answers = phrases()[self.lang]

    def _of(self, name: str) -> list[JournalEntry]:
        return [exchange for exchange in self.exchanges if exchange.name == name]

    def _call(self, thought: str, name: str, arguments: dict[str, Any]) -> ModelReply:
        call = ToolCall(f"call_{len(self.exchanges) + 1}", name, json.dumps(arguments, ensure_ascii=False))
        return ModelReply(content=thought, tool_calls=[call])

    def reply(self) -> ModelReply:
        request = parse_request(self.request_text)
        if request is None:
            return ModelReply(content=self.answers["help"])
        reads = [e.result.data for e in self._of("read_plan") if e.ok]
        if not reads:
            return self._call(self.answers["thought_read"], "read_plan", {})
        done, markdown = set(reads[-1]["done_weeks"]), reads[-1]["markdown"]
        try:
            plan = parse_plan(markdown)
        except PlanFileError as error:
            return ModelReply(content=self.answers["give_up"].format(problems=error))
        found = self._search_result(request)
        if request.kind == "add" and found is None:
            label = vocabulary.topic_label(request.topic or "", self.lang)
            return self._call(self.answers["thought_search"].format(topic=label), "search_courses",
                              {"topic": request.topic or ""})
        saves = self._of("save_revision")
        if saves and saves[-1].ok:
            saved = saves[-1].result.data
            paths = (display_path(Path(saved["path"])), display_path(Path(saved["kept"])))
            return self._final(plan, done, request, found, paths)
        if len(saves) >= MAX_SAVE_ATTEMPTS:
            return self._give_up(saves)
        try:
            edit = PlanEditor(plan, done, self.catalog, self.lang).apply(request, found)
        except Refusal as refusal:
            return ModelReply(content=str(refusal))
        content = render_plan(edit.plan, self.catalog)
        if saves and saves[-1].arguments.get("content") == content:
            return self._give_up(saves)  # the same plan again would be refused again
        done_text = ", ".join(map(str, sorted(done))) or self.answers["done_none"]
        thought = self.answers["thought_save"].format(change=edit.change, done=done_text)
        if saves:
            problems = saves[-1].result.text.strip().replace("\n", " ")
            thought = self.answers["thought_retry"].format(problems=problems) + " " + thought
        return self._call(thought, "save_revision", {"content": content})

    def _search_result(self, request: Request) -> list[Course] | None:
        """The catalog courses the search for an added topic listed, in order (None before the search)."""
        if request.kind != "add":
            return None
        searches = [e for e in self._of("search_courses") if e.arguments.get("topic") == request.topic]
        if not searches:
            return None
        listed = (self.catalog.get(course_id) for course_id in searches[-1].result.data.get("course_ids", []))
        return [course for course in listed if course is not None]

    def _give_up(self, saves: list[JournalEntry]) -> ModelReply:
        problems = saves[-1].result.text.strip().replace("\n", " ")
        return ModelReply(content=self.answers["give_up"].format(problems=problems))

    def _final(
        self, plan: PlanDoc, done: set[int], request: Request, found: list[Course] | None, saved: tuple[str, str]
    ) -> ModelReply:
        # The edit is worked out again from the same facts (it is deterministic), so the answer describes the
        # saved plan without reading the plan back from the history, where it is stubbed once saved.
        try:
            edit = PlanEditor(plan, done, self.catalog, self.lang).apply(request, found)
            revised, change = edit.plan, edit.change
        except Refusal:
            revised, change = plan, ""
        path, version = saved
        text = self.answers["final"].format(
            path=path, change=change, weeks=len(revised.weeks), start=revised.start.isoformat(),
            end=revised.end.isoformat(), hours=f"{revised.hours_per_week:g}", version=version,
        )  # fmt: skip
        return ModelReply(content=text)


__all__ = ["OfflineReviser", "PlanEditor", "Refusal", "Request", "parse_request"]
