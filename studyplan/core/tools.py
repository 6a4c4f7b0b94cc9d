"""Tools as plain functions: the JSON schema is derived from the signature and the docstring.

A tool is an ordinary function with type hints and a Google-style docstring. Its first paragraph is the
description the model sees; the `Args:` section describes each parameter. A parameter annotated with a
`RunContext` subclass is filled in by the registry and never shown to the model. A tool returns a
`ToolResult` (text for the model, data for code) or raises ToolError; the registry records every call in its
`Journal`.
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Union, get_args, get_origin

from studyplan.core.journal import Failure, Journal, JournalEntry, ToolResult
from studyplan.errors import StudyplanError, ToolError

__all__ = ["RunContext", "Tool", "ToolRegistry", "ToolResult", "parse_docstring", "tool_from_function"]


class RunContext:
    """Base of the object a registry hands its tools (what they may touch: a date, a folder...).

    A tool parameter annotated with a subclass is filled in by the registry and never shown to the model; the
    core knows nothing else about it.
    """


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: dict[str, Any]  # JSON schema of the arguments object
    function: Callable[..., ToolResult | str]
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


def tool_from_function(function: Callable[..., ToolResult | str], name: str | None = None) -> Tool:
    """Build a Tool whose schema comes from `function`'s signature and docstring."""
    hints = typing.get_type_hints(function)
    description, param_docs = parse_docstring(function.__doc__ or "")
    properties: dict[str, Any] = {}
    required: list[str] = []
    context_param = None
    for param in inspect.signature(function).parameters.values():
        annotation = hints.get(param.name, str)
        if isinstance(annotation, type) and issubclass(annotation, RunContext):
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
    """The only tools the model may call. Unknown names and failures come back as text, never as a crash.

    `context` is handed to every tool that asks for it; `journal` records what the tools did in this run.
    """

    def __init__(self, tools: list[Tool], context: RunContext | None = None) -> None:
        self.tools = {tool.name: tool for tool in tools}
        self.context = context
        self.journal = Journal()

    def __contains__(self, name: str) -> bool:
        return name in self.tools

    def names(self) -> list[str]:
        return list(self.tools)

    def schemas(self) -> list[dict[str, Any]]:
        return [tool.openai_schema() for tool in self.tools.values()]

    def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """Run a tool. Raises ToolError with a message meant for the model."""
        tool = self.tools.get(name)
        if tool is None:
            raise ToolError(f"there is no tool named {name!r}; the tools are: {', '.join(self.tools)}")
        kwargs = dict(arguments)
        if tool.context_param:
            kwargs[tool.context_param] = self.context
        result = tool.function(**kwargs)
        return result if isinstance(result, ToolResult) else ToolResult(result)

    def execute(self, step: int, call_id: str, name: str, arguments: dict[str, Any]) -> JournalEntry:
        """Run a checked call and record it: a refusal or a tool's bug becomes an "Error: ..." result."""
        failure: Failure
        try:
            return self.journal.record(JournalEntry(step, call_id, name, arguments, self.call(name, arguments)))
        except ToolError as exc:
            result, failure = ToolResult(f"Error: {exc}", exc.data), "refused"
        except StudyplanError:  # not the model's to fix (a full disk, unreadable progress data): the run ends
            raise
        except Exception as exc:  # a tool bug must not end the run: the model sees it and can go on
            result, failure = ToolResult(f"Error: tool {name} failed: {type(exc).__name__}: {exc}"), "crashed"
        return self.journal.record(JournalEntry(step, call_id, name, arguments, result, failure))
