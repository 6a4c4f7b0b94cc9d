"""Revising a saved plan in conversation (the first article's 5.1): read it, change what was asked, keep the rest.

The revision agent is the same ReAct loop with a revision prompt and two more tools: `read_plan` shows the
saved plan and the weeks checked in as done, `save_revision` checks the new version like save_plan does,
refuses any change to a done week, keeps the previous version in `<plans>/.versions/` and replaces the plan
in place. After the run the command shows a week diff.

A plan whose file name carries its length (`machine-learning-13w.md`) and whose revision changes that length
is saved under the name of the new length (`machine-learning-10w.md`, or `-10w-2.md` when that name is taken:
no file is ever overwritten), its check-ins move with it, and the old file goes (its text is the version kept
in `.versions/`): one file is the current plan, and `status`/`checkin` on the new name see all the progress.
"""

from __future__ import annotations

import contextlib
import fcntl
import glob
import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from studyplan.core.agent import Agent, AgentConfig
from studyplan.core.model import ChatModel
from studyplan.core.tools import Tool, ToolRegistry, ToolResult, tool_from_function
from studyplan.domain.catalog import Catalog
from studyplan.domain.checks import check_plan
from studyplan.domain.diff import PlanDiff, changed_fields, describe_diff, diff_plans, format_weeks, week_signature
from studyplan.domain.document import PlanDoc, parse_plan
from studyplan.engine.pace import Pace as Pace  # re-exported: the revise use case's public API
from studyplan.engine.pace import WeekRecord
from studyplan.engine.pace import measure_pace as pace_from_weeks
from studyplan.engine.pace import replan_request as replan_request
from studyplan.errors import PlanChanged, PlanFileError, ToolError, UsageError
from studyplan.paths import ensure_folder, read_user_file, replace_file, user_file_mode, write_new_file
from studyplan.planner import observations
from studyplan.planner.context import ToolContext
from studyplan.planner.task import revision_task
from studyplan.planner.tools import get_current_date, plan_calendar, search_courses

if TYPE_CHECKING:
    from studyplan.app.plan import AgentRun, RunOptions
    from studyplan.app.progress import StatusReport
    from studyplan.core.events import RunFinished

VERSIONS_DIR = ".versions"
# A whole plan must reach the model unshortened, and the read/save pair must not be folded away mid-run.
REVISION_OBSERVATION_CHARS = 60_000
REVISION_CONTEXT_TOKENS = 48_000
# A plan file named for its length: `<topic>-<weeks>w.md`, maybe numbered (`-2`) when the name was taken.
_LENGTH_IN_NAME = re.compile(r"^(?P<base>.+)-(?P<weeks>\d+)w(?:-\d+)?$")
MAX_NAME_ATTEMPTS = 100


# --- progress ------------------------------------------------------------------------------------------


def done_weeks_of(plan_path: Path) -> set[int]:
    """The week numbers checked in as done for the plan (none when nothing was checked in)."""
    from studyplan.app.progress import ProgressStore

    return ProgressStore.for_plan(plan_path).done_weeks(plan_path)


# --- files ---------------------------------------------------------------------------------------------


def keep_version(plan_path: Path, text: str, now: datetime | None = None) -> Path:
    """Keep `text` (the plan before a revision) as `<plans>/.versions/<stem>.<YYYYmmdd-HHMMSS>.md`, never
    overwriting an earlier copy."""
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    return write_new_file(plan_path.parent / VERSIONS_DIR, f"{plan_path.stem}.{stamp}.md", text)


@contextlib.contextmanager
def plan_lock(plan_path: Path) -> Iterator[None]:
    """Hold the plan's revision lock (an flock on `.versions/.<name>.lock`): one save at a time per plan."""
    folder = ensure_folder(plan_path.parent / VERSIONS_DIR, "versions folder")
    try:
        descriptor = os.open(folder / f".{plan_path.name}.lock", os.O_RDWR | os.O_CREAT, user_file_mode())
    except OSError as error:
        raise PlanFileError(f"{plan_path}: cannot take the revision lock ({error.strerror or error})") from None
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # closing releases the lock


def check_revisable(plan_path: Path) -> None:
    """Refuse, before any model call, a plan revise must not rewrite: a symlink (its target may be anywhere) or
    anything but a regular file. UsageError naming it."""
    if plan_path.is_symlink():
        raise UsageError(f"{plan_path}: is a symlink; revise only rewrites plain files (revise the file it points to)")
    if plan_path.exists() and not plan_path.is_file():
        raise UsageError(f"{plan_path}: not a regular file")


def name_for_length(plan_path: Path, weeks: int) -> str | None:
    """The file name a plan `weeks` long should have when its name states another length (None: keep it)."""
    match = _LENGTH_IN_NAME.match(plan_path.stem)
    if match is None or int(match["weeks"]) == weeks:
        return None
    return f"{match['base']}-{weeks}w{plan_path.suffix}"


