"""The exception types studyplan raises on purpose.

Every message is one line a user can act on. Exit codes are assigned in exactly one place,
`studyplan.cli.exit_codes`, so library code never decides how the process ends.
"""


class StudyplanError(Exception):
    """Base class: its message is shown to the user as is, on one line."""


class UsageError(StudyplanError):
    """The command line or the goal cannot be used (empty goal, unknown topic, absurd duration)."""


class NoMatchingTopic(UsageError):
    """The goal names no topic the catalog covers. A model decides this inside the run (it searched and found
    nothing), so the run ends without a plan (exit 6) with every model, the offline planner included."""


class CatalogError(StudyplanError):
    """The course catalog cannot be read or is malformed."""


class PlanFileError(StudyplanError):
    """A saved plan (or its progress data) cannot be read, parsed or written."""


class StorageError(StudyplanError):
    """A file could not be written for the file system's reasons: no space left, an I/O error."""


class PlanChanged(StudyplanError):
    """The plan file changed while a revision was being made (another revise, an editor): nothing was saved."""


class ModelError(StudyplanError):
    """The model endpoint failed: unreachable, refused the key, unknown model, unusable reply."""


class AuthenticationFailed(ModelError):
    """The endpoint refused the API key (HTTP 401/403)."""


class ModelNotFound(ModelError):
    """The endpoint does not serve the requested model (HTTP 404)."""


class EndpointUnreachable(ModelError):
    """Connection refused, DNS failure, or timeouts after all retries."""


class RequestTimedOut(ModelError):
    """One model reply took longer than its --timeout."""


class DeadlineExceeded(ModelError):
    """The run took longer than its --deadline."""


class ToolsNotSupported(ModelError):
    """The endpoint rejected the `tools` parameter (so the text protocol must be used)."""


class Interrupted(StudyplanError):
    """The user pressed Ctrl-C; whatever was finished is kept, nothing is left half-written."""


class ToolError(StudyplanError):
    """A tool could not do what it was asked; the loop turns this into an observation for the model.

    `data` says the same for code (e.g. the problems a checker found), as a tool's result does.
    """

    def __init__(self, message: str, data: dict[str, object] | None = None) -> None:
        super().__init__(message)
        self.data: dict[str, object] = dict(data or {})
