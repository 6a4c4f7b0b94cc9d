"""What a run is for, given to the loop by whoever knows the task (the study planner, the reviser).

The loop itself knows no task: the system prompt, the rule that says the task is done, what the run
produced, the reminders and the hook that names what is still missing all come from an `AgentTask`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from studyplan.core.arguments import EnumAliases
from studyplan.core.journal import Journal
from studyplan.core.prompts import default_reminders


def _nothing_produced(journal: Journal) -> list[Path]:
    return []


@dataclass(frozen=True)
class AgentTask:
    """The task's side of a run.

    - `instructions(goal, max_steps)`: the system prompt, before the protocol's own part;
    - `is_done(journal)`: whether an answer now ends the run as done (e.g. a plan was saved);
    - `outputs(journal)`: the files the run wrote, oldest first (the last is the run's result);
    - `examples(goal, protocol)`: few-shot examples written in that protocol, after its own part ("" for none);
    - `missing(goal, journal)`: what the run still lacks, each item naming the call that gives it; told to the model
      in reminders and repeat notices;
    - `enum_alias`: maps a value outside an enum to an allowed one (初级 → beginner);
    - `reminders`: overrides of the loop's default reminder texts (core/prompts/reminders.json), by key;
    - `first_tool`: a tool the first request may ask the server to call (tools protocol), or None.
    """

    instructions: Callable[[str, int], str]
    is_done: Callable[[Journal], bool]
    outputs: Callable[[Journal], list[Path]] = _nothing_produced
    examples: Callable[[str, str], str] | None = None
    missing: Callable[[str, Journal], list[str]] | None = None
    enum_alias: EnumAliases | None = None
    reminders: Mapping[str, str] = field(default_factory=dict)
    first_tool: str | None = None

    def reminder(self, key: str, **values: object) -> str:
        template = self.reminders.get(key) or default_reminders()[key]
        return template.format(**values)

    def missing_note(self, goal: str, journal: Journal) -> str:
        """ "Still missing: ..." for what the run lacks, or "" when the hook names nothing."""
        items = self.missing(goal, journal) if self.missing else []
        return self.reminder("missing", missing="; ".join(items)) if items else ""
