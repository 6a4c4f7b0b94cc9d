"""Tools as plain functions: the JSON schema is derived from the signature and the docstring.

A tool is an ordinary function with type hints and a Google-style docstring. Its first paragraph is the
description the model sees; the `Args:` section describes each parameter. A parameter annotated with
`ToolContext` is filled in by the registry and never shown to the model.
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

from studyplan.errors import ToolError

if typing.TYPE_CHECKING:
    from studyplan.domain.catalog import Catalog


@dataclass
class ToolContext:
    """What tools may touch: today's date, the catalog, the plans folder, and what was saved so far."""

    today: date
    catalog: Catalog
    plans_dir: Path
    saved_plans: list[Path] = field(default_factory=list)
    # Where revise (issue 5) lets the agent read a plan from; None means read_plan only sees plans_dir.
    readable_plan: Path | None = None
    goal: str = ""  # the learner's goal, for tools that check a model's choices against it


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: dict[str, Any]  # JSON schema of the arguments object
    function: Callable[..., str]
    context_param: str | None = None

    def openai_schema(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }

    def parameter_names(self) -> list[str]:
        return list(self.parameters.get("properties", {}))


_ARGS_HEADER = re.compile(r"^\s*(Args|Arguments|Parameters):\s*$")
_SECTION_HEADER = re.compile(r"^\s*(Returns|Raises|Examples?|Notes?):\s*$")
_ARG_LINE = re.compile(r"^\s*(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into (description, {parameter: description})."""
    lines = inspect.cleandoc(doc or "").splitlines()
    description: list[str] = []
    params: dict[str, str] = {}
    section = "description"
    current: str | None = None
    for line in lines:
        if _ARGS_HEADER.match(line):
            section, current = "args", None
            continue
        if _SECTION_HEADER.match(line):
            section, current = "other", None
            continue
        if section == "description":
            description.append(line)
        elif section == "args":
            match = _ARG_LINE.match(line)
            indented = line.startswith((" ", "\t")) and line.strip()
            if match and not (current and line.startswith("        ")):
                current = match.group(1)
                params[current] = match.group(2).strip()
            elif current and indented:
                params[current] = f"{params[current]} {line.strip()}".strip()
    text = " ".join(" ".join(description).split())
    return text, params


def _json_type(annotation: Any) -> dict[str, Any]:
    origin = get_origin(annotation)
    if origin is Literal:
        values = list(get_args(annotation))
        kind = "string" if all(isinstance(v, str) for v in values) else "integer"
        return {"type": kind, "enum": values}
    if origin in (Union, types.UnionType):
        options = [a for a in get_args(annotation) if a is not type(None)]
        if len(options) == 1:
            return _json_type(options[0])
        return {"anyOf": [_json_type(a) for a in options]}
    if origin in (list, tuple, set):
        (item,) = get_args(annotation)[:1] or (str,)
        return {"type": "array", "items": _json_type(item)}
    simple = {str: "string", int: "integer", float: "number", bool: "boolean", dict: "object"}
    if annotation in simple:
        return {"type": simple[annotation]}
    raise TypeError(f"unsupported tool parameter type: {annotation!r}")


def tool_from_function(function: Callable[..., str], name: str | None = None) -> Tool:
    """Build a Tool whose schema comes from `function`'s signature and docstring."""
    hints = typing.get_type_hints(function)
    description, param_docs = parse_docstring(function.__doc__ or "")
    properties: dict[str, Any] = {}
    required: list[str] = []
    context_param = None
    for param in inspect.signature(function).parameters.values():
        annotation = hints.get(param.name, str)
        if annotation is ToolContext:
            context_param = param.name
            continue
        schema = _json_type(annotation)
        if param.name in param_docs:
            schema["description"] = param_docs[param.name]
        if param.default is inspect.Parameter.empty:
            required.append(param.name)
        elif param.default is not None:
            schema["default"] = param.default
        properties[param.name] = schema
    parameters = {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }
    return Tool(name or function.__name__, description, parameters, function, context_param)


class ToolRegistry:
    """The only tools the model may call. Unknown names and failures come back as text, never as a crash."""

    def __init__(self, tools: list[Tool], context: ToolContext) -> None:
        self.tools = {tool.name: tool for tool in tools}
        self.context = context

    def __contains__(self, name: str) -> bool:
        return name in self.tools

    def names(self) -> list[str]:
        return list(self.tools)

    def schemas(self) -> list[dict[str, Any]]:
        return [tool.openai_schema() for tool in self.tools.values()]

    def call(self, name: str, arguments: dict[str, Any]) -> str:
        """Run a tool. Raises ToolError with a message meant for the model."""
        tool = self.tools.get(name)
        if tool is None:
            raise ToolError(f"there is no tool named {name!r}; the tools are: {', '.join(self.tools)}")
        kwargs = dict(arguments)
        if tool.context_param:
            kwargs[tool.context_param] = self.context
        return tool.function(**kwargs)
