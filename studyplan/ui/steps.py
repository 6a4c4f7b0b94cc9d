"""The steps of a run as they happen: one screen for the agent's events (studyplan plan / revise / replan).

The agent loop yields events (studyplan.core.events); `Renderer.handle` turns each into something a person can
follow: panels on a terminal, plain lines anywhere else. Everything that came from a model or a tool is
wrapped in `rich.text.Text` (or rendered as data) so that text like "[bold]" or "[link=...]" is shown
literally and never interpreted as Rich markup.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console
from rich.highlighter import JSONHighlighter
from rich.panel import Panel
from rich.status import Status
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
    Thought,
)
from studyplan.paths import display_path
from studyplan.safe_text import clean_text
from studyplan.ui.console import is_plain
from studyplan.ui.words import format_seconds, format_usage, status_message

OFFLINE_MODEL_LABEL = "offline — built-in rule-based planner, no network"

# Panels show enough to follow the run; the full text of every call goes to the trace.
ARGUMENT_PREVIEW_LINES = 4
ARGUMENT_PREVIEW_CHARS = 240
OBSERVATION_PREVIEW_LINES = 20
OBSERVATION_PREVIEW_CHARS = 2000
PLAIN_INDENT = "  "

_JSON_HIGHLIGHTER = JSONHighlighter()


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
        event = _without_control_characters(event)
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
            (f" · endpoint: {event.endpoint}" if event.endpoint else "", "dim"),
        )
        self.console.print(header, soft_wrap=True)  # one line, in a log too

    def _start_spinner(self, step: int) -> None:
        # A spinner on a pipe or in a log file would be noise: only animate on a real terminal.
        if not self.console.is_terminal:
            return
        self._status = self.console.status(_ThinkingLabel(step))
        self._status.start()

    def _print_model_timing(self, event: ModelCallFinished) -> None:
        parts = [f"Step {event.step}", f"model {format_seconds(event.seconds)}"]
        if event.usage is not None and event.usage.total_tokens:
            parts.append(format_usage(event.usage))
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
        title = f"Observation · {event.tool}{outcome} · {format_seconds(event.seconds)}"
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
            line = Text(f"⚠ {status_message(event.status, event.detail)}", style="bold yellow")
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
        if is_plain(self.console):
            # Logs and pipes: the title on its own line, the body indented under it, no box around it.
            self.console.print(Text(title, style=f"bold {border_style}"), soft_wrap=True)
            indented = Text("\n").join(Text(PLAIN_INDENT) + line for line in body.split("\n", allow_blank=True))
            self.console.print(indented, soft_wrap=True)
            return
        # Titles are Text: a str title would be parsed as markup, and tool names come from the model.
        panel = Panel(
            body,
            title=Text(title),
            title_align="left",
            border_style=border_style,
            box=box.ROUNDED,
        )
        self.console.print(panel)



# -- formatting helpers ------------------------------------------------------------------------------------


def _run_statistics(event: RunFinished) -> str:
    parts = [f"{event.steps} step{'s' if event.steps != 1 else ''}", format_seconds(event.seconds)]
    if event.usage.total_tokens:
        parts.append(format_usage(event.usage))
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


def show_run(events: Iterable[Event], renderer: Renderer) -> RunFinished:
    """Render every event of a run as it happens; returns the last one (status, plan path, usage)."""
    finished: RunFinished | None = None
    with renderer:
        for event in events:
            renderer.handle(event)
            if isinstance(event, RunFinished):
                finished = event
    assert finished is not None, "the agent always ends with RunFinished"
    return finished


def _without_control_characters(event: Event) -> Event:
    """The event with what the model wrote (thoughts, answers, observations, arguments) cleaned of escape
    sequences and control characters: a reply must not recolour or rewrite the user's terminal."""
    match event:
        case Thought() | FinalAnswer() | Observation() | Notice():
            return replace(event, text=clean_text(event.text))
        case Action():
            arguments = {name: clean_text(value) if isinstance(value, str) else value
                         for name, value in event.arguments.items()}
            return replace(event, arguments=arguments)
        case RunFinished():
            return replace(event, summary=clean_text(event.summary))
    return event
