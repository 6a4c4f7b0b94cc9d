"""All terminal output: the one module that talks to Rich.

The agent loop yields events (studyplan.core.events); `Renderer.handle` turns each into something a person can
follow. Everything that came from a model or a tool is wrapped in `rich.text.Text` (or rendered as data)
so that text like "[bold]" or "[link=...]" is shown literally and never interpreted as Rich markup.
"""

from __future__ import annotations

import json
import time
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich import box
from rich.console import Console
from rich.highlighter import JSONHighlighter
from rich.panel import Panel
from rich.progress_bar import ProgressBar
from rich.status import Status
from rich.table import Table
from rich.text import Text

from studyplan.core.events import (
    Action,
    ContextFolded,
    Event,
    FinalAnswer,
    ModelCallFinished,
    ModelCallStarted,
    Notice,
    Observation,
    RunFinished,
    RunStarted,
    RunStatus,
    Thought,
    Usage,
)
from studyplan.paths import display_path

if TYPE_CHECKING:
    from rich.progress import Progress

    from studyplan.app.batch import GoalResult
    from studyplan.app.evaluate import EvalReport
    from studyplan.app.export import ExportResult
    from studyplan.app.progress import CheckinResult, StatusReport
    from studyplan.domain.diff import PlanDiff, WeekChange
    from studyplan.domain.document import Week

OFFLINE_MODEL_LABEL = "offline — built-in rule-based planner, no network"

# Why a run ended without a saved plan, in words a user can act on.
STATUS_MESSAGES: dict[RunStatus, str] = {
    "saved": "Plan saved",
    "step_limit": "Stopped: the step limit was reached before a plan was saved.",
    "no_plan": "The model finished without saving a plan.",
    "repeated_calls": "Stopped: the model kept repeating the same tool call.",
}

# Panels show enough to follow the run; the full text of every call goes to the trace.
ARGUMENT_PREVIEW_LINES = 4
ARGUMENT_PREVIEW_CHARS = 240
OBSERVATION_PREVIEW_LINES = 20
OBSERVATION_PREVIEW_CHARS = 2000

_JSON_HIGHLIGHTER = JSONHighlighter()


def make_console(stderr: bool = False, no_color: bool | None = None) -> Console:
    """A console for the CLI: stdout (or stderr for errors and diagnostics).

    `no_color=None` follows the NO_COLOR environment variable. When the stream is not a terminal Rich
    picks no colour system, so the output is plain text without escape codes (FORCE_COLOR overrides that,
    as the user asked for it). Markup, emoji codes and automatic highlighting are off: every string this
    module prints is built as `Text`, and nothing else should be interpreted.
    """
    return Console(stderr=stderr, no_color=no_color, markup=False, emoji=False, highlight=False)


def render_error(console: Console, message: str) -> None:
    """The CLI's one-line error, e.g. "Error: the catalog file is not valid JSON"."""
    one_line = " ".join(message.split())
    console.print(Text.assemble(("Error: ", "bold red"), (one_line, "red")), soft_wrap=True)


def status_message(status: RunStatus) -> str:
    """One sentence describing how a run ended (the CLI may reuse it for its own error line)."""
    return STATUS_MESSAGES[status]


class _ThinkingLabel:
    """The spinner's text, re-rendered on every refresh so the elapsed time keeps counting."""

    def __init__(self, step: int) -> None:
        self._step = step
        self._started = time.monotonic()

    def __rich__(self) -> Text:
        elapsed = time.monotonic() - self._started
        return Text(f"Step {self._step} · thinking… {elapsed:.1f}s", style="dim")


