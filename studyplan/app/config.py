"""The user's own files: the config file and the keys file in the user's config folder (platformdirs).

Both folders can be moved by environment variables (STUDYPLAN_CONFIG_DIR, STUDYPLAN_DATA_DIR), which is
also how the tests keep to temporary folders. The config file is flat TOML (`model = "deepseek-chat"`),
written by `studyplan config set`; the keys file is JSON, mode 0600, written only by `studyplan keys set`.
Keys are never printed, traced or written anywhere else.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

from studyplan.errors import UsageError
from studyplan.llm.settings import BoundFlags, ModelSettings, resolve_settings
from studyplan.paths import read_user_file

APP_NAME = "studyplan"
CONFIG_DIR_VARIABLE = "STUDYPLAN_CONFIG_DIR"
DATA_DIR_VARIABLE = "STUDYPLAN_DATA_DIR"
CONFIG_FILE = "config.toml"
KEYS_FILE = "keys.json"
KEYS_MODE = 0o600
# Both files are a few lines; anything bigger is not ours and is not read whole.
MAX_FILE_BYTES = 64 * 1024
_KEY_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$")


def config_dir(env: Mapping[str, str] = os.environ) -> Path:
    override = env.get(CONFIG_DIR_VARIABLE, "").strip()
    if override:
        return Path(override).expanduser()
    import platformdirs

    return platformdirs.user_config_path(APP_NAME)


def data_dir(env: Mapping[str, str] = os.environ) -> Path:
    override = env.get(DATA_DIR_VARIABLE, "").strip()
    if override:
        return Path(override).expanduser()
    import platformdirs

    return platformdirs.user_data_path(APP_NAME)


def config_path(env: Mapping[str, str] = os.environ) -> Path:
    return config_dir(env) / CONFIG_FILE


def keys_path(env: Mapping[str, str] = os.environ) -> Path:
    return config_dir(env) / KEYS_FILE


# -- the config file ----------------------------------------------------------------------------------------


def _text(value: str) -> str:
    return value


def _url(value: str) -> str:
    if not value.startswith(("http://", "https://")):
        raise ValueError("a URL starting with http:// or https://, e.g. http://localhost:11434/v1")
    return value


def _positive(value: str) -> float:
    number = float(value)
    if not number > 0:
        raise ValueError("a number above 0")
    return int(number) if number == int(number) else number


def _whole(value: str) -> int:
    number = int(value)
    if number < 1:
        raise ValueError("a whole number of at least 1")
    return number


def _language(value: str) -> str:
    if value not in ("zh", "en"):
        raise ValueError("zh or en")
    return value


def _start(value: str) -> str:
    datetime.strptime(value, "%Y-%m-%d")
    return value


def _switch(value: str) -> bool:
    lowered = value.lower()
    if lowered in ("true", "on", "yes", "1"):
        return True
    if lowered in ("false", "off", "no", "0"):
        return False
    raise ValueError("true or false")


@dataclass(frozen=True)
class Setting:
    parse: Callable[[str], Any]  # raises ValueError for a value it cannot use
    expects: str  # what a value looks like, for the error message
    help: str


SETTINGS: dict[str, Setting] = {
    "model": Setting(_text, "a model name", "Model used when no --model is given, e.g. deepseek-chat."),
    "base_url": Setting(_url, "a URL", "Endpoint for model names no preset knows."),
    "plans_dir": Setting(_text, "a folder", "Folder plans are written to (default: ./plans)."),
    "hours_per_week": Setting(_positive, "a number of hours", "Weekly hours when the goal does not say."),
    "language": Setting(_language, "zh or en", "Plan language when the goal does not decide it."),
    "start": Setting(_start, "a date like 2026-12-07", "Start date when the goal does not say."),
    "timeout": Setting(_positive, "seconds", "Longest wait for one model reply (--timeout)."),
    "deadline": Setting(_positive, "seconds", "Longest a whole run may take (--deadline)."),
    "max_tokens": Setting(_whole, "a whole number", "Most tokens one model reply may generate (--max-tokens)."),
    "log": Setting(_switch, "true or false", "Record every run in the run log (studyplan logs)."),
}


def _read_bounded(path: Path) -> str | None:
    """The file's text, or None when it does not exist; UsageError when it cannot be ours (not a regular file,
    too big, not UTF-8)."""
    if not path.exists() and not path.is_symlink():
        return None
    return read_user_file(path, UsageError, "config file", limit=MAX_FILE_BYTES)


def read_config(env: Mapping[str, str] = os.environ) -> dict[str, Any]:
    """The config file's settings (empty when there is none); UsageError naming the file when unusable."""
    path = config_path(env)
    text = _read_bounded(path)
    if text is None:
        return {}
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise UsageError(f"{path}: not valid TOML ({error}); fix it or run `studyplan config unset KEY`") from None
    unknown = sorted(set(data) - set(SETTINGS))
    if unknown:
        raise UsageError(f"{path}: unknown setting(s) {', '.join(unknown)}; known: {', '.join(SETTINGS)}")
    return data


