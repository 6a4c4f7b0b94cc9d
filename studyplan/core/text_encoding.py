"""The text ReAct protocol of the second article: Thought / Action / Observation lines, no `tools` parameter.

The system prompt carries the tool list and the rules (and the task's few-shot examples) in every round; the model's
reply is parsed by the tolerant `studyplan.core.react_parser.parse_react`, and the observation goes back as a user
message starting with "Observation:". Stop sequences end the reply where an invented observation would begin.
"""

from __future__ import annotations

import json
from typing import Any

from studyplan.core.arguments import describe_parameters
from studyplan.core.encoding import Decision, PlannedCall, Request
from studyplan.core.model import ModelReply
from studyplan.core.prompts import load_text
from studyplan.core.react_parser import parse_react
from studyplan.core.tools import Tool, ToolRegistry

STOP_SEQUENCES = ["\nObservation:", "Observation:"]


class TextProtocol:
    name = "text"
    fallback_to_text = False

    def system_prompt_extra(self, registry: ToolRegistry) -> str:
        tools = "\n".join(describe_tool(tool) for tool in registry.tools.values())
        # The task's few-shot examples, written in this protocol, follow (AgentTask.examples).
        return "\n\n" + load_text("text_protocol.md").replace("{tools}", tools)

    def request(self, messages: list[dict[str, Any]], registry: ToolRegistry) -> Request:
        return Request(messages, None, STOP_SEQUENCES)

    def decode(self, reply: ModelReply, registry: ToolRegistry, step: int) -> Decision:
        parsed = parse_react(reply.content or "", registry.names())
        notes = [f"Note: {note}." for note in parsed.dropped]
        if parsed.action is not None:
            action = parsed.action
            call = PlannedCall(
                f"text_{step}", action.name, args=list(action.args), kwargs=dict(action.kwargs)
            )
            return Decision(thought=parsed.thought, calls=[call], notes=notes)
        if parsed.final_answer is not None:
            return Decision(thought=parsed.thought, final=parsed.final_answer, notes=notes)
        return Decision(
            thought=parsed.thought, format_error=parsed.error or "no Action or Final Answer found"
        )

    def assistant_message(self, reply: ModelReply, decision: Decision) -> dict[str, Any]:
        """The reply as the model should remember it: its own words up to the action, nothing invented after."""
        lines = [f"Thought: {decision.thought}"] if decision.thought else []
        if decision.calls:
            call = decision.calls[0]
            lines.append(_action_line(call))
        elif decision.final is not None:
            lines.append(f"Final Answer: {decision.final}")
        else:
            lines.append((reply.content or "").strip()[:2000])
        return {"role": "assistant", "content": "\n".join(lines)}

    def observation_messages(self, results: list[tuple[PlannedCall, str]]) -> list[dict[str, Any]]:
        return [{"role": "user", "content": f"Observation: {text}"} for _call, text in results]

    def reminder_message(self, text: str) -> dict[str, Any]:
        return {"role": "user", "content": text}

    def adopt(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Re-encode a native function-calling history as text turns (used when `auto` switches mid-run)."""
        adopted: list[dict[str, Any]] = []
        for message in messages:
            if message["role"] == "assistant" and message.get("tool_calls"):
                lines = [f"Thought: {message['content']}"] if message.get("content") else []
                for tool_call in message["tool_calls"]:
                    function = tool_call["function"]
                    lines += [f"Action: {function['name']}", f"Action Input: {function['arguments']}"]
                adopted.append({"role": "assistant", "content": "\n".join(lines)})
            elif message["role"] == "tool":
                adopted.append({"role": "user", "content": f"Observation: {message['content']}"})
            else:
                adopted.append(dict(message))
        return adopted


def describe_tool(tool: Tool) -> str:
    """One tool for the prompt: `name(param: type, ...)`, what it does, and what each parameter means."""
    details = "".join(
        f"\n    {name}: {schema['description']}"
        for name, schema in tool.parameters.get("properties", {}).items()
        if schema.get("description")
    )
    return f"- {tool.name}{describe_parameters(tool.parameters)}: {tool.description}{details}"


def _action_line(call: PlannedCall) -> str:
    """The call in the protocol's own syntax, positional values kept as the model wrote them."""
    if call.args:
        values = [json.dumps(value, ensure_ascii=False) for value in call.args]
        values += [f"{name}={json.dumps(value, ensure_ascii=False)}" for name, value in call.kwargs.items()]
        return f"Action: {call.name}({', '.join(values)})"
    return f"Action: {call.name}\nAction Input: {json.dumps(call.kwargs, ensure_ascii=False)}"
