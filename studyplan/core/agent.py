"""The ReAct loop as a library: Thought → Action → Observation, repeated until the task is done.

`Agent.run(goal)` is a generator of step events (studyplan.core.events). It knows nothing of the terminal: the
CLI renders the events, a trace writer records them, tests assert on them. Nor does it know what the task is:
the system prompt, the "done" rule, the reminders and the alias hook come from an `AgentTask`. Model failures
raise studyplan.errors.ModelError out of the generator; everything a tool does wrong becomes an observation.
"""

from __future__ import annotations

import json
import time
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from studyplan.core.arguments import bind_arguments, coerce_arguments, parse_json_arguments, validate_arguments
from studyplan.core.encoding import Decision, ModelProtocol, NativeToolsProtocol, PlannedCall
from studyplan.core.events import (
    Action,
    ContextFolded,
    Event,
    FinalAnswer,
    ModelCallFinished,
    ModelCallStarted,
    Notice,
    Observation,
    RunFinished,
    RunStarted,
    RunStatus,
    Thought,
    Usage,
)
from studyplan.core.journal import Failure, JournalEntry, ToolResult, call_key
from studyplan.core.memory import fold_history
from studyplan.core.model import ChatModel, ModelReply
from studyplan.core.task import AgentTask
from studyplan.core.tools import ToolRegistry
from studyplan.errors import ToolsNotSupported


@dataclass(frozen=True)
class AgentConfig:
    max_steps: int = 8
    max_observation_chars: int = 4000
    context_budget_tokens: int = 12000  # estimated prompt size above which old steps are folded
    keep_recent_steps: int = 2
    elide_argument_chars: int = 1500  # longer string arguments of a successful call are stubbed in the history
    repeat_limit: int = 2  # consecutive steps made only of repeated calls before the run is stopped
    # A reply's text and a call's arguments beyond these are never resent whole: the text is cut with a note,
    # the call refused and its arguments left out of the history; events (the trace) keep a bounded copy.
    max_reply_chars: int = 200_000
    max_argument_chars: int = 200_000


@dataclass(frozen=True)
class _Outcome:
    arguments: dict[str, Any]
    text: str
    ok: bool
    repeated: bool
    too_long: bool = False


@dataclass
class _RunState:
    """What one run accumulates: the conversation and the counters the guard rails read."""

    messages: list[dict[str, Any]]
    usage: Usage = field(default_factory=Usage)
    repeat_streak: int = 0
    unsaved_answers: int = 0
    last_prompt_tokens: int | None = None
    final_text: str | None = None
    status: RunStatus = "step_limit"
    detail: str = ""


