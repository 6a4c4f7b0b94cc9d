"""`studyplan keys set|list|remove|path`: API keys in a file only you can read (mode 0600)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

EXAMPLES = """\b
Examples:
  studyplan keys set deepseek
  echo "$DASHSCOPE_API_KEY" | studyplan keys set dashscope
  studyplan keys list
"""
# A key is a few hundred characters at most.
MAX_KEY_CHARS = 4_096

keys_app = typer.Typer(
    help="Store API keys for the providers (openai, deepseek, dashscope, or a host name). Keys are never printed.",
    no_args_is_help=True,
    epilog=EXAMPLES,
)
NameArgument = Annotated[
    str,
    typer.Argument(metavar="NAME", help="A provider (openai, deepseek, dashscope) or a host name.", show_default=False),
]


@keys_app.command("set")
def set_command(name: NameArgument) -> None:
    """Store the key for NAME: typed at a hidden prompt, or piped in on stdin."""
    from studyplan.app.config import set_key
    from studyplan.cli.inputs import read_stdin
    from studyplan.paths import display_path

    if sys.stdin.isatty():
        key = typer.prompt(f"Key for {name}", hide_input=True)
    else:
        key = read_stdin(MAX_KEY_CHARS, "the key").strip()
    path = set_key(name, key)
    typer.echo(f"Saved the key for {name} in {display_path(path)} (readable only by you).")


@keys_app.command("list")
def list_command() -> None:
    """The names that have a key (in the keys file or the environment); never the keys."""
    import os

    from studyplan.app.config import read_keys
    from studyplan.llm.presets import KEY_VARIABLES

    names = sorted(read_keys())
    for name in names:
        typer.echo(f"{name}  (keys file)")
    exported = [variable for variable in KEY_VARIABLES if os.environ.get(variable, "").strip()]
    for variable in exported:
        typer.echo(f"{variable}  (environment)")
    if not names and not exported:
        typer.echo("No keys yet: studyplan keys set NAME (e.g. deepseek).")


@keys_app.command("remove")
def remove_command(name: NameArgument) -> None:
    """Forget the key stored for NAME."""
    from studyplan.app.config import remove_key
    from studyplan.errors import UsageError

    if not remove_key(name):
        raise UsageError(f"no key stored for {name!r} (studyplan keys list)")
    typer.echo(f"Removed the key for {name}.")


@keys_app.command("path")
def path_command() -> None:
    """Print where the keys file is (it may not exist yet)."""
    from studyplan.app.config import keys_path

    typer.echo(str(keys_path()))


def register(app: typer.Typer) -> None:
    app.add_typer(keys_app, name="keys")
