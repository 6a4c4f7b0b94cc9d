"""Turning what a model wrote into the arguments of a tool, checked by the tool's pydantic model.

Tools are the ones `studyplan.core.tools.tool_from_function` builds: their `arguments_model` (studyplan.core.schema)
is the one source of both the JSON schema the model sees and these checks. The steps are:

1. `parse_json_arguments` (native tool calls) or `bind_arguments` (text protocol: positional values) give a
   dict of values;
2. `coerce_arguments` converts values through the model (初级 → beginner through an alias hook, "3" → 3,
   "yes" → true), reporting what cannot be converted;
3. `validate_arguments` reports missing, unknown, wrongly typed and out-of-enum values (pydantic, strict).

Problems are short sentences meant for the model, each naming the field and the expected parameters:

    >>> def search(topic: str) -> str:
    ...     return topic
    >>> validate_arguments(tool_from_function(search), {})
    ["missing required argument 'topic'; expected (topic: string)"]

Nothing here raises on bad input: every problem is returned, so the loop can hand it back as an observation.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Annotated, Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from studyplan.core.schema import ALIASES_CONTEXT, FIELD_CONFIG, EnumAliases, repair_json
from studyplan.core.tools import Tool, tool_from_function

__all__ = [
    "EXTRA_POSITIONAL",
    "EnumAliases",
    "bind_arguments",
    "coerce_arguments",
    "describe_parameters",
    "parse_json_arguments",
    "tool_from_function",
    "validate_arguments",
]

EXTRA_POSITIONAL = "*args"
"""Key under which `bind_arguments` keeps positional values that fit no parameter (never a real name)."""

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


def bind_arguments(tool: Tool, args: list[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
    """Map positional values onto the schema's parameters, in order, next to the keyword values.

    Keyword names are matched exactly, else ignoring case and `-`/`_`/spaces (`Topic` → topic). Positional
    values fill the parameters not given by keyword, in order (so `tool("x", level="y")` and
    `tool(level="y", "x")` agree). Values beyond the last parameter are kept under EXTRA_POSITIONAL for
    `validate_arguments` to report — except for a tool without parameters, where a positional text is a
    description the model added (`get_current_date (no input)`) and is ignored.

    >>> def search(topic: str, level: str | None = None) -> str:
    ...     return topic
    >>> bind_arguments(tool_from_function(search), ["机器学习", "初级"], {})
    {'topic': '机器学习', 'level': '初级'}
    >>> bind_arguments(tool_from_function(search), ["python"], {"Level": "beginner"})
    {'level': 'beginner', 'topic': 'python'}
    """
    names = list(_properties(tool.parameters))
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
    tool: Tool, values: dict[str, Any], enum_aliases: EnumAliases | None = None
) -> tuple[dict[str, Any], list[str]]:
    """Convert values through the tool's model; returns (converted values, problems).

    "3" → 3 for integers, "true" → True for booleans, 3 → "3" for strings, a JSON text → list or object,
    and enum values matched ignoring case, then through `enum_aliases`. A value that cannot be converted is
    kept as given and reported. A None for a parameter is dropped (the model means "not given").
    Unknown names are kept untouched for `validate_arguments`.

    >>> def calendar(weeks: int, start: str = "monday") -> str:
    ...     return start
    >>> coerce_arguments(tool_from_function(calendar), {"weeks": "12", "start": 20250303})
    ({'weeks': 12, 'start': '20250303'}, [])
    """
    properties = _properties(tool.parameters)
    adapters = _lenient_adapters(tool.arguments_model)
    converted: dict[str, Any] = {}
    problems: list[str] = []
    for name, value in values.items():
        prop = properties.get(name)
        if value is None and prop is not None:
            continue
        if prop is None or name not in adapters:
            converted[name] = value
            continue
        try:
            converted[name] = adapters[name].validate_python(value, context={ALIASES_CONTEXT: enum_aliases})
        except ValidationError:
            converted[name] = value
            problems.append(f"{_wrong_value(name, value, prop)}; expected {describe_parameters(tool.parameters)}")
    return converted, problems


def validate_arguments(tool: Tool, values: dict[str, Any], tool_name: str | None = None) -> list[str]:
    """Problems with `values` against the tool's model, strictly: missing required, unknown, wrong type,
    outside an enum.

    Each problem is one sentence naming the field and what the tool expects. `tool_name`, when given, is
    named in that description ("search_courses expects (...)").

    >>> def search_courses(topic: str) -> str:
    ...     return topic
    >>> validate_arguments(tool_from_function(search_courses), {"topic": "sql", "lang": "en"}, "search_courses")
    ["unknown argument 'lang'; search_courses expects (topic: string)"]
    """
    schema = tool.parameters
    properties = _properties(schema)
    adapters = _strict_adapters(tool.arguments_model)
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
        elif value is not None and name in adapters and not _fits(adapters[name], value):
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
        repaired = repair_json(body)
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


def _fits(adapter: TypeAdapter[Any], value: Any) -> bool:
    try:
        adapter.validate_python(value, strict=True)
    except ValidationError:
        return False
    return True


@cache
def _lenient_adapters(model: type[BaseModel] | None) -> dict[str, TypeAdapter[Any]]:
    """Per parameter, its type with the model's lenient first step (the model's own field validators)."""
    if model is None:
        return {}
    return {name: TypeAdapter(_annotated(info), config=FIELD_CONFIG) for name, info in model.model_fields.items()}


@cache
def _strict_adapters(model: type[BaseModel] | None) -> dict[str, TypeAdapter[Any]]:
    """Per parameter, its bare type: what a value must already be."""
    if model is None:
        return {}
    return {name: TypeAdapter(info.annotation or Any) for name, info in model.model_fields.items()}


def _annotated(info: Any) -> Any:
    return Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation
