"""Tools as plain functions: the JSON schema is derived from the signature and the docstring.

A tool is an ordinary function with type hints and a docstring (Google, NumPy or reST style, read by
docstring_parser). Its description is what the model sees; the parameter section describes each parameter.
The signature becomes a pydantic model (studyplan.core.schema), the one source of the JSON schema and of the
argument checks (studyplan.core.arguments). A parameter annotated with a
`RunContext` subclass is filled in by the registry and never shown to the model. A tool returns a
`ToolResult` (text for the model, data for code) or raises ToolError; the registry records every call in its
`Journal`.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import docstring_parser
from pydantic import BaseModel

from studyplan.core.journal import Failure, Journal, JournalEntry, ToolResult
from studyplan.core.schema import arguments_model, plain_schema
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
    arguments_model: type[BaseModel] | None = None  # the source of `parameters` and of the argument checks

    def openai_schema(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }

    def parameter_names(self) -> list[str]:
        return list(self.parameters.get("properties", {}))


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Split a docstring (Google, NumPy or reST style) into (description, {parameter: description}), each
    on one line."""
    parsed = docstring_parser.parse(doc or "")
    description = " ".join(part for part in (parsed.short_description, parsed.long_description) if part)
    params = {param.arg_name: " ".join((param.description or "").split()) for param in parsed.params}
    return " ".join(description.split()), params


@functools.lru_cache(maxsize=256)  # a registry per run (a batch builds thousands): build each model once
def tool_from_function(function: Callable[..., ToolResult | str], name: str | None = None) -> Tool:
    """Build a Tool whose arguments model (and so its JSON schema) comes from `function`'s signature and
    docstring."""
    tool_name = name or function.__name__
    hints = typing.get_type_hints(function)
    description, param_docs = parse_docstring(function.__doc__ or "")
    parameters: dict[str, tuple[Any, Any]] = {}
    context_param = None
    for param in inspect.signature(function).parameters.values():
        annotation = hints.get(param.name, str)
        if isinstance(annotation, type) and issubclass(annotation, RunContext):
            context_param = param.name
            continue
        default = ... if param.default is inspect.Parameter.empty else param.default
        parameters[param.name] = (annotation, default)
    model = arguments_model(tool_name, parameters)
    schema = plain_schema(model, param_docs)
    return Tool(tool_name, description, schema, function, context_param, model)


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
