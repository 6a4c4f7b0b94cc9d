"""Turning what a model wrote into the arguments a tool's JSON schema expects.

Schemas are the ones `studyplan.core.tools.tool_from_function` builds: {"type": "object", "properties": {...},
"required": [...], "additionalProperties": false}, properties in signature order. The steps are:

1. `parse_json_arguments` (native tool calls) or `bind_arguments` (text protocol: positional values) give a
   dict of values;
2. `coerce_arguments` converts values to the schema's types and normalizes enum values (初级 → beginner
   through an alias hook), reporting what cannot be converted;
3. `validate_arguments` reports missing, unknown, wrongly typed and out-of-enum values.

Problems are short sentences meant for the model, each naming the field and the expected parameters:

    >>> schema = {"type": "object", "properties": {"topic": {"type": "string"}}, "required": ["topic"]}
    >>> validate_arguments(schema, {})
    ["missing required argument 'topic'; expected (topic: string)"]

Nothing here raises on bad input: every problem is returned, so the loop can hand it back as an observation.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import json_repair

__all__ = [
    "EXTRA_POSITIONAL",
    "EnumAliases",
    "bind_arguments",
    "coerce_arguments",
    "describe_parameters",
    "parse_json_arguments",
    "validate_arguments",
]

EnumAliases = Callable[[str, list[str]], str | None]
"""Maps a value outside an enum to one of the allowed values (e.g. "初级" → "beginner"), or None."""

EXTRA_POSITIONAL = "*args"
"""Key under which `bind_arguments` keeps positional values that fit no parameter (never a real name)."""

_TRUE_WORDS = {"true", "yes", "y", "1", "on", "是", "对"}
_FALSE_WORDS = {"false", "no", "n", "0", "off", "否", "不"}
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_FENCED = re.compile(r"^```[A-Za-z_]*[ \t]*\n?(.*?)\n?[ \t]*(?:```[ \t]*)?$", re.DOTALL)


def describe_parameters(schema: dict[str, Any]) -> str:
    """The parameter list as a model should read it.

    >>> describe_parameters({"properties": {"topic": {"type": "string"},
    ...     "level": {"type": "string", "enum": ["beginner", "advanced"]}}, "required": ["topic"]})
    '(topic: string, level: one of beginner|advanced = optional)'
    """
    required = set(schema.get("required", []))
    parts = []
    for name, prop in _properties(schema).items():
        text = f"{name}: {_type_text(prop)}"
        if name not in required and "default" in prop:
            text += f" = {json.dumps(prop['default'], ensure_ascii=False)}"
        elif name not in required:
            text += " = optional"
        parts.append(text)
    return "(" + ", ".join(parts) + ")"


def bind_arguments(
    parameters_schema: dict[str, Any], args: list[Any], kwargs: dict[str, Any]
) -> dict[str, Any]:
    """Map positional values onto the schema's parameters, in order, next to the keyword values.

    Keyword names are matched exactly, else ignoring case and `-`/`_`/spaces (`Topic` → topic). Positional
    values fill the parameters not given by keyword, in order (so `tool("x", level="y")` and
    `tool(level="y", "x")` agree). Values beyond the last parameter are kept under EXTRA_POSITIONAL for
    `validate_arguments` to report — except for a tool without parameters, where a positional text is a
    description the model added (`get_current_date (no input)`) and is ignored.

    >>> schema = {"properties": {"topic": {}, "level": {}}}
    >>> bind_arguments(schema, ["机器学习", "初级"], {})
    {'topic': '机器学习', 'level': '初级'}
    >>> bind_arguments(schema, ["python"], {"Level": "beginner"})
    {'level': 'beginner', 'topic': 'python'}
    """
    names = list(_properties(parameters_schema))
    values: dict[str, Any] = {}
    for key, value in kwargs.items():
        values[_match_name(key, names)] = value
    if not names:
        return values
    free = [name for name in names if name not in values]
    for name, value in zip(free, args, strict=False):
        values[name] = value
    if len(args) > len(free):
        values[EXTRA_POSITIONAL] = list(args[len(free) :])
    return values


def coerce_arguments(
    schema: dict[str, Any], values: dict[str, Any], enum_aliases: EnumAliases | None = None
) -> tuple[dict[str, Any], list[str]]:
    """Convert values to the schema's types; returns (converted values, problems).

    "3" → 3 for integers, "true" → True for booleans, 3 → "3" for strings, a JSON text → list or object,
    and enum values matched ignoring case, then through `enum_aliases`. A value that cannot be converted is
    kept as given and reported. A None for a parameter is dropped (the model means "not given").
    Unknown names are kept untouched for `validate_arguments`.

    >>> schema = {"properties": {"weeks": {"type": "integer"}, "level": {"enum": ["beginner", "advanced"]}}}
    >>> coerce_arguments(schema, {"weeks": "12", "level": "Beginner"})
    ({'weeks': 12, 'level': 'beginner'}, [])
    """
    properties = _properties(schema)
    converted: dict[str, Any] = {}
    problems: list[str] = []
    for name, value in values.items():
        prop = properties.get(name)
        if value is None and prop is not None:
            continue
        if prop is None:
            converted[name] = value
            continue
        ok, result = _coerce(value, prop, enum_aliases)
        converted[name] = result if ok else value
        if not ok:
            problems.append(f"{_wrong_value(name, value, prop)}; expected {describe_parameters(schema)}")
    return converted, problems


def validate_arguments(
    schema: dict[str, Any], values: dict[str, Any], tool_name: str | None = None
) -> list[str]:
    """Problems with `values` against `schema`: missing required, unknown, wrong type, outside an enum.

    Each problem is one sentence naming the field and what the tool expects. `tool_name`, when given, is
    named in that description ("search_courses expects (...)").

    >>> schema = {"properties": {"topic": {"type": "string"}}, "required": ["topic"],
    ...           "additionalProperties": False}
    >>> validate_arguments(schema, {"topic": "sql", "lang": "en"}, tool_name="search_courses")
    ["unknown argument 'lang'; search_courses expects (topic: string)"]
    """
    properties = _properties(schema)
    expected = f"{tool_name} expects" if tool_name else "expected"
    signature = f"{expected} {describe_parameters(schema)}"
    problems: list[str] = []
    for name in schema.get("required", []):
        if values.get(name) is None:
            problems.append(f"missing required argument '{name}'; {signature}")
    for name, value in values.items():
        if name == EXTRA_POSITIONAL:
            problems.append(f"{len(value)} positional value(s) too many ({_short(value)}); {signature}")
        elif name not in properties:
            if schema.get("additionalProperties", True) is False:
                problems.append(f"unknown argument '{name}'; {signature}")
        elif value is not None and not _matches(value, properties[name]):
            problems.append(f"{_wrong_value(name, value, properties[name])}; {signature}")
    return problems


def parse_json_arguments(raw: str) -> tuple[dict[str, Any] | None, str | None]:
    """A native tool call's arguments text as a dict: (arguments, None) or (None, error for the model).

    Strict JSON first. Then json_repair, but only when its repair is unambiguous: the result is a non-empty
    object (a trailing comma, single quotes, a code fence, a comment). Blank text means no arguments (some
    servers send "" for a tool without parameters).

    >>> parse_json_arguments('{"topic": "python",}')
    ({'topic': 'python'}, None)
    >>> parse_json_arguments("topic is python")[0] is None
    True
    """
    text = (raw or "").strip()
    if not text:
        return {}, None
    fenced = _FENCED.match(text) if text.startswith("```") else None
    body = fenced.group(1).strip() if fenced else text
    try:
        value = json.loads(body)
    except (ValueError, RecursionError) as exc:
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else type(exc).__name__
        repaired = _repair(body)
        if isinstance(repaired, dict) and repaired:
            return repaired, None
        return None, f"not valid JSON ({reason}); send the arguments as one JSON object"
    if isinstance(value, str) and value.strip().startswith("{"):  # double-encoded: "{\"topic\": ...}"
        return parse_json_arguments(value)
    if not isinstance(value, dict):
        return None, f"expected a JSON object with named arguments, got a {type(value).__name__}"
    return value, None


# --- helpers ---


def _properties(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return schema.get("properties", {}) or {}


def _match_name(key: str, names: list[str]) -> str:
    if key in names:
        return key
    folded = re.sub(r"[\s_-]", "", key).lower()
    return next((name for name in names if re.sub(r"[\s_-]", "", name).lower() == folded), key)


def _type_text(prop: dict[str, Any]) -> str:
    if "enum" in prop:
        return "one of " + "|".join(str(value) for value in prop["enum"])
    if "anyOf" in prop:
        return " or ".join(_type_text(option) for option in prop["anyOf"])
    kind = prop.get("type", "any")
    if kind == "array":
        return f"list of {_type_text(prop.get('items', {}))}"
    return str(kind)


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _wrong_value(name: str, value: Any, prop: dict[str, Any]) -> str:
    if "enum" in prop:
        return f"argument '{name}' must be one of {'|'.join(map(str, prop['enum']))}, not {_short(value)}"
    return f"argument '{name}' must be {_article(_type_text(prop))}, not {_short(value)}"


def _article(type_text: str) -> str:
    if type_text.startswith("one of"):
        return type_text
    return ("an " if type_text[:1] in "aeiou" else "a ") + type_text


def _matches(value: Any, prop: dict[str, Any]) -> bool:
    """Whether a value already fits the property (used by validation, after coercion)."""
    if "anyOf" in prop:
        return any(_matches(value, option) for option in prop["anyOf"])
    if "enum" in prop and value not in prop["enum"]:
        return False
    kind = prop.get("type")
    checks: dict[str, Callable[[Any], bool]] = {
        "string": lambda v: isinstance(v, str),
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
        "boolean": lambda v: isinstance(v, bool),
        "object": lambda v: isinstance(v, dict),
        "array": lambda v: isinstance(v, list) and all(_matches(item, prop.get("items", {})) for item in v),
    }
    check = checks.get(kind) if isinstance(kind, str) else None
    return check(value) if check else True


def _coerce(value: Any, prop: dict[str, Any], enum_aliases: EnumAliases | None) -> tuple[bool, Any]:
    """(True, converted) or (False, None)."""
    if "anyOf" in prop:
        for option in prop["anyOf"]:
            ok, result = _coerce(value, option, enum_aliases)
            if ok:
                return True, result
        return False, None
    kind = prop.get("type")
    converters: dict[str, Callable[[Any], tuple[bool, Any]]] = {
        "string": _to_string,
        "integer": _to_integer,
        "number": _to_number,
        "boolean": _to_boolean,
        "array": lambda v: _to_array(v, prop.get("items", {}), enum_aliases),
        "object": _to_object,
    }
    converter = converters.get(kind) if isinstance(kind, str) else None
    ok, result = converter(value) if converter else (True, value)
    if ok and "enum" in prop:
        return _to_enum(result, prop["enum"], enum_aliases)
    return ok, result


def _to_string(value: Any) -> tuple[bool, Any]:
    if isinstance(value, str):
        return True, value
    if isinstance(value, bool):
        return True, "true" if value else "false"
    if isinstance(value, int | float):
        return True, str(value)
    return False, None


def _to_integer(value: Any) -> tuple[bool, Any]:
    if isinstance(value, bool):
        return False, None
    if isinstance(value, int):
        return True, value
    if isinstance(value, float) and value.is_integer():
        return True, int(value)
    if isinstance(value, str) and _NUMBER.fullmatch(value.strip()):
        number = float(value)
        return (True, int(number)) if number.is_integer() else (False, None)
    return False, None


def _to_number(value: Any) -> tuple[bool, Any]:
    if isinstance(value, bool):
        return False, None
    if isinstance(value, int | float):
        return True, value
    if isinstance(value, str) and _NUMBER.fullmatch(value.strip()):
        number = float(value)
        written_as_integer = number.is_integer() and not re.search(r"[.eE]", value)
        return True, int(number) if written_as_integer else number
    return False, None


def _to_boolean(value: Any) -> tuple[bool, Any]:
    if isinstance(value, bool):
        return True, value
    if isinstance(value, int) and value in (0, 1):
        return True, bool(value)
    word = str(value).strip().lower() if isinstance(value, str) else None
    if word in _TRUE_WORDS:
        return True, True
    if word in _FALSE_WORDS:
        return True, False
    return False, None


def _to_array(value: Any, items: dict[str, Any], enum_aliases: EnumAliases | None) -> tuple[bool, Any]:
    if isinstance(value, tuple):
        value = list(value)
    if isinstance(value, str) and value.strip().startswith("["):
        value = _load(value)
    if not isinstance(value, list):
        return False, None
    converted = []
    for item in value:
        ok, result = _coerce(item, items, enum_aliases)
        if not ok:
            return False, None
        converted.append(result)
    return True, converted


def _to_object(value: Any) -> tuple[bool, Any]:
    if isinstance(value, str) and value.strip().startswith("{"):
        value = _load(value)
    return (True, value) if isinstance(value, dict) else (False, None)


def _to_enum(value: Any, allowed: list[Any], enum_aliases: EnumAliases | None) -> tuple[bool, Any]:
    if value in allowed:
        return True, value
    if isinstance(value, str):
        folded = value.strip().lower()
        for option in allowed:
            if isinstance(option, str) and option.lower() == folded:
                return True, option
        alias = enum_aliases(value, [str(option) for option in allowed]) if enum_aliases else None
        if alias in allowed:
            return True, alias
    return False, None


def _load(text: str) -> Any:
    """A JSON text as Python (repaired if it must be), or the text itself when it is not JSON."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        pass
    repaired = _repair(text)
    return text if repaired in ("", None) else repaired


def _repair(text: str) -> Any:
    try:
        return json_repair.loads(text)
    except Exception:  # json_repair is lenient by design; a crash inside it must not end the run
        return None
