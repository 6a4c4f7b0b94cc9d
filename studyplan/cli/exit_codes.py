"""How the process ends: the one table from error types and run outcomes to exit codes.

Library code raises the types in studyplan.errors; the CLI root turns them into these codes with a one-line
message. Commands import this module (never the CLI root) to end with a code of their own.
"""

from __future__ import annotations

from studyplan.core.events import RunStatus
from studyplan.errors import (
    CatalogError,
    Interrupted,
    ModelError,
    PlanChanged,
    PlanFileError,
    StorageError,
    StudyplanError,
    UsageError,
)

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_USAGE = 2
EXIT_DATA = 3
EXIT_MODEL = 4
EXIT_STEP_LIMIT = 5
EXIT_NO_PLAN = 6
EXIT_BATCH_INCOMPLETE = 7  # `batch`: some goal ended without a saved plan (see the results file)
EXIT_PLAN_CHANGED = 8  # `revise`: the plan changed on disk while it was being revised; nothing was saved
EXIT_TRACE_STOPPED = 9  # the plan was saved, but writing the trace failed (disk full) and the trace stopped
EXIT_INTERRUPTED = 130
EXIT_OUTPUT_CLOSED = 141  # stdout closed early (`| head`): 128 + SIGPIPE, what a shell shows for it

# The one mapping from error types to exit codes (most specific first).
EXIT_CODES: list[tuple[type[BaseException], int]] = [
    (Interrupted, EXIT_INTERRUPTED),
    (UsageError, EXIT_USAGE),
    (CatalogError, EXIT_DATA),
    (PlanChanged, EXIT_PLAN_CHANGED),
    (PlanFileError, EXIT_DATA),
    (StorageError, EXIT_DATA),
    (ModelError, EXIT_MODEL),
    (StudyplanError, EXIT_INTERNAL),
]
STATUS_EXIT_CODES: dict[RunStatus, int] = {
    "saved": EXIT_OK,
    "step_limit": EXIT_STEP_LIMIT,
    "repeated_calls": EXIT_STEP_LIMIT,
    "no_plan": EXIT_NO_PLAN,
}


def exit_code_for(error: BaseException) -> int:
    for error_type, code in EXIT_CODES:
        if isinstance(error, error_type):
            return code
    return EXIT_INTERNAL


def run_exit_code(status: RunStatus, trace_stopped: str | None = None) -> int:
    """How a finished run ends: its status's code, or EXIT_TRACE_STOPPED for a saved plan whose trace stopped."""
    code = STATUS_EXIT_CODES[status]
    return EXIT_TRACE_STOPPED if code == EXIT_OK and trace_stopped else code
