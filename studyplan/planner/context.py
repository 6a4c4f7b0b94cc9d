"""What the study-plan tools may touch: today's date, the catalog, the plans folder, what was saved so far."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from studyplan.core.tools import RunContext
from studyplan.domain.catalog import Catalog


@dataclass
class ToolContext(RunContext):
    today: date
    catalog: Catalog
    plans_dir: Path
    saved_plans: list[Path] = field(default_factory=list)
    # Where revise lets the agent read a plan from; None means read_plan only sees plans_dir.
    readable_plan: Path | None = None
    # readable_plan's text as the run last read it: a save checks the file still holds it (no lost updates).
    readable_text: str | None = None
    goal: str = ""  # the learner's goal, for tools that check a model's choices against it
