"""A tool's arguments as a pydantic model built from its signature: one source for the JSON schema the model
sees and for the checks its calls go through.

Each parameter's type is wrapped in a lenient first step for what models write (初级 for beginner through an
alias hook given at validation time, "yes"/"是" for true, a JSON text for a list, True where a number belongs
refused); pydantic does the rest (the "12" → 12 conversions and every type check).
"""

from __future__ import annotations

import json
import types
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import json_repair
from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationInfo, create_model

EnumAliases = Callable[[str, list[str]], str | None]
"""Maps a value outside an enum to one of the allowed values (e.g. "初级" → "beginner"), or None."""

ALIASES_CONTEXT = "enum_aliases"  # the key of the alias hook in the validation context
_TRUE_WORDS = {"true", "yes", "y", "1", "on", "是", "对"}
_FALSE_WORDS = {"false", "no", "n", "0", "off", "否", "不"}
_CONFIG = ConfigDict(extra="forbid", coerce_numbers_to_str=True)
FIELD_CONFIG = ConfigDict(coerce_numbers_to_str=True)  # the same rules for one parameter checked alone


def arguments_model(name: str, parameters: Mapping[str, tuple[Any, Any]]) -> type[BaseModel]:
    """The model of a tool's arguments; `parameters` maps each name to (annotation, default or ...)."""
    fields: dict[str, Any] = {
        parameter: (Annotated[annotation, BeforeValidator(_lenient(annotation))], default)
        for parameter, (annotation, default) in parameters.items()
    }
    return create_model(f"{name}_arguments", __config__=_CONFIG, **fields)


def plain_schema(model: type[BaseModel], descriptions: Mapping[str, str]) -> dict[str, Any]:
    """The model's JSON schema in the plain form tool schemas use: no titles, optional types written as the
    type itself, a default only when there is one, each parameter's description from the docstring."""
    raw = model.model_json_schema()
    properties: dict[str, Any] = {}
    for name, prop in raw.get("properties", {}).items():
        plain = _plain(prop)
        if prop.get("default") is not None:
            plain["default"] = prop["default"]
        if name in descriptions:
            plain["description"] = descriptions[name]
        properties[name] = plain
    return {
        "type": "object",
        "properties": properties,
        "required": list(raw.get("required", [])),
        "additionalProperties": False,
    }


def _plain(prop: dict[str, Any]) -> dict[str, Any]:
    options = [option for option in prop.get("anyOf", []) if option.get("type") != "null"]
    if "anyOf" in prop and len(options) == 1:
        prop = options[0]
    elif "anyOf" in prop:
        return {"anyOf": [_plain(option) for option in options]}
    plain = {key: value for key, value in prop.items() if key not in ("title", "default", "additionalProperties")}
    if "items" in plain:
        plain["items"] = _plain(plain["items"])
    return plain


def _lenient(annotation: Any) -> Callable[[Any, ValidationInfo], Any]:
    def loosen(value: Any, info: ValidationInfo) -> Any:
        aliases = (info.context or {}).get(ALIASES_CONTEXT)
        return _loosen(value, annotation, aliases)

    return loosen


def _loosen(value: Any, annotation: Any, aliases: EnumAliases | None) -> Any:
    """`value` in the form pydantic can check against `annotation`, where a model's way of writing it is clear."""
    origin, arguments = get_origin(annotation), get_args(annotation)
    if origin in (Union, types.UnionType):
        options = [option for option in arguments if option is not type(None)]
        return _loosen(value, options[0], aliases) if len(options) == 1 else value
    if origin is Literal:
        return _enum_value(value, list(arguments), aliases)
    if annotation is bool and isinstance(value, str):
        word = value.strip().lower()
        return True if word in _TRUE_WORDS else False if word in _FALSE_WORDS else value
    if annotation in (int, float) and isinstance(value, bool):
        raise ValueError("a number, not a boolean")
    if annotation is str and isinstance(value, bool):
        return "true" if value else "false"
    if origin in (list, tuple, set) or annotation in (list, tuple, set):
        value = _load(value) if isinstance(value, str) and value.strip().startswith("[") else value
        item = arguments[0] if arguments else Any
        return [_loosen(element, item, aliases) for element in value] if isinstance(value, list | tuple) else value
    if origin is dict or annotation is dict:
        return _load(value) if isinstance(value, str) and value.strip().startswith("{") else value
    return value


def _enum_value(value: Any, allowed: list[Any], aliases: EnumAliases | None) -> Any:
    if value in allowed or not isinstance(value, str):
        return value
    folded = value.strip().lower()
    for option in allowed:
        if isinstance(option, str) and option.lower() == folded:
            return option
    alias = aliases(value, [str(option) for option in allowed]) if aliases else None
    return alias if alias in allowed else value


def _load(text: str) -> Any:
    """A JSON text as Python (repaired if it must be), or the text itself when it is not JSON."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        pass
    repaired = repair_json(text)
    return text if repaired in ("", None) else repaired


def repair_json(text: str) -> Any:
    """json_repair's reading of a broken JSON text, or None."""
    try:
        return json_repair.loads(text)
    except Exception:  # json_repair is lenient by design; a crash inside it must not end the run
        return None