def free_plan_name(folder: Path, name: str) -> str:
    """`name`, or the first numbered name (`-2`, `-3`, ...) that is neither a file nor has check-ins filed
    under it (check-ins of a deleted plan must not attach to the renamed one)."""
    from studyplan.app.progress import ProgressStore

    stem, suffix = os.path.splitext(name)
    for attempt in range(1, MAX_NAME_ATTEMPTS):
        candidate = folder / (name if attempt == 1 else f"{stem}-{attempt}{suffix}")
        taken = candidate.exists() or candidate.is_symlink()
        if not taken and not ProgressStore.for_plan(candidate).checkins(candidate):
            return candidate.name
    raise PlanFileError(f"{folder / name}: no free file name for the revised plan")


def save_over(path: Path, content: str) -> Path:
    """Write the revision: in place, or (when its length no longer matches the name) under the name of the new
    length, moving the check-ins with it and removing the old file. Returns where the plan now is."""
    from studyplan.app.progress import ProgressStore

    new_name = name_for_length(path, len(parse_plan(content).weeks))
    if new_name is None:
        replace_file(path, content)
        return path
    new_path = write_new_file(path.parent, free_plan_name(path.parent, new_name), content)
    try:
        os.chmod(new_path, stat.S_IMODE(path.stat().st_mode))  # the same plan under a new name: its own mode
        ProgressStore.for_plan(path).move_plan(path, new_path)
    except BaseException:
        new_path.unlink(missing_ok=True)  # nothing moved: the plan stays where it was
        raise
    path.unlink()
    return new_path


def read_plan_text(plan_path: Path) -> str:
    """The saved plan's text; PlanFileError (one line naming the file) when it cannot be read or parsed."""
    from studyplan.app.progress import read_plan_source

    return read_plan_source(plan_path)[0]


# --- the tools -----------------------------------------------------------------------------------------


def _plan_path(ctx: ToolContext) -> Path:
    if ctx.readable_plan is None:
        raise observations.no_plan_to_revise()
    return ctx.readable_plan


def plan_changed(path: Path) -> PlanChanged:
    """The run's end when the plan changed, or went (renamed by another revision), since the run read it."""
    return PlanChanged(
        f"{path}: the plan changed while this revision was being made (another revise or an editor); "
        "nothing was saved: run revise again on the new plan"
    )


def read_plan(ctx: ToolContext) -> ToolResult:
    """Read the saved plan being revised: its Markdown, and which weeks the learner has checked in as done
    (those weeks must not change). Call it before changing anything."""
    path = _plan_path(ctx)
    if ctx.readable_text is not None and not path.exists() and not path.is_symlink():
        raise plan_changed(path)  # another revision renamed it since this run started
    try:
        text = read_plan_text(path)
    except PlanFileError as error:
        raise ToolError(str(error)) from None
    plan = parse_plan(text)
    ctx.readable_text = text  # the revision the model writes next is based on this text
    return observations.plan_read(
        path, len(plan.weeks), plan.start, plan.end, plan.hours_per_week, done_weeks_of(path), text
    )


def touched_done_weeks(before: PlanDoc, after: PlanDoc, done: set[int], catalog: Catalog) -> list[str]:
    """One line per done week the revision changed or removed (empty when every done week is intact)."""
    new_weeks = {week.number: week for week in after.weeks}
    problems = []
    for week in before.weeks:
        if week.number not in done:
            continue
        revised = new_weeks.get(week.number)
        if revised is None:
            problems.append(f"week {week.number} was removed")
        elif week_signature(week, catalog) != week_signature(revised, catalog):
            changed = ", ".join(changed_fields(week, revised, catalog))
            problems.append(f"week {week.number} changed ({changed})")
    return problems


def save_revision(ctx: ToolContext, content: str) -> ToolResult:
    """Check the complete revised plan and save it over the saved one, keeping the previous version. It is
    refused, with the reasons, if it fails the same checks as save_plan or changes any week checked in as done.

    Args:
        content: The complete revised plan in Markdown, following the plan template (all weeks, not a patch).
    """
    path = _plan_path(ctx)
    try:
        based_on = ctx.readable_text if ctx.readable_text is not None else read_plan_text(path)
        before = parse_plan(based_on)
    except PlanFileError as error:
        raise ToolError(str(error)) from None
    problems = check_plan(content, ctx.catalog)  # no `today`: a plan under way started in the past
    if not problems:
        after = parse_plan(content)
        if after.start != before.start and after.start < ctx.today:
            problems.append(
                f"the start moved to {after.start.isoformat()}, before today ({ctx.today.isoformat()}): keep the "
                f"start {before.start.isoformat()} or move it to today or later"
            )
        done = done_weeks_of(path)
        touched = touched_done_weeks(before, after, done, ctx.catalog)
        if touched:
            problems.append(
                f"weeks {format_weeks(done)} are checked in as done and must not change, but "
                + "; ".join(touched)
                + ". Copy those weeks from read_plan exactly as they are and change only the other weeks"
            )
        elif not problems and after == before:
            problems.append("the revised plan is the same as the saved one: make the change the learner asked for")
    if problems:
        raise observations.plan_rejected(problems, tool="save_revision")
    diff = diff_plans(before, after, ctx.catalog)
    with plan_lock(path):  # read, check and write as one step: two revisions never both save over one text
        # Gone: another revision renamed it for a new length (or the learner moved it) since it was read.
        if not path.exists() or read_user_file(path, PlanFileError, "plan file") != based_on:
            raise plan_changed(path)
        kept = keep_version(path, based_on)
        path = save_over(path, content)
    ctx.readable_plan = path  # a second save in this run revises the plan where it now is
    ctx.readable_text = read_user_file(path, PlanFileError, "plan file")
    ctx.saved_plans.append(path)
    return observations.revision_saved(path, kept, describe_diff(diff))