class Agent:
    def __init__(
        self,
        model: ChatModel,
        registry: ToolRegistry,
        task: AgentTask,
        config: AgentConfig | None = None,
        protocol: ModelProtocol | None = None,
    ) -> None:
        self.model = model
        self.registry = registry
        self.task = task
        self.config = config or AgentConfig()
        self.protocol = protocol or NativeToolsProtocol()
        self._goal = ""  # the goal of the run under way

    def system_prompt(self, goal: str) -> str:
        """The task's instructions, the protocol's own part, then the task's examples for that protocol."""
        examples = self.task.examples(goal, self.protocol.name) if self.task.examples else ""
        prompt = self.task.instructions(goal, self.config.max_steps) + self.protocol.system_prompt_extra(self.registry)
        return prompt + (f"\n\n{examples}" if examples else "")

    def run(self, goal: str) -> Iterator[Event]:
        """Run the loop for one goal, yielding every step. Model failures raise ModelError."""
        started = time.perf_counter()
        yield RunStarted(
            goal, self.model.name, self.protocol.name, self.model.offline, getattr(self.model, "endpoint", "")
        )
        self.registry.journal.clear()
        self._goal = goal
        state = _RunState([{"role": "system", "content": self.system_prompt(goal)}, {"role": "user", "content": goal}])
        step = 0
        for step in range(1, self.config.max_steps + 2):
            last_chance = step > self.config.max_steps
            if last_chance:
                limit = f"Reached the step limit ({self.config.max_steps}); asking for a last answer."
                yield Notice(limit, "warning", "step_limit")
                state.messages.append(self.protocol.reminder_message(self.task.reminder("step_limit")))
            yield from self._fold_if_over_budget(step, state)
            reply = yield from self._call_model(step, goal, state)
            decision = self.protocol.decode(reply, self.registry, step)
            if decision.thought:
                yield Thought(step, decision.thought)
            if not decision.calls:  # a turn with calls is appended once they ran (see _run_calls)
                state.messages.append(self.protocol.assistant_message(reply, decision))

            if decision.format_error:
                yield Notice(
                    f"Step {step}: the reply could not be parsed: {decision.format_error}", "warning", "unparsed_reply"
                )
                reminder = self.task.reminder("format", error=decision.format_error)
                state.messages.append(self.protocol.reminder_message(reminder))
            elif decision.calls:
                yield from self._run_calls(step, reply, decision, state)
                if state.status == "repeated_calls" or last_chance:
                    break
            elif (yield from self._answer(step, decision.final or "", state, last_chance)):
                break

        saved = self.task.outputs(self.registry.journal)
        yield RunFinished(
            status=state.status,
            steps=step,
            seconds=time.perf_counter() - started,
            usage=state.usage,
            plan_path=saved[-1] if saved else None,
            summary=state.final_text or "",
            plans_saved=saved,
            detail=state.detail,
        )

    def _fold_if_over_budget(self, step: int, state: _RunState) -> Iterator[Event]:
        fold = fold_history(
            state.messages, self.config.context_budget_tokens, self.config.keep_recent_steps, state.last_prompt_tokens
        )
        if fold is not None:
            state.messages = fold.messages
            yield ContextFolded(step, fold.folded_messages, fold.tokens_before, fold.tokens_after, fold.summary)

    def _call_model(self, step: int, goal: str, state: _RunState) -> Generator[Event, None, ModelReply]:
        """One model call; in `auto` mode an endpoint that rejects tools switches the run to the text protocol."""
        request = self.protocol.request(state.messages, self.registry)
        yield ModelCallStarted(step, _snapshot(request.messages))
        started = time.perf_counter()
        forced = self._forced_tool(step, request.tools)
        try:
            if forced:
                reply = self.model.complete(request.messages, request.tools, request.stop, tool_choice=forced)
            else:
                reply = self.model.complete(request.messages, request.tools, request.stop)
        except ToolsNotSupported:
            if not self.protocol.fallback_to_text:
                raise
            state.messages = self._switch_to_text(goal, state.messages)
            yield Notice(
                "The endpoint does not accept tools: using the text protocol for the rest of the run.",
                code="switched_to_text",
            )
            request = self.protocol.request(state.messages, self.registry)
            yield ModelCallStarted(step, _snapshot(request.messages))
            started = time.perf_counter()
            reply = self.model.complete(request.messages, request.tools, request.stop)
        state.usage = state.usage + (reply.usage or Usage())
        state.last_prompt_tokens = reply.usage.prompt_tokens if reply.usage and reply.usage.prompt_tokens else None
        limit = self.config.max_reply_chars
        yield ModelCallFinished(step, time.perf_counter() - started, reply.usage, _bounded(reply.to_message(), limit))
        if reply.content is not None and len(reply.content) > limit:
            cut = len(reply.content) - limit
            note = f"Step {step}: the reply was {len(reply.content):,} characters; its last {cut:,} are left out."
            yield Notice(note, "warning", "reply_cut")
            reply = replace(reply, content=reply.content[:limit] + f"\n[... {cut} more characters left out ...]")
        return reply

    def _forced_tool(self, step: int, tools: list[dict[str, Any]] | None) -> str | None:
        """The tool the first request asks the server to call (the task's first step), with native tools only."""
        first = self.task.first_tool
        if step != 1 or not tools or self.model.offline or first is None or first not in self.registry:
            return None
        return first

    def _run_calls(self, step: int, reply: ModelReply, decision: Decision, state: _RunState) -> Iterator[Event]:
        """Run every call of one turn (parallel calls included) and answer each with an observation."""
        outcomes = []
        for call in decision.calls:
            outcome = yield from self._execute(step, call)
            outcomes.append(outcome)
        # Bulky arguments of calls that succeeded (the plan's Markdown once save_plan wrote it) are not
        # needed again: the history keeps a stub, the trace keeps the full text. Arguments over the size
        # limit are never resent at all.
        bulky = {
            call.id: _stub_bulky(outcome.arguments, call.name, self.config.elide_argument_chars)
            for call, outcome in zip(decision.calls, outcomes, strict=True)
            if outcome.ok
        }
        bulky.update({call.id: {} for call, outcome in zip(decision.calls, outcomes, strict=True) if outcome.too_long})
        reply, decision = _with_arguments(reply, decision, {k: v for k, v in bulky.items() if v is not None})
        state.messages.append(self.protocol.assistant_message(reply, decision))
        results = [(call, outcome.text) for call, outcome in zip(decision.calls, outcomes, strict=True)]
        if decision.notes:  # e.g. extra actions dropped: the model learns it with the observation
            last_call, last_text = results[-1]
            results[-1] = (last_call, "\n".join([last_text, *decision.notes]))
        state.messages.extend(self.protocol.observation_messages(results))
        repeated_only = all(outcome.repeated for outcome in outcomes)
        state.repeat_streak = state.repeat_streak + 1 if repeated_only else 0
        if state.repeat_streak >= self.config.repeat_limit:
            labels = [_call_label(call.name, o.arguments) for call, o in zip(decision.calls, outcomes, strict=True)]
            repeated = ", ".join(dict.fromkeys(labels))
            state.detail = f"the model repeated {repeated}"
            stopping = f"The model repeated the same call: {repeated}; stopping the run."
            yield Notice(stopping, "warning", "repeated_calls")
            state.status = "repeated_calls"

    def _answer(self, step: int, text: str, state: _RunState, last_chance: bool) -> Generator[Event, None, bool]:
        """A reply without tool calls. Returns True when it ends the run."""
        state.final_text = text
        done = self.task.is_done(self.registry.journal)
        if done or last_chance or state.unsaved_answers >= 1:
            yield FinalAnswer(step, text)
            if done and not last_chance:
                state.status = "saved"
            elif not last_chance:
                # A second answer without a plan: the model is explaining why it cannot plan (e.g. no course).
                state.status = "no_plan"
            return True
        state.unsaved_answers += 1
        yield Notice(
            f"Step {step}: the model answered before the task was done; reminding it.", "warning", "answer_not_done"
        )
        missing = self.task.missing_note(self._goal, self.registry.journal)
        reminder = f"{self.task.reminder('not_done')} {missing}".strip()
        state.messages.append(self.protocol.reminder_message(reminder))
        return False

    def _switch_to_text(self, goal: str, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        from studyplan.core.text_encoding import TextProtocol

        text_protocol = TextProtocol()
        self.protocol = text_protocol
        adopted = text_protocol.adopt(messages)
        adopted[0] = {"role": "system", "content": self.system_prompt(goal)}
        return adopted

    def _execute(self, step: int, call: PlannedCall) -> Generator[Event, None, _Outcome]:
        """Check and run one call, yielding its Action and Observation; every call goes into the journal.

        An identical call made before (one that succeeded or failed) is answered from memory, as a repeat."""
        size = len(call.raw_arguments) if call.raw_arguments is not None else 0
        if size > self.config.max_argument_chars:
            return (yield from self._refuse_too_long(step, call, size))
        arguments, problem = self._arguments(call)
        yield Action(step, call.id, call.name, arguments)
        started = time.perf_counter()
        journal = self.registry.journal
        earlier = journal.earlier(call_key(call.name, arguments))
        if earlier is not None:
            entry = journal.record(
                JournalEntry(step, call.id, call.name, arguments, self._repeat_notice(earlier), "repeated")
            )
        elif problem is not None:
            failure: Failure = "unknown_tool" if call.name not in self.registry else "arguments"
            entry = journal.record(
                JournalEntry(step, call.id, call.name, arguments, ToolResult(f"Error: {problem}"), failure)
            )
        else:
            entry = self.registry.execute(step, call.id, call.name, arguments)
        text = self._shorten(entry.result.text)
        yield Observation(
            step, call.id, call.name, text, entry.ok, time.perf_counter() - started, entry.failure, entry.result.data
        )
        return _Outcome(arguments, text, entry.ok, entry.failure == "repeated")

    def _refuse_too_long(self, step: int, call: PlannedCall, size: int) -> Generator[Event, None, _Outcome]:
        """A call whose arguments are over the limit: not run, and its arguments never resent."""
        yield Action(step, call.id, call.name, {})
        limit = self.config.max_argument_chars
        text = (
            f"Error: the arguments of {call.name} were {size:,} characters, over the limit of {limit:,}: nothing "
            "was run and they are left out of the history. Call it again with much shorter arguments."
        )
        self.registry.journal.record(JournalEntry(step, call.id, call.name, {}, ToolResult(text), "too_long"))
        yield Observation(step, call.id, call.name, text, False, 0.0, "too_long")
        return _Outcome({}, text, ok=False, repeated=False, too_long=True)

    def _repeat_notice(self, earlier: JournalEntry) -> ToolResult:
        """The answer to a repeated call: where its result is, or the error it got, and what is still missing."""
        if earlier.ok:
            text = self.task.reminder("repeated_call", tool=earlier.name, step=earlier.step)
        else:
            error = earlier.result.text.removeprefix("Error: ").strip()
            text = self.task.reminder("repeated_failure", tool=earlier.name, step=earlier.step, error=error)
        missing = self.task.missing_note(self._goal, self.registry.journal)
        return ToolResult(f"{text} {missing}" if missing else text, earlier.result.data)

    def _arguments(self, call: PlannedCall) -> tuple[dict[str, Any], str | None]:
        """Parse, bind, coerce and validate a call's arguments against its tool's schema."""
        tool = self.registry.tools.get(call.name)
        if tool is None:
            names = ", ".join(self.registry.names())
            return {}, f"there is no tool named {call.name!r}; use one of: {names}"
        if call.raw_arguments is not None:
            parsed, error = parse_json_arguments(call.raw_arguments)
            if error is not None or parsed is None:
                return {}, f"{call.name}: {error}"
            values = parsed
        else:
            values = bind_arguments(tool, list(call.args), dict(call.kwargs))
        values, coercion_problems = coerce_arguments(tool, values, enum_aliases=self.task.enum_alias)
        problems = coercion_problems + validate_arguments(tool, values, tool_name=call.name)
        if problems:
            return values, f"invalid arguments for {call.name}: " + "; ".join(dict.fromkeys(problems))
        return values, None

    def _shorten(self, text: str) -> str:
        limit = self.config.max_observation_chars
        if len(text) <= limit:
            return text
        return text[:limit] + f"\n[... {len(text) - limit} more characters left out ...]"


def _bounded(message: dict[str, Any], limit: int) -> dict[str, Any]:
    """A copy of an assistant message with its text and each call's arguments cut to `limit` characters."""

    def cut(text: str) -> str:
        return text if len(text) <= limit else text[:limit] + f"[... {len(text) - limit} more characters ...]"

    bounded = {**message, "content": cut(message.get("content") or "")}
    if message.get("tool_calls"):
        bounded["tool_calls"] = [
            {**call, "function": {**call["function"], "arguments": cut(call["function"]["arguments"])}}
            for call in message["tool_calls"]
        ]
    return bounded


def _snapshot(messages: list[dict[str, Any]]) -> tuple[dict[str, Any], ...]:
    """The messages as they are now; the loop replaces messages rather than editing them, so copies of the
    dicts suffice (their nested tool calls are never changed in place)."""
    return tuple(dict(message) for message in messages)


def _call_label(name: str, arguments: dict[str, Any], limit: int = 80) -> str:
    """A call as a person reads it: save_plan(filename="ml.md", content="# 机器学习…")."""
    shown = ", ".join(f"{key}={json.dumps(value, ensure_ascii=False, default=str)}" for key, value in arguments.items())
    shown = shown if len(shown) <= limit else shown[: limit - 1] + "…"
    return f"{name}({shown})"


def _stub_bulky(arguments: dict[str, Any], tool: str, limit: int) -> dict[str, Any] | None:
    """The arguments with long strings replaced by a stub, or None when nothing is long."""
    if not any(isinstance(value, str) and len(value) > limit for value in arguments.values()):
        return None
    return {
        name: f"<{len(value)} characters, left out of the history after {tool} succeeded>"
        if isinstance(value, str) and len(value) > limit
        else value
        for name, value in arguments.items()
    }


def _with_arguments(
    reply: ModelReply, decision: Decision, replaced: dict[str, dict[str, Any]]
) -> tuple[ModelReply, Decision]:
    """The reply and decision with some calls' arguments replaced (by call id), for the history only."""
    if not replaced:
        return reply, decision
    calls = [
        replace(call, raw_arguments=None, args=[], kwargs=replaced[call.id]) if call.id in replaced else call
        for call in decision.calls
    ]
    tool_calls = [
        replace(call, arguments=json.dumps(replaced[call.id], ensure_ascii=False)) if call.id in replaced else call
        for call in reply.tool_calls
    ]
    return replace(reply, tool_calls=tool_calls), replace(decision, calls=calls)


__all__ = ["Agent", "AgentConfig", "AgentTask", "Decision"]