class Renderer:
    """Shows the agent's events on a console.

    `quiet=True` prints nothing but the saved plan's path and summary (for scripts). `trace_path`, when
    given, is mentioned where a panel was shortened and at the end of the run.
    """

    def __init__(self, console: Console, *, quiet: bool = False, trace_path: Path | None = None) -> None:
        self.console = console
        self.quiet = quiet
        self.trace_path = trace_path
        self._status: Status | None = None

    def __enter__(self) -> Renderer:
        return self

    def __exit__(self, *_exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the spinner if one is running (call this on errors and Ctrl-C too)."""
        if self._status is not None:
            self._status.stop()
            self._status = None

    def handle(self, event: Event) -> None:
        # Any event means the model has stopped thinking (or the run moved on without it).
        self.close()
        if self.quiet:
            if isinstance(event, RunFinished):
                self._print_quiet_result(event)
            return
        match event:
            case RunStarted():
                self._print_header(event)
            case ModelCallStarted():
                self._start_spinner(event.step)
            case ModelCallFinished():
                self._print_model_timing(event)
            case Thought():
                self._print_panel(f"Thought · step {event.step}", Text(event.text), "cyan")
            case Action():
                self._print_action(event)
            case Observation():
                self._print_observation(event)
            case FinalAnswer():
                self._print_panel("Final answer", Text(event.text), "green")
            case Notice():
                self._print_notice(event)
            case ContextFolded():
                self._print_notice(
                    Notice(
                        f"Context: folded {event.folded_messages} earlier messages into a summary "
                        f"(~{event.tokens_before} → ~{event.tokens_after} tokens)."
                    )
                )
            case RunFinished():
                self._print_result(event)

    # -- one method per event ----------------------------------------------------------------------------

    def _print_header(self, event: RunStarted) -> None:
        model = OFFLINE_MODEL_LABEL if event.offline else event.model
        header = Text.assemble(
            ("Goal: ", "bold"),
            (event.goal, "bold cyan"),
            (f" · model: {model} · protocol: {event.protocol}", "dim"),
        )
        self.console.print(header)

    def _start_spinner(self, step: int) -> None:
        # A spinner on a pipe or in a log file would be noise: only animate on a real terminal.
        if not self.console.is_terminal:
            return
        self._status = self.console.status(_ThinkingLabel(step))
        self._status.start()

    def _print_model_timing(self, event: ModelCallFinished) -> None:
        parts = [f"Step {event.step}", f"model {_format_seconds(event.seconds)}"]
        if event.usage is not None and event.usage.total_tokens:
            parts.append(_format_usage(event.usage))
        self.console.print(Text(" · ".join(parts), style="dim"))

    def _print_action(self, event: Action) -> None:
        # Highlighted as JSON but built as Text: it wraps (long values are not cropped) and is never markup.
        pretty = json.dumps(_shorten_strings(event.arguments), indent=2, ensure_ascii=False, default=str)
        self._print_panel(f"Action · {event.tool}", _JSON_HIGHLIGHTER(Text(pretty)), "magenta")

    def _print_observation(self, event: Observation) -> None:
        shown, left_out = _shorten(event.text, OBSERVATION_PREVIEW_LINES, OBSERVATION_PREVIEW_CHARS)
        body = Text(shown) if shown.strip() else Text("(empty)", style="dim")
        if left_out is not None:
            where = f"; full text in {self.trace_path}" if self.trace_path is not None else ""
            body.append(f"\n… ({left_out}{where})", style="dim")
        outcome = "" if event.ok else " · failed"
        title = f"Observation · {event.tool}{outcome} · {_format_seconds(event.seconds)}"
        if not event.ok:
            body.stylize("red")
        self._print_panel(title, body, "blue" if event.ok else "red")

    def _print_notice(self, event: Notice) -> None:
        if event.level == "warning":
            self.console.print(Text.assemble(("Warning: ", "bold yellow"), (event.text, "yellow")))
        else:
            self.console.print(Text(f"Note: {event.text}", style="dim"))

    def _print_result(self, event: RunFinished) -> None:
        if event.status == "saved" and event.plan_path is not None:
            line = Text.assemble(("✓ Plan saved: ", "bold green"), (display_path(event.plan_path), "bold"))
        else:
            line = Text(f"⚠ {status_message(event.status)}", style="bold yellow")
            if event.plan_path is not None:
                line.append(f" The last saved plan is {display_path(event.plan_path)}.", style="yellow")
        # soft_wrap keeps a long path on one line, so it can be copied. The summary is already on screen
        # in the final-answer panel, so it is not repeated here.
        self.console.print(line, soft_wrap=True)
        earlier = [path for path in dict.fromkeys(event.plans_saved) if path != event.plan_path]
        if earlier:
            listed = ", ".join(display_path(path) for path in earlier)
            self.console.print(Text(f"Also written: {listed}", style="dim"), soft_wrap=True)
        self.console.print(Text(_run_statistics(event), style="dim"))
        if self.trace_path is not None:
            self.console.print(Text(f"Trace: {self.trace_path}", style="dim"), soft_wrap=True)

    def _print_quiet_result(self, event: RunFinished) -> None:
        # Scripts read this: the path alone on the first line, nothing decorative.
        if event.status != "saved" or event.plan_path is None:
            return
        self.console.print(Text(display_path(event.plan_path)), soft_wrap=True)
        if event.summary.strip():
            self.console.print(Text(event.summary), soft_wrap=True)

    def _print_panel(self, title: str, body: Text, border_style: str) -> None:
        # Titles are Text: a str title would be parsed as markup, and tool names come from the model.
        panel = Panel(
            body,
            title=Text(title),
            title_align="left",
            border_style=border_style,
            box=box.ROUNDED,
        )
        self.console.print(panel)


# -- formatting helpers -----------------------------------------------------------------------------------


def _format_seconds(seconds: float) -> str:
    if seconds < 1:
        return f"{round(seconds * 1000)} ms"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s"


def _format_usage(usage: Usage) -> str:
    return f"{usage.prompt_tokens:,} → {usage.completion_tokens:,} tokens"


def _run_statistics(event: RunFinished) -> str:
    parts = [f"{event.steps} step{'s' if event.steps != 1 else ''}", _format_seconds(event.seconds)]
    if event.usage.total_tokens:
        parts.append(_format_usage(event.usage))
    return " · ".join(parts)


def _shorten(text: str, max_lines: int, max_chars: int) -> tuple[str, str | None]:
    """The start of `text` and what was left out, e.g. "30 more lines" (None when nothing was)."""
    lines = text.splitlines()
    if len(lines) > max_lines:
        kept = "\n".join(lines[:max_lines])
        if len(kept) <= max_chars:
            return kept, f"{len(lines) - max_lines} more lines"
    if len(text) > max_chars:
        return text[:max_chars], f"{len(text) - max_chars} more characters"
    return text, None


def _shorten_strings(value: Any) -> Any:
    """Arguments with long strings (a whole Markdown plan) cut to a preview, structure unchanged."""
    if isinstance(value, str):
        shown, left_out = _shorten(value, ARGUMENT_PREVIEW_LINES, ARGUMENT_PREVIEW_CHARS)
        return shown if left_out is None else f"{shown}\n… ({left_out})"
    if isinstance(value, dict):
        return {key: _shorten_strings(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shorten_strings(item) for item in value]
    return value


# -- progress and export (studyplan checkin / status / export) --------------------------------------------

DONE_MARK = "✓"
PROGRESS_BAR_WIDTH = 30


def _hours_text(hours: float) -> str:
    return f"{hours:g} h"


def _days_text(days: float) -> str:
    return f"{days:g} day" if days == 1 else f"{days:g} days"


def _span_text(start: date, end: date) -> str:
    return f"{start.isoformat()} – {end.isoformat()}"


def render_checkin(console: Console, result: CheckinResult) -> None:
    """One confirmation line: which week, what was added, the week's totals."""
    checkin, week = result.checkin, result.week
    parts = [f"{_hours_text(result.week_spent_hours)} of {_hours_text(result.planned_hours)} spent this week"]
    if checkin.hours is not None:
        parts.insert(0, f"+{_hours_text(checkin.hours)}")
    if result.week_done:
        parts.append(f"done {DONE_MARK}")
    if checkin.note:
        parts.append("note saved")
    line = Text.assemble(
        (f"{DONE_MARK} Checked in week {week.number} ", "bold green"),
        (f"({_span_text(week.start, week.end)}) of {display_path(result.plan_path)}: ", "green"),
        (" · ".join(parts), "bold"),
    )
    console.print(line, soft_wrap=True)


def render_status(console: Console, report: StatusReport) -> None:
    """Plan against reality: a table of weeks, progress bars, the pace in days, and what to do next."""
    plan = report.plan
    console.print(
        Text.assemble(
            (plan.title or report.plan_path.stem, "bold"),
            (f" · {display_path(report.plan_path)} · as of {report.today.isoformat()}", "dim"),
        ),
        soft_wrap=True,
    )
    table = Table(box=box.SIMPLE_HEAD)
    table.add_column("Week", justify="right", no_wrap=True)
    table.add_column("Dates", no_wrap=True)
    table.add_column("Courses · notes")  # the one column that wraps, so the numbers stay readable
    table.add_column("Planned", justify="right", no_wrap=True)
    table.add_column("Spent", justify="right", no_wrap=True)
    table.add_column("Done", justify="center", no_wrap=True)
    for status in report.weeks:
        week = status.week
        courses = Text(", ".join(status.course_labels))
        if status.notes:
            courses.append("\n" + "; ".join(status.notes), style="dim")
        table.add_row(
            Text(f"▸ {week.number}" if status.is_current else str(week.number)),
            # The year once: weeks are 7 days, so the end's month and day are enough.
            Text(f"{week.start.isoformat()} – {week.end:%m-%d}"),
            courses,
            Text(_hours_text(status.planned_hours)),
            Text(_hours_text(status.spent_hours) if status.spent_hours else "–"),
            Text(DONE_MARK, style="bold green") if status.done else Text(""),
            style="bold" if status.is_current else None,
        )
    console.print(table)

    bars = Table.grid(padding=(0, 1))
    total_weeks = len(report.weeks)
    planned = report.planned_hours
    bars.add_row(
        Text("Weeks"),
        ProgressBar(total=total_weeks, completed=report.done_weeks, width=PROGRESS_BAR_WIDTH),
        Text(f"{report.done_weeks}/{total_weeks} weeks done ({_percent(report.done_weeks, total_weeks)})"),
    )
    bars.add_row(
        Text("Hours"),
        ProgressBar(total=planned or 1, completed=report.spent_hours, width=PROGRESS_BAR_WIDTH),
        Text(
            f"{_hours_text(report.spent_hours)} of {_hours_text(planned)} spent "
            f"({_percent(report.spent_hours, planned)})"
        ),
    )
    console.print(bars)
    console.print(_pace_line(report), soft_wrap=True)
    _print_next_week(console, report)


def _percent(part: float, whole: float) -> str:
    return f"{part / whole:.0%}" if whole else "–"


def _pace_line(report: StatusReport) -> Text:
    ahead = report.days_ahead
    if ahead > 0:
        verdict = Text(f"ahead by {_days_text(ahead)}", style="bold green")
    elif ahead < 0:
        verdict = Text(f"behind by {_days_text(-ahead)}", style="bold yellow")
    else:
        verdict = Text("on schedule", style="bold green")
    first_day = report.weeks[0].week.start
    if report.today < first_day:
        where = f"the plan starts on {first_day.isoformat()}"
    else:
        where = f"the calendar is at day {report.expected_days:g} of {report.total_days}"
    detail = f" — {where}; your work covers {_days_text(round(report.actual_days, 1))}."
    return Text.assemble("Pace: ", verdict, (detail, "dim"))


def _print_next_week(console: Console, report: StatusReport) -> None:
    upcoming = report.next_week
    if upcoming is None:
        console.print(Text(f"{DONE_MARK} All {len(report.weeks)} weeks are done.", style="bold green"))
        return
    week = upcoming.week
    console.print(
        Text.assemble(
            ("Next: ", "bold"),
            (f"week {week.number} ({_span_text(week.start, week.end)}) · {', '.join(upcoming.course_labels)}", "bold"),
        ),
        soft_wrap=True,
    )
    lines = Text()
    if week.content:
        lines.append(f"  {week.content}\n")
    for task in week.tasks:
        lines.append(f"  - {task}\n")
    if week.deliverable:
        lines.append(f"  Deliverable: {week.deliverable}\n")
    lines.rstrip()
    if lines.plain:
        console.print(lines)


def render_export(console: Console, result: ExportResult) -> None:
    """Where the export went, what it holds, and a note when the usual name was taken."""
    if result.kind == "json":
        what = "Plan structure (JSON)"
    elif result.schedule is None:
        what = f"Calendar with {result.events} all-day week events"
    else:
        schedule = result.schedule
        days = ", ".join(("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")[day] for day in schedule.weekdays)
        what = (
            f"Calendar with {result.events} study sessions ({days}, "
            f"{schedule.start:%H:%M}–{schedule.end:%H:%M})"
        )
    console.print(
        Text.assemble((f"{DONE_MARK} {what} written: ", "bold green"), (display_path(result.path), "bold")),
        soft_wrap=True,
    )
    if result.path != result.requested:
        console.print(
            Text(f"Note: {display_path(result.requested)} already exists and was left as it is.", style="dim"),
            soft_wrap=True,
        )


# -- batch runs and model evaluation (studyplan batch / eval) ---------------------------------------------


GOAL_ERROR_PREVIEW_CHARS = 160


def batch_progress(console: Console) -> Progress:
    """The bar of a batch or evaluation: goals done of all, elapsed and estimated remaining time."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        SpinnerColumn(),
        TextColumn("{task.description}", markup=False),  # descriptions hold model names: never markup
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
    )


def render_goal_result(console: Console, result: GoalResult) -> None:
    """One line per finished goal, printed above the progress bar: ✓ goal → plan, or what went wrong."""
    if result.saved and result.plan_path is not None:
        mark, style, outcome = "✓", "green", display_path(Path(result.plan_path))
    elif result.status in STATUS_MESSAGES:
        mark, style, outcome = "⚠", "yellow", STATUS_MESSAGES[result.status]
    else:
        mark, style = ("✗", "yellow") if result.status == "rejected" else ("✗", "red")
        outcome = " ".join((result.error or result.status).split())
        if len(outcome) > GOAL_ERROR_PREVIEW_CHARS:  # the whole message is in the results file
            outcome = outcome[: GOAL_ERROR_PREVIEW_CHARS - 1] + "…"
    line = Text.assemble((f"{mark} ", f"bold {style}"), (result.goal or "(empty goal)", "bold"), (" → ", "dim"))
    line.append(outcome, style=style)
    details = [f"{result.steps} steps", _format_seconds(result.seconds)]
    if result.usage.total_tokens:
        details.append(f"{result.usage.total_tokens:,} tokens")
    line.append(f"  ({' · '.join(details)})", style="dim")
    console.print(line, soft_wrap=True)


def render_batch_summary(
    console: Console, counts: dict[str, int], skipped: int, results_path: Path, seconds: float
) -> None:
    """The last lines of a batch: how many goals ended each way and where the results are."""
    parts = [f"{count} {status}" for status, count in counts.items()]
    if skipped:
        parts.append(f"{skipped} skipped (already saved)")
    all_saved = set(counts) <= {"saved"}
    style = "bold green" if all_saved else "bold yellow"
    console.print(Text.assemble(("Batch: " if all_saved else "Batch incomplete: ", style),
                                (", ".join(parts) or "nothing to do", style),
                                (f" in {_format_seconds(seconds)}", "dim")))
    console.print(Text(f"Results: {display_path(results_path)}", style="dim"), soft_wrap=True)
    if not all_saved:
        console.print(Text("Run the same command again to retry the goals without a plan.", style="dim"))


def render_batch_interrupted(console: Console, finished: int, results_path: Path) -> None:
    console.print(
        Text(f"Interrupted: the {finished} goals that finished are in {display_path(results_path)}; "
             "run the same command again to do the rest.", style="yellow"),
        soft_wrap=True,
    )


def render_eval_table(console: Console, report: EvalReport, report_paths: list[Path]) -> None:
    """The evaluation's comparison table: one row per model × protocol (definitions are in the report)."""
    from studyplan.app.evaluate import format_number, format_rate

    table = Table(
        title=Text(f"Evaluation on {report.goals_source}"),
        caption=Text("Steps: median/p90 steps to a saved plan · Tokens, Secs: spent per plan saved"),
        box=box.SIMPLE_HEAVY,
        pad_edge=False,
    )
    table.add_column(Text("Model"), overflow="fold", min_width=8)
    table.add_column(Text("Proto."), min_width=5, no_wrap=True)
    for header in ("Success", "Plans", "Format", "Halluc.", "Steps", "Tokens", "Secs"):
        table.add_column(Text(header), justify="right", no_wrap=True)
    for s in report.summaries:
        steps = "—" if s.steps_median is None else f"{s.steps_median:g}/{s.steps_p90}"
        table.add_row(
            Text(s.model), Text(s.protocol), Text(format_rate(s.success_rate)), Text(str(s.plans)),
            Text(format_rate(s.format_stability)), Text(format_rate(s.hallucination_rate)), Text(steps),
            Text(format_number(s.tokens_per_plan, 0)), Text(format_number(s.seconds_per_plan, 2)),
        )
    console.print(table)
    for s in report.summaries:
        if s.errors:  # the endpoint failed, not the model: the figures above understate it
            console.print(Text(f"{s.model} · {s.protocol}: {s.errors} runs ended with an endpoint or internal "
                               "error (see the JSON report).", style="red"), soft_wrap=True)
    listed = ", ".join(display_path(path) for path in report_paths)
    console.print(Text(f"Report: {listed}", style="dim"), soft_wrap=True)


# -- revisions (studyplan revise / replan) -----------------------------------------------------------------

DIFF_DETAIL_CHARS = 48  # an added or removed week's content, enough to recognise it
_CHANGE_STYLES = {"added": "green", "removed": "red", "changed": "yellow", "moved": "cyan"}


def render_week_diff(console: Console, diff: PlanDiff, kept_version: Path | None = None) -> None:
    """What a revision changed: the plan's length and end, then one row per added, removed or changed week
    (a run of weeks that only moved to later or earlier dates is one row)."""
    weeks = f"{diff.after_weeks} weeks"
    if diff.before_weeks != diff.after_weeks:
        weeks = f"{diff.before_weeks} → {weeks}"
    end = diff.after_end.isoformat()
    if diff.before_end != diff.after_end:
        end = f"{diff.before_end.isoformat()} → {end}"
    parts = [weeks, f"ends {end}"]
    if diff.before_hours != diff.after_hours:
        parts.append(f"{_hours_text(diff.before_hours)} → {_hours_text(diff.after_hours)} per week")
    console.print(Text.assemble(("What changed: ", "bold"), " · ".join(parts)), soft_wrap=True)
    if not diff.changes:
        console.print(Text("No week changed.", style="dim"))
    else:
        table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
        for column in ("Change", "Week", "Starts", "Courses", "What"):
            table.add_column(column, overflow="fold")
        for row in _diff_rows(diff.changes):
            table.add_row(*row)
        console.print(table)
    if diff.unchanged:
        console.print(Text(f"{diff.unchanged} week{'s' if diff.unchanged != 1 else ''} unchanged.", style="dim"))
    if kept_version is not None:
        console.print(Text(f"Previous version kept: {display_path(kept_version)}", style="dim"), soft_wrap=True)


def _diff_rows(changes: tuple[WeekChange, ...]) -> list[tuple[Text, Text, Text, Text, Text]]:
    rows = []
    index = 0
    while index < len(changes):
        change = changes[index]
        if change.kind == "moved":
            run = [change]
            while index + len(run) < len(changes) and _continues_move(run[-1], changes[index + len(run)]):
                run.append(changes[index + len(run)])
            rows.append(_moved_row(run))
            index += len(run)
            continue
        rows.append(_change_row(change))
        index += 1
    return rows


def _shift_days(change: WeekChange) -> int:
    assert change.before is not None and change.after is not None
    return (change.after.start - change.before.start).days


def _continues_move(previous: WeekChange, change: WeekChange) -> bool:
    return (
        change.kind == "moved"
        and change.before is not None
        and previous.before is not None
        and change.before.number == previous.before.number + 1
        and _shift_days(change) == _shift_days(previous)
    )


def _moved_row(run: list[WeekChange]) -> tuple[Text, Text, Text, Text, Text]:
    first, last = run[0], run[-1]
    assert first.before and first.after and last.before and last.after
    if len(run) == 1:
        numbers = f"{first.before.number} → {first.after.number}"
    else:
        numbers = f"{first.before.number}–{last.before.number} → {first.after.number}–{last.after.number}"
    days = _shift_days(first)
    weeks, rest = divmod(abs(days), 7)
    amount = f"{weeks} week{'s' if weeks != 1 else ''}" if not rest else _days_text(abs(days))
    direction = "later" if days > 0 else "earlier"
    dates = f"{first.before.start.isoformat()} → {first.after.start.isoformat()}"
    return (
        Text("moved", style=_CHANGE_STYLES["moved"]),
        Text(numbers),
        Text(dates),
        Text("same as before", style="dim"),
        Text(f"{amount} {direction}" if days else "renumbered"),
    )


def _change_row(change: WeekChange) -> tuple[Text, Text, Text, Text, Text]:
    style = _CHANGE_STYLES[change.kind]
    before, after = change.before, change.after
    if before is not None and after is not None:
        number = str(after.number) if before.number == after.number else f"{before.number} → {after.number}"
        dates = after.start.isoformat()
        if before.start != after.start:
            dates = f"{before.start.isoformat()} → {dates}"
        courses = _courses_text(after)
        if "courses" in change.fields:
            courses = f"{_courses_text(before)} → {courses}"
        what = ", ".join(field for field in change.fields if field not in ("number", "dates"))
        return Text(change.kind, style=style), Text(number), Text(dates), Text(courses), Text(what or "dates")
    week = after or before
    assert week is not None
    detail = week.content if len(week.content) <= DIFF_DETAIL_CHARS else week.content[: DIFF_DETAIL_CHARS - 1] + "…"
    return (
        Text(change.kind, style=style),
        Text(str(week.number)),
        Text(week.start.isoformat()),
        Text(_courses_text(week)),
        Text(detail, style="dim"),
    )


def _courses_text(week: Week) -> str:
    return ", ".join(week.courses) or "—"



def render_replan_request(console: Console, request: str, needed: bool) -> None:
    """The measured pace `studyplan replan` found, and whether it calls for a revision."""
    console.print(Text.assemble(("Measured pace: ", "bold"), request), soft_wrap=True)
    if not needed:
        console.print(Text("On pace: the plan needs no replanning.", style="green"))
