"""The command line: parses flags, builds the agent, renders its events, and maps errors to exit codes.

This is the only place that decides how the process ends: library code raises the types in
studyplan.errors and `EXIT_CODES` turns them into exit codes, with a one-line message and no traceback.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Annotated

import typer
from typer.core import TyperGroup

from studyplan import __version__
from studyplan.cli.options import (
    BaseUrlOption,
    CatalogOption,
    MaxStepsOption,
    ModelOption,
    PlansDirOption,
    ProtocolName,
    ProtocolOption,
    QuietOption,
    StreamOption,
    TemperatureOption,
    TodayOption,
    TraceFileOption,
    TraceOption,
)
from studyplan.errors import CatalogError, Interrupted, ModelError, PlanFileError, StudyplanError, UsageError

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_USAGE = 2
EXIT_DATA = 3
EXIT_MODEL = 4
EXIT_STEP_LIMIT = 5
EXIT_NO_PLAN = 6
EXIT_BATCH_INCOMPLETE = 7  # `batch`: some goal ended without a saved plan (see the results file)
EXIT_INTERRUPTED = 130

# The one mapping from error types to exit codes (most specific first).
EXIT_CODES: list[tuple[type[BaseException], int]] = [
    (Interrupted, EXIT_INTERRUPTED),
    (UsageError, EXIT_USAGE),
    (CatalogError, EXIT_DATA),
    (PlanFileError, EXIT_DATA),
    (ModelError, EXIT_MODEL),
    (StudyplanError, EXIT_INTERNAL),
]
STATUS_EXIT_CODES = {
    "saved": EXIT_OK,
    "step_limit": EXIT_STEP_LIMIT,
    "repeated_calls": EXIT_STEP_LIMIT,
    "no_plan": EXIT_NO_PLAN,
}


class DefaultCommandGroup(TyperGroup):
    """`studyplan "goal"` means `studyplan plan "goal"`: the main command needs no sub-command name."""

    default_command = "plan"

    # typer.Context subclasses the vendored click Context the base class names; the override is sound.
    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:  # type: ignore[override]
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h", "--version"):
            args = [self.default_command, *args]
        return super().parse_args(ctx, args)

    def invoke(self, ctx: typer.Context) -> object:  # type: ignore[override]
        # Typer would turn Ctrl-C into a silent exit; make it an error the edge below reports.
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as interrupt:
            raise Interrupted("Interrupted: nothing was left half-written.") from interrupt


app = typer.Typer(
    cls=DefaultCommandGroup,
    no_args_is_help=True,
    add_completion=False,
    help='Turn one sentence into a dated, executable study plan: studyplan "零基础3个月学机器学习"',
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"studyplan {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version and exit.")
    ] = False,
) -> None:
    """Turn one sentence into a dated, executable study plan."""


def parse_today(value: str | None) -> date:
    if value is None:
        return date.today()
    try:
        return datetime.strptime(value, "%Y-%m-%d").date()
    except ValueError:
        raise UsageError(f"--today must be a date like 2026-11-30, got {value!r}") from None


@app.command("plan")
def plan_command(
    goal: Annotated[str, typer.Argument(help='Your goal in one sentence, e.g. "零基础3个月学机器学习".')],
    model: ModelOption = None,
    base_url: BaseUrlOption = None,
    temperature: TemperatureOption = 0.2,
    protocol: ProtocolOption = ProtocolName.auto,
    max_steps: MaxStepsOption = 8,
    today: TodayOption = None,
    catalog: CatalogOption = None,
    plans_dir: PlansDirOption = Path("plans"),
    trace: TraceOption = False,
    trace_file: TraceFileOption = None,
    stream: StreamOption = False,
    quiet: QuietOption = False,
) -> None:
    """Make a study plan from one sentence (the default command)."""
    from studyplan.app.plan import RunOptions, run_plan

    options = RunOptions(
        goal=goal,
        model=model,
        base_url=base_url,
        temperature=temperature,
        protocol=protocol.value,
        max_steps=max_steps,
        today=parse_today(today),
        catalog=catalog,
        plans_dir=plans_dir,
        trace_file=trace_file,
        trace=trace or trace_file is not None,
        stream=stream,
        quiet=quiet,
    )
    finished = run_plan(options)
    raise typer.Exit(STATUS_EXIT_CODES[finished.status])


def exit_code_for(error: BaseException) -> int:
    for error_type, code in EXIT_CODES:
        if isinstance(error, error_type):
            return code
    return EXIT_INTERNAL


def run_cli(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return its exit code; every error becomes one line on stderr."""
    from studyplan.ui.render import make_console, render_error

    command = typer.main.get_command(app)
    try:
        result = command.main(list(argv) if argv is not None else None, prog_name="studyplan", standalone_mode=False)
        return result if isinstance(result, int) else EXIT_OK
    except typer.Exit as exit_:
        return exit_.exit_code
    except typer.TyperException as error:  # bad flags or arguments, as worded by typer
        render_error(make_console(stderr=True), error.format_message())
        return EXIT_USAGE
    except (KeyboardInterrupt, typer.Abort):  # Ctrl-C outside a command (e.g. while parsing)
        return EXIT_INTERRUPTED
    except StudyplanError as error:
        render_error(make_console(stderr=True), str(error))
        return exit_code_for(error)
    except Exception as error:  # the last resort: a bug, reported on one line (set STUDYPLAN_DEBUG=1 for details)
        if os.environ.get("STUDYPLAN_DEBUG"):
            raise
        render_error(
            make_console(stderr=True),
            f"internal error: {type(error).__name__}: {error} (set STUDYPLAN_DEBUG=1 for the traceback)",
        )
        return EXIT_INTERNAL


def _register_commands() -> None:
    """Sub-commands live in studyplan.cli.commands.*; each module has `register(app)` and imports lazily."""
    import importlib
    import pkgutil

    from studyplan.cli import commands

    for module in pkgutil.iter_modules(commands.__path__):
        importlib.import_module(f"studyplan.cli.commands.{module.name}").register(app)


_register_commands()


def main() -> None:
    sys.exit(run_cli())