def build_revision_registry(context: ToolContext) -> ToolRegistry:
    """The revision agent's tools: the planning tools (without save_plan), read_plan and save_revision."""
    functions: list[Callable[..., ToolResult]] = [
        get_current_date, read_plan, search_courses, plan_calendar, save_revision
    ]
    tools: list[Tool] = [tool_from_function(function) for function in functions]
    return ToolRegistry(tools, context)


# --- the workflow --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RevisionResult:
    finished: RunFinished
    diff: PlanDiff | None  # None when no revision was saved
    kept_versions: list[Path]  # earlier versions this run kept, oldest first
    plan_path: Path  # where the plan is now
    renamed_from: Path | None = None  # the plan's file before a revision that changed its length renamed it


def _versions(*plan_paths: Path) -> set[Path]:
    found: set[Path] = set()
    for plan_path in plan_paths:
        folder = plan_path.parent / VERSIONS_DIR
        if folder.is_dir():
            found |= set(folder.glob(f"{glob.escape(plan_path.stem)}.*.md"))
    return found


@dataclass
class RevisionRun:
    """An assembled revision, not started yet: iterate `run.events()`, then ask for the `result`."""

    run: AgentRun
    plan_path: Path
    original: str
    catalog: Catalog
    versions_before: set[Path]

    def result(self, finished: RunFinished) -> RevisionResult:
        """What the finished run changed: the week diff and the versions it kept."""
        saved = self.run.context.saved_plans
        kept = sorted(_versions(self.plan_path, *saved) - self.versions_before)
        if not saved:
            return RevisionResult(finished, None, kept, self.plan_path)
        current = saved[-1]
        revised = parse_plan(read_plan_text(current))
        diff = diff_plans(parse_plan(self.original), revised, self.catalog)
        return RevisionResult(finished, diff, kept, current, self.plan_path if current != self.plan_path else None)


def revision_run(request: str, options: RunOptions, plan_path: Path) -> RevisionRun:
    """Assemble the revision agent on a saved plan, with `request` as the learner's words."""
    from studyplan.app.config import model_settings
    from studyplan.app.plan import agent_run, build_model, build_protocol, user_sentence

    request = user_sentence(request, "request")
    if not request:
        raise UsageError('The request is empty: say what to change, e.g. "第三周太紧了，帮我减掉一半内容"')
    check_revisable(plan_path)
    original = read_plan_text(plan_path)
    done_weeks_of(plan_path)  # unreadable progress data ends the run here (exit 3), not as a tool error
    catalog = Catalog.load(options.catalog)
    settings = model_settings(options.model, options.base_url, options.temperature, options.bound_flags)
    context = ToolContext(
        today=options.today,
        catalog=catalog,
        plans_dir=plan_path.parent,
        readable_plan=plan_path,
        readable_text=original,
    )
    config = AgentConfig(
        max_steps=options.max_steps,
        max_observation_chars=REVISION_OBSERVATION_CHARS,
        context_budget_tokens=REVISION_CONTEXT_TOKENS,
    )
    registry = build_revision_registry(context)
    if settings.offline:
        from studyplan.planner.offline_reviser import OfflineReviser

        model: ChatModel = OfflineReviser(catalog, registry.journal)
    else:
        model = build_model(settings, catalog, options.stream)
    agent = Agent(
        model,
        registry,
        revision_task(parse_plan(original).lang),
        config,
        build_protocol("tools" if model.offline else options.protocol),  # the offline reviser calls natively
    )
    run = agent_run(agent, request, options, settings, context)
    return RevisionRun(run, plan_path, original, catalog, _versions(plan_path))


# --- replanning from the measured pace -----------------------------------------------------------------


def measure_pace(report: StatusReport) -> Pace:
    """The pace a status report shows (see studyplan.engine.pace)."""
    records = [WeekRecord(s.week.number, s.week.end, s.done, s.spent_hours) for s in report.weeks]
    return pace_from_weeks(records, report.today, report.days_ahead, report.plan.hours_per_week)