def parse_setting(key: str, value: str) -> Any:
    setting = SETTINGS.get(key)
    if setting is None:
        raise UsageError(f"unknown setting {key!r}; known: {', '.join(SETTINGS)}")
    try:
        return setting.parse(value.strip())
    except ValueError:
        raise UsageError(f"{key} must be {setting.expects}, got {value!r}") from None


def set_config(key: str, value: str | None, env: Mapping[str, str] = os.environ) -> Path:
    """Set (or with None, remove) one setting; the file is rewritten whole, atomically. Returns its path."""
    data = read_config(env)
    if value is None:
        if key not in SETTINGS:
            raise UsageError(f"unknown setting {key!r}; known: {', '.join(SETTINGS)}")
        data.pop(key, None)
    else:
        data[key] = parse_setting(key, value)
    lines = ["# studyplan settings (studyplan config set KEY VALUE)"]
    lines += [f"{name} = {_toml_value(data[name])}" for name in SETTINGS if name in data]
    path = config_path(env)
    write_private_file(path, "\n".join(lines) + "\n", mode=0o644)
    return path


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return json.dumps(str(value), ensure_ascii=False)  # a JSON string is a TOML basic string


@dataclass(frozen=True)
class GoalDefaults:
    goal: str
    start: date | None


def goal_defaults(
    goal: str, today: date, start: date | None, offline: bool, env: Mapping[str, str] = os.environ
) -> GoalDefaults:
    """The goal with what the config file says the goal leaves open: weekly hours, start, language.

    The defaults are written into the goal sentence, where every model (and the offline planner's goal
    parser) reads them: `hours_per_week` when the goal names no weekly time, `start` (when not past) when no
    --start is given. `language` is a note for a model only: the offline planner writes the goal's language.
    """
    from studyplan.engine.time_phrases import hours_per_week
    from studyplan.lang import detect_lang

    config = read_config(env)
    lang = detect_lang(goal)
    hours = config.get("hours_per_week")
    if hours and hours_per_week(goal) is None:
        goal += f"，每周 {hours:g} 小时" if lang == "zh" else f", {hours:g} hours a week"
    language = config.get("language")
    if language and language != lang and not offline:
        goal += "（计划用中文写）" if language == "zh" else " (write the plan in English)"
    configured = config.get("start")
    if start is None and configured and date.fromisoformat(str(configured)) >= today:
        start = date.fromisoformat(str(configured))
    return GoalDefaults(goal, start)


def plans_dir(flag: Path | None, env: Mapping[str, str] = os.environ, config: Mapping[str, Any] | None = None) -> Path:
    """--plans-dir, else STUDYPLAN_PLANS_DIR, else the config file's plans_dir, else ./plans."""
    if flag is not None:
        return flag
    if env.get("STUDYPLAN_PLANS_DIR", "").strip():
        return Path(env["STUDYPLAN_PLANS_DIR"].strip()).expanduser()
    configured = (config if config is not None else read_config(env)).get("plans_dir")
    return Path(str(configured)).expanduser() if configured else Path("plans")


def log_enabled(no_log_flag: bool, env: Mapping[str, str] = os.environ) -> bool:
    return not no_log_flag and read_config(env).get("log", True) is not False


# -- the keys file ------------------------------------------------------------------------------------------


def read_keys(env: Mapping[str, str] = os.environ) -> dict[str, str]:
    path = keys_path(env)
    text = _read_bounded(path)
    if text is None:
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise UsageError(f"{path}: not a keys file written by studyplan; move it away and set the keys again")
    return data


def set_key(name: str, key: str, env: Mapping[str, str] = os.environ) -> Path:
    """Store one key under `name` (a provider such as deepseek, or a host name), mode 0600."""
    if not _KEY_NAME.match(name):
        raise UsageError(f"key name {name!r}: use a provider (openai, deepseek, dashscope) or a host name")
    key = key.strip()
    if not key or any(ch.isspace() for ch in key):
        raise UsageError("the key must be one word with no spaces (paste it whole)")
    keys = read_keys(env)
    keys[name] = key
    path = keys_path(env)
    write_private_file(path, json.dumps(keys, indent=2, sort_keys=True) + "\n", mode=KEYS_MODE)
    return path


def remove_key(name: str, env: Mapping[str, str] = os.environ) -> bool:
    keys = read_keys(env)
    if name not in keys:
        return False
    del keys[name]
    write_private_file(keys_path(env), json.dumps(keys, indent=2, sort_keys=True) + "\n", mode=KEYS_MODE)
    return True


def write_private_file(path: Path, text: str, mode: int) -> None:
    """Replace `path` atomically with a file created with `mode` from the start (never briefly readable)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        os.fchmod(descriptor, mode)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


# -- the model, from all of it ------------------------------------------------------------------------------


def model_settings(
    model: str | None,
    base_url: str | None,
    temperature: float,
    flags: BoundFlags | None = None,
    env: Mapping[str, str] = os.environ,
) -> ModelSettings:
    """The model for a run: flags, environment, config file and keys file (see llm/settings.py)."""
    return resolve_settings(
        model, base_url, temperature, env, config=read_config(env), keys=read_keys(env), flags=flags
    )
