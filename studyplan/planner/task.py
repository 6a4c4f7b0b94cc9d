"""The study-plan agent's side of the loop: its prompts, its "done" rule and the guidance it gives.

The generic loop (studyplan.core.agent) is handed an `AgentTask` from here: planning a new plan
(`plan_task`) or revising a saved one (`revision_task`). Everything they read about the run comes from the
registry's journal (the tools' structured results), never from observation text.
"""

from __future__ import annotations

from pathlib import Path

from studyplan.core.journal import Journal
from studyplan.core.task import AgentTask
from studyplan.domain import vocabulary
from studyplan.domain.document import plan_template
from studyplan.lang import Lang, detect_lang
from studyplan.prompts import load_text, reminders

SAVING_TOOLS = ("save_plan", "save_draft", "save_revision")


def saved_paths(journal: Journal) -> list[Path]:
    """The plans this run wrote, oldest first (save_plan and save_revision report the path in their data)."""
    saves = journal.succeeded(*SAVING_TOOLS)
    return [Path(entry.result.data["path"]) for entry in saves if "path" in entry.result.data]


def plan_saved(journal: Journal) -> bool:
    return bool(saved_paths(journal))


def level_alias(value: str, allowed: list[str]) -> str | None:
    """初级 → beginner: a course level written in Chinese or English words, if the enum allows it."""
    level = vocabulary.normalize_level(value)
    return level if level in allowed else None


def searched_topics(journal: Journal) -> set[str]:
    """The topic keys search_courses answered for (a search that found nothing counts: it was asked)."""
    topics = set()
    for entry in journal.succeeded("search_courses"):
        key = vocabulary.resolve_topic(str(entry.result.data.get("topic", "")))
        if key is not None:
            topics.add(key)
    return topics


def missing_for_plan(goal: str, journal: Journal) -> list[str]:
    """What a plan for `goal` still needs, each with the call that gives it, in the order they are needed."""
    lang = detect_lang(goal)
    missing = []
    if not journal.succeeded("get_current_date"):
        missing.append("today's date: call get_current_date")
    searched = searched_topics(journal)
    for topic in vocabulary.find_topics(goal):
        if topic not in searched:
            label = vocabulary.topic_label(topic, lang)
            missing.append(f'no course searched yet for {label}: call search_courses(topic="{label}")')
    if not plan_saved(journal):
        drafts = journal.succeeded("compose_plan")
        if drafts:
            draft_id = drafts[-1].result.data.get("draft_id", "")
            missing.append(f'the draft is not saved: call save_draft(draft_id="{draft_id}")')
        else:
            examples = [entry.result.data.get("next_call") for entry in journal.succeeded("search_courses")]
            example = next((str(call) for call in reversed(examples) if call), "")
            hint = f", e.g. {example}" if example else ""
            missing.append(f"no plan composed yet: call compose_plan with course ids from your searches{hint}")
    return missing


def _plan_instructions(goal: str, max_steps: int) -> str:
    prompt = load_text("system.md").replace("{plan_template}", plan_template(detect_lang(goal)))
    return prompt.replace("{max_steps}", str(max_steps))


def _examples(goal: str, protocol: str) -> str:
    """The shortest run on another goal, in the goal's language; written as text-protocol replies, so only
    the text protocol gets it (a native-tools model would take it for the format of its reply)."""
    return load_text(f"fewshot_{detect_lang(goal)}.md") if protocol == "text" else ""


def _planner_reminders() -> dict[str, str]:
    return {"not_done": reminders()["not_saved"], "step_limit": reminders()["step_limit"]}


def plan_task() -> AgentTask:
    """Make a new plan: done once save_plan has saved one."""
    return AgentTask(
        instructions=_plan_instructions,
        is_done=plan_saved,
        outputs=saved_paths,
        examples=_examples,
        missing=missing_for_plan,
        enum_alias=level_alias,
        reminders=_planner_reminders(),
        first_tool="get_current_date",
    )


def revision_task(plan_lang: Lang) -> AgentTask:
    """Revise a saved plan: the revision prompt, the plan template in the saved plan's language; done once
    save_revision has saved the new version."""

    def instructions(goal: str, max_steps: int) -> str:
        prompt = load_text("revise.md").replace("{plan_template}", plan_template(plan_lang))
        return prompt.replace("{max_steps}", str(max_steps))

    return AgentTask(
        instructions=instructions,
        is_done=plan_saved,
        outputs=saved_paths,
        enum_alias=level_alias,  # no examples: the planning run's shows tools a revision does not have
        reminders=_planner_reminders(),
    )
