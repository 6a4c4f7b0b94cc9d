"""`studyplan config get|set|unset|path`: the settings file in the user's config folder."""

from __future__ import annotations

from typing import Annotated

import typer

EXAMPLES = """\b
Examples:
  studyplan config set model deepseek-chat
  studyplan config set hours_per_week 6
  studyplan config get
  studyplan config path
"""

config_app = typer.Typer(
    help="Show or change the settings file (model, base_url, plans_dir, hours_per_week, language, start, ...).",
    no_args_is_help=True,
    epilog=EXAMPLES,
)
KeyArgument = Annotated[str, typer.Argument(metavar="KEY", help="A setting, e.g. model.", show_default=False)]


@config_app.command("get")
def get_command(
    key: Annotated[
        str | None, typer.Argument(metavar="[KEY]", help="One setting; all when left out.", show_default=False)
    ] = None,
) -> None:
    """Print one setting's value, or every setting as KEY = VALUE (unset ones as comments)."""
    from studyplan.app.config import SETTINGS, read_config
    from studyplan.errors import UsageError

    values = read_config()
    if key is not None:
        if key not in SETTINGS:
            raise UsageError(f"unknown setting {key!r}; known: {', '.join(SETTINGS)}")
        if key not in values:
            raise UsageError(f"{key} is not set (studyplan config set {key} VALUE)")
        typer.echo(_shown(values[key]))
        return
    for name, setting in SETTINGS.items():
        typer.echo(f"{name} = {_shown(values[name])}" if name in values else f"# {name}: {setting.help}")


def _shown(value: object) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


@config_app.command("set")
def set_command(
    key: KeyArgument,
    value: Annotated[str, typer.Argument(metavar="VALUE", help="The new value.", show_default=False)],
) -> None:
    """Set one setting (checked first: a model is resolved, a URL, a date or a number must be one)."""
    from studyplan.app.config import read_config, read_keys, set_config
    from studyplan.llm.settings import resolve_settings
    from studyplan.paths import display_path

    if key == "model":  # refuse a model no server is known for now, not at the next run
        base_url = read_config().get("base_url")
        resolve_settings(value, None, 0.2, env={}, config={"base_url": base_url}, keys=read_keys(), check_key=False)
    path = set_config(key, value)
    typer.echo(f"{key} = {value}  ({display_path(path)})")


@config_app.command("unset")
def unset_command(key: KeyArgument) -> None:
    """Remove one setting (its default applies again)."""
    from studyplan.app.config import set_config

    set_config(key, None)
    typer.echo(f"{key} unset")


@config_app.command("path")
def path_command() -> None:
    """Print where the settings file is (it may not exist yet). Move it with STUDYPLAN_CONFIG_DIR."""
    from studyplan.app.config import config_path

    typer.echo(str(config_path()))


def register(app: typer.Typer) -> None:
    app.add_typer(config_app, name="config")
