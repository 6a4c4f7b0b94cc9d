"""Hostile text-protocol replies, shared by the parser's fuzz test and benchmarks/parser_fuzz.py.

A reply is built from pieces, each a protocol fragment repeated many times: the repetition is what turned
the old parser's per-label and per-quote rescans into seconds (`"Action: f(a=" * 2000` took 18.7 s).
"""

from __future__ import annotations

import random

from hypothesis import strategies as st

TOOLS = ["get_current_date", "search_courses", "plan_calendar", "save_plan"]

HOSTILE_FRAGMENTS = [
    "Action: ", "Action: f(", "Action: f(a=", "Action Input: ", "Thought: ", "Final Answer: ", "Observation: ",
    "\nAction: search_courses(", "**Action:** ", "行动：", "Obs", "(", ")", "[", "]", "{", "}", '"', "'", "“", "”",
    "「", "`", '"""', "it's ", ",", "，", "=", ":", "\n", " ", "\t", "```", "```json\n", "<think>", "</think>",
    "<tool_call>", "</tool_call>", "<function=f>", "functions.a{", "functions.a", "json", "<|", "|>", "a.", "a-",
    "\\", '{"a": "b",', '{"name": "save_plan", "arguments": {', "[1,", "search_courses", "x", "42", "None",
]  # fmt: skip

# (fragment, times) pieces; hypothesis shrinks a slow case to its few guilty pieces.
pieces = st.lists(
    st.tuples(st.sampled_from(HOSTILE_FRAGMENTS), st.integers(min_value=1, max_value=3000)), min_size=1, max_size=6
)


def build(recipe: list[tuple[str, int]], limit: int) -> str:
    """The reply a recipe describes, cut to `limit` characters."""
    return "".join(fragment * times for fragment, times in recipe)[:limit]


def random_recipe(rng: random.Random) -> list[tuple[str, int]]:
    """A recipe like `pieces` draws, from a seeded generator (for the long benchmark run)."""
    return [
        (rng.choice(HOSTILE_FRAGMENTS), rng.choice((1, 2, 10, 100, 1000, 5000, 20000)))
        for _ in range(rng.randint(1, 6))
    ]
