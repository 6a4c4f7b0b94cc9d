"""What the two rule-based models share: the ChatModel face, the catalog, and the run's journal they read.

A rule policy keeps no state of its own: each reply is derived from the first user message (the goal or the
request) and from what the tools did, read from the journal of the registry it plays against.
"""

from __future__ import annotations

from typing import Any

from studyplan.core.journal import Journal
from studyplan.core.model import ModelReply, first_user_text
from studyplan.domain.catalog import Catalog


class RulePolicy:
    """A ChatModel that answers with rules instead of a network call; subclasses write `reply`."""

    name = "offline"
    offline = True

    def __init__(self, catalog: Catalog, journal: Journal | None = None) -> None:
        self.catalog = catalog
        self.journal = journal if journal is not None else Journal()  # the registry's, of the run it plays in

    def complete(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        stop: list[str] | None = None,
        tool_choice: str | None = None,  # the rules already call the date first
    ) -> ModelReply:
        return self.reply(first_user_text(messages))

    def reply(self, first_user_message: str) -> ModelReply:
        raise NotImplementedError
