"""The command line's root: the command group, the root options, and the edge where errors become exit codes.

`run_cli` is the only place that decides how the process ends: library code raises the types in
studyplan.errors and `exit_codes.exit_code_for` turns them into exit codes, with a one-line message and no
traceback. The commands live in studyplan.cli.commands, one module per command.
"""

from __future__ import annotations

import difflib
import os
import sys
from collections.abc import Sequence
from typing import Annotated

import typer
from typer._click import Context  # typer vendors click: its groups take this Context
from typer.core import TyperGroup

from studyplan import __version__
from studyplan.cli.commands import batch, checkin, config, export, keys, logs, plan, replan, revise, show, status
from studyplan.cli.commands import eval as eval_
from studyplan.cli.commands import list as list_
from studyplan.cli.commands import open as open_
from studyplan.cli.exit_codes import (
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_OUTPUT_CLOSED,
    EXIT_USAGE,
    exit_code_for,
)
from studyplan.errors import Interrupted, StudyplanError, UsageError

# The order `studyplan --help` lists the commands in (eval_, list_, open_: modules named after their commands,
# aliased so as not to shadow the builtins).
COMMAND_MODULES = (plan, show, list_, open_, revise, replan, checkin, status, export, batch, eval_, logs, config, keys)
# Options of the root, given before the command (or the goal): `studyplan --no-color "learn Python"`.
ROOT_FLAGS = ("--no-color", "-V", "--version", "-h", "--help", "--install-completion", "--show-completion")
# A single unknown word this close to a command name is a typo, not a goal (`studyplan lsit`).
TYPO_CUTOFF = 0.75


class DefaultCommandGroup(TyperGroup):
    """`studyplan "goal"` means `studyplan plan "goal"`: the main command needs no sub-command name."""

    default_command = "plan"

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        first = next((index for index, arg in enumerate(args) if arg not in ROOT_FLAGS), len(args))
        names_no_command = first < len(args) and args[first] not in self.commands
        if not ctx.resilient_parsing:  # shell completion never prints or refuses, it only finds the command
            if not args:
                typer.echo(ctx.get_help())
                raise UsageError('no goal given: studyplan "零基础3个月学机器学习" makes a plan (- reads the goal '
                                 "from stdin); studyplan COMMAND --help explains a command")
            if names_no_command:
                self._refuse_typo(args[first])
        if names_no_command:
            args = [*args[:first], self.default_command, *args[first:]]
        return super().parse_args(ctx, args)

    def _refuse_typo(self, word: str) -> None:
        if word.startswith("-") or len(word.split()) != 1:
            return  # an option for the default command, or a goal of several words
        close = difflib.get_close_matches(word.lower(), list(self.commands), n=1, cutoff=TYPO_CUTOFF)
        if close:
            raise UsageError(
                f"no such command {word!r}; did you mean 'studyplan {close[0]}'? (to plan a goal with that "
                f"word, say more, e.g. studyplan \"learn {word}\", or use studyplan plan {word})"
            )

    def invoke(self, ctx: Context) -> object:
        # Typer would turn Ctrl-C into a silent exit; make it an error the edge below reports.
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as interrupt:
            raise Interrupted("Interrupted: nothing was left half-written.") from interrupt


app = typer.Typer(
    cls=DefaultCommandGroup,
    rich_markup_mode=None,  # plain help: readable in a pipe, no boxes, defaults never cut off
    help='Turn one sentence into a dated, executable study plan: studyplan "零基础3个月学机器学习"',
    epilog='\b\nExamples:\n  studyplan "零基础3个月学机器学习"\n  studyplan status plans/ml.md\n'
    "  studyplan plan --help",
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 120},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"studyplan {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", "-V", callback=_version, is_eager=True, help="Show the version and exit.")
    ] = False,
    no_color: Annotated[bool, typer.Option("--no-color", help="No colours (as does the NO_COLOR variable).")] = False,
) -> None:
    """Turn one sentence into a dated, executable study plan."""
    if no_color:
        from studyplan.ui.console import set_no_color

        set_no_color(True)


def run_cli(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return its exit code; every error becomes one line on stderr."""
    from studyplan.ui.console import make_console, set_no_color
    from studyplan.ui.errors import render_error

    set_no_color(None)  # each invocation starts from the environment (tests run many in one process)
    command = typer.main.get_command(app)
    try:
        result = command.main(list(argv) if argv is not None else None, prog_name="studyplan", standalone_mode=False)
        return result if isinstance(result, int) else EXIT_OK
    except typer.Exit as exit_:
        return exit_.exit_code
    except typer.TyperException as error:  # bad flags or arguments, as worded by typer
        render_error(make_console(stderr=True), error.format_message())
        return EXIT_USAGE
    except BrokenPipeError:  # the reader stopped early (`| head`): nothing to report, and nothing left to print
        _discard_stdout()
        return EXIT_OUTPUT_CLOSED
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


def _discard_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush does not fail on the closed pipe too."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real file descriptor (tests capture stdout): nothing will flush
        pass


for _module in COMMAND_MODULES:
    _module.register(app)


def main() -> None:
    sys.exit(run_cli())
