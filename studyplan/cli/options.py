"""Command-line options shared by the commands, written once (typer `Annotated` aliases), and the run options.

The options of an agent run (model, endpoint, protocol, bounds, dates, files, output) are declared
once in `RUN_OPTIONS`; `@with_run_options` adds them to a command and hands it one `RunOptions`.
Light imports only: `studyplan --help` loads this module.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from datetime import date, datetime
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, get_type_hints

import typer

from studyplan.errors import UsageError

if TYPE_CHECKING:
    from studyplan.app.plan import RunOptions


class ProtocolName(StrEnum):
    auto = "auto"
    tools = "tools"
    text = "text"


PlanArgument = Annotated[
    Path, typer.Argument(help="A saved plan, e.g. plans/ml.md.", metavar="PLAN", show_default=False)
]
ModelOption = Annotated[
    str | None,
    typer.Option(
        "--model",
        "-m",
        metavar="NAME",
        help="A model or preset (deepseek-chat, qwen-plus, ollama/qwen2.5:7b, openai/gpt-4o-mini, local/NAME), or "
        "'offline'. Default: $STUDYPLAN_MODEL, else the config file's model, else offline.",
        show_default=False,
    ),
]
BaseUrlOption = Annotated[
    str | None,
    typer.Option(
        "--base-url", metavar="URL", help="OpenAI-compatible endpoint. Default: $OPENAI_BASE_URL.", show_default=False
    ),
]
TemperatureOption = Annotated[float, typer.Option(min=0.0, max=2.0, metavar="T", help="Sampling temperature.")]
ProtocolOption = Annotated[
    ProtocolName,
    typer.Option(
        metavar="auto|tools|text",
        help="tools: native function calling; text: Thought/Action lines; auto: tools, falling back to text.",
    ),
]
MaxStepsOption = Annotated[int, typer.Option(min=1, max=50, metavar="N", help="Most model calls before the run stops.")]
TodayOption = Annotated[
    str | None,
    typer.Option(metavar="DATE", help="Use this date as today (YYYY-MM-DD), for repeatable runs.", show_default=False),
]
CatalogOption = Annotated[
    Path | None,
    typer.Option(
        metavar="FILE",
        help="Course catalog JSON. Default: $STUDYPLAN_CATALOG, else the built-in one.",
        show_default=False,
    ),
]
PlansDirOption = Annotated[
    Path | None,
    typer.Option(
        envvar="STUDYPLAN_PLANS_DIR",
        metavar="DIR",
        help="Folder plans are written to. Default: $STUDYPLAN_PLANS_DIR, else the config file's plans_dir, "
        "else ./plans.",
        show_default=False,
    ),
]
TimeoutOption = Annotated[
    float | None,
    typer.Option(
        min=0.1,
        metavar="SECONDS",
        help="Longest wait for one model reply. Default: $STUDYPLAN_TIMEOUT, else the config file, else 120 "
        "(600 for a server on this machine).",
        show_default=False,
    ),
]
DeadlineOption = Annotated[
    float | None,
    typer.Option(
        min=0.1,
        metavar="SECONDS",
        help="Longest a whole run may take. Default: $STUDYPLAN_DEADLINE, else the config file, else 600 "
        "(1800 for a server on this machine).",
        show_default=False,
    ),
]
MaxTokensOption = Annotated[
    int | None,
    typer.Option(
        min=1,
        metavar="N",
        help="Most tokens one model reply may generate. Default: $STUDYPLAN_MAX_TOKENS, else the config file, "
        "else 2048.",
        show_default=False,
    ),
]
NoLogOption = Annotated[
    bool, typer.Option("--no-log", help="Do not record this run in the run log (studyplan logs).")
]
TraceOption = Annotated[bool, typer.Option("--trace", help="Write a JSON Lines step log beside the plan.")]
TraceFileOption = Annotated[
    Path | None,
    typer.Option(metavar="FILE", help="Write the step log to this path (implies --trace).", show_default=False),
]
StreamOption = Annotated[bool, typer.Option("--stream", help="Stream model replies.")]
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="Print only the plan's path and summary.")]
PageOutputOption = Annotated[
    Path | None,
    typer.Option(
        "--output", "-o", metavar="PATH", help="Where the HTML page goes (a file or a folder). Default: beside the "
        "plan.", show_default=False,
    ),
]
JsonOption = Annotated[
    bool, typer.Option("--json", help="Print one JSON document on stdout instead of the screen (for scripts).")
]

# The run options: (parameter name, annotated type, default), in the order `--help` lists them.
RUN_OPTIONS: list[tuple[str, Any, Any]] = [
    ("model", ModelOption, None),
    ("base_url", BaseUrlOption, None),
    ("temperature", TemperatureOption, 0.2),
    ("protocol", ProtocolOption, ProtocolName.auto),
    ("max_steps", MaxStepsOption, 8),
    ("today", TodayOption, None),
    ("catalog", CatalogOption, None),
    ("plans_dir", PlansDirOption, None),
    ("trace", TraceOption, False),
    ("trace_file", TraceFileOption, None),
    ("stream", StreamOption, False),
    ("quiet", QuietOption, False),
    ("timeout", TimeoutOption, None),
    ("deadline", DeadlineOption, None),
    ("max_tokens", MaxTokensOption, None),
    ("no_log", NoLogOption, False),
]


def parse_today(value: str | None) -> date:
    if value is None:
        return date.today()
    try:
        return datetime.strptime(value, "%Y-%m-%d").date()
    except ValueError:
        raise UsageError(f"--today must be a date like 2026-11-30, got {value!r}") from None


def run_options_from(values: dict[str, Any]) -> RunOptions:
    """The `RunOptions` the run option flags ask for (dates checked, --trace-file implying --trace)."""
    from studyplan.app.config import plans_dir
    from studyplan.app.plan import RunOptions

    return RunOptions(
        today=parse_today(values["today"]),
        plans_dir=plans_dir(values.get("plans_dir")),
        model=values["model"],
        base_url=values["base_url"],
        temperature=values["temperature"],
        protocol=ProtocolName(values["protocol"]).value,
        max_steps=values["max_steps"],
        catalog=values["catalog"],
        trace=values["trace"] or values["trace_file"] is not None,
        trace_file=values["trace_file"],
        stream=values["stream"],
        quiet=values["quiet"],
        timeout=values["timeout"],
        deadline=values["deadline"],
        max_tokens=values["max_tokens"],
        log=not values["no_log"],
    )


def with_run_options(*, without: tuple[str, ...] = ()) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Give a command the run option flags; the command takes them as one `options: RunOptions` parameter.

    `without` leaves out flags that do not apply (revise writes beside the plan, so it has no --plans-dir).
    Typer reads the wrapper's signature: the command's own parameters, then the run options.
    """
    chosen = [(name, annotation, default) for name, annotation, default in RUN_OPTIONS if name not in without]

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        # `options: RunOptions` is dropped from the signature; RunOptions is imported for type checking only
        # (importing the app layer would slow down --help), so any stand-in resolves it here.
        hints = get_type_hints(command, localns={"RunOptions": object}, include_extras=True)
        own = [
            parameter.replace(annotation=hints[parameter.name])
            for parameter in inspect.signature(command).parameters.values()
            if parameter.name != "options"
        ]
        added = [
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=default)
            for name, annotation, default in chosen
        ]

        @functools.wraps(command)
        def wrapper(**values: Any) -> Any:
            run_values = {name: values.pop(name) for name, _, _ in chosen}
            return command(options=run_options_from(run_values), **values)

        wrapper.__signature__ = inspect.Signature([*own, *added])  # type: ignore[attr-defined]
        wrapper.__annotations__ = {parameter.name: parameter.annotation for parameter in [*own, *added]}
        return wrapper

    return decorate
