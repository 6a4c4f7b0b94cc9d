"""Quote- and bracket-aware scanning of model text, in time linear in its length.

The text parsers (react_parser, embedded_calls) need four things from a reply: where a bracket opened at
some index closes, the top-level pieces of an argument list, the body of a code fence, and the reply apart
from its `<think>` blocks. A model's reply
is hostile input (a 100 KB reply of unclosed brackets and quotes is as likely as a plan), so each of these
jumps between the characters that matter with compiled searches and never rescans the text per character.

Work is capped as well as linear: a scan skips ordinary text and closed quoted strings in one compiled match,
but each bracket, separator and unclosable quote outside a string is a Python step, and a reply gets
SCAN_STEPS of those in all (inside `scan_budget`; one scan gets as many outside it). A real reply's tool
call holds a few dozen (a whole plan as an argument is one quoted string); a 100 KB reply of brackets holds
tens of thousands. Past the budget a bracket counts as never closing and an argument list is not cut
further (its last piece holds the rest), so such a reply still parses, in bounded time.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from contextvars import ContextVar

QUOTE_PAIRS = {'"': '"', "'": "'", "“": "”", "‘": "’", "「": "」", "『": "』", "`": "`"}
BRACKET_PAIRS = {"(": ")", "[": "]", "{": "}"}
_CLOSING_BRACKETS = ")]}"
_TRIPLE_QUOTES = ('"""', "'''")
# Where a backslash escapes the next character (inside "..." and '...').
_ESCAPING = {'"': re.compile(r'[\\"]'), "'": re.compile(r"[\\']")}
_FIRST_BRACKET = re.compile("[" + re.escape("".join(BRACKET_PAIRS)) + "]")
_THINK_BLOCK = re.compile(r"<think>(.*?)</think>", re.DOTALL | re.IGNORECASE)
_THINK_OPEN = re.compile(r"<think>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think>", re.IGNORECASE)
_FENCE_OPENING = re.compile(r"```[A-Za-z_]*[ \t]*\n?")
SCAN_STEPS = 4_000
# What is left of the current reply's scan steps (None outside scan_budget: each scan gets SCAN_STEPS).
_steps_left: ContextVar[list[int] | None] = ContextVar("studyplan_scan_steps_left", default=None)
_stop_patterns: dict[tuple[str, frozenset[str]], re.Pattern[str]] = {}


class QuoteEnds:
    """Whether a quote opening at an index closes later in one text: one reverse search per kind of quote,
    remembered, instead of a forward search from every quote character."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._last: dict[str, int] = {}

    def _last_index(self, closing: str) -> int:
        if closing not in self._last:
            self._last[closing] = self.text.rfind(closing)
        return self._last[closing]

    def closes_nowhere_after(self, index: int) -> bool:
        """The quote character at `index` is not closed anywhere after it (nor is any later one like it)."""
        closing = QUOTE_PAIRS[self.text[index]]
        return self._last_index(closing) < index + 1

    def close_at(self, index: int) -> tuple[str, int] | None:
        """If a quote opens at `index` and is closed later, (closing quote, index after the opening)."""
        text = self.text
        if text.startswith(_TRIPLE_QUOTES, index):
            triple = text[index : index + 3]
            return (triple, index + 3) if self._last_index(triple) >= index + 3 else None
        char = text[index]
        closing = QUOTE_PAIRS.get(char)
        if closing is None:
            return None
        if char == "'" and index > 0 and text[index - 1].isalnum():  # an apostrophe: it's, don't
            return None
        return (closing, index + 1) if self._last_index(closing) >= index + 1 else None


def quote_close_at(text: str, index: int) -> tuple[str, int] | None:
    """If a quote opens at text[index] and is closed later, (closing quote, index after the opening)."""
    return QuoteEnds(text).close_at(index)


def _after_quote(text: str, closing: str, index: int) -> int:
    """The index just after the quote that `closing` ends, searching from `index` (inside the quote)."""
    escaping = _ESCAPING.get(closing)
    if escaping is None:
        found = text.find(closing, index)
        return (found if found >= 0 else len(text)) + len(closing)
    while True:
        match = escaping.search(text, index)
        if match is None:
            return len(text) + len(closing)
        if text[match.start()] == "\\":
            index = match.start() + 2
            continue
        return match.start() + len(closing)


def _quoted_run(opener: str) -> str:
    """A closed quoted string opening with `opener`: "..." and '...' with backslash escapes (not at a triple
    quote, which _after_quote reads), the others to their closing character."""
    closing = QUOTE_PAIRS[opener]
    if opener not in _ESCAPING:
        return f"{re.escape(opener)}[^{re.escape(closing)}]*+{re.escape(closing)}"
    triple = re.escape(opener * 3)
    body = f"{re.escape(opener)}(?:[^{re.escape(opener)}\\\\]|\\\\.)*+{re.escape(opener)}"
    apostrophe = r"(?<![^\W_])" if opener == "'" else ""  # it's: an apostrophe opens nothing (see below)
    return f"{apostrophe}(?!{triple}){body}"


def _stops(separators: str, dead: frozenset[str]) -> re.Pattern[str]:
    """What a scan skips in one compiled match from where it stands: ordinary characters and closed quoted
    strings (see _quoted_run). It stops at a bracket, a separator, or a quote opener not known to be
    `dead` that it cannot close (a triple quote, an unclosed one): those take a Python step each.

    An apostrophe after a letter or digit (it's) opens nothing, so it is skipped: a reply of English prose
    would otherwise stop the scan at every apostrophe. Without this skipping a reply of 20,000 backticks or
    quoted strings was 10,000 Python steps.
    """
    key = (separators, dead)
    if key not in _stop_patterns:
        openers = [opener for opener in QUOTE_PAIRS if opener not in dead]
        characters = "".join(openers) + "".join(BRACKET_PAIRS) + _CLOSING_BRACKETS + separators
        alternatives = [_quoted_run(opener) for opener in openers]
        alternatives.append("[^" + re.escape(characters) + "]++")
        if "'" in openers:
            alternatives.append(r"(?<=[^\W_])'")  # \w minus "_" is str.isalnum()
        _stop_patterns[key] = re.compile("(?:" + "|".join(alternatives) + ")*+", re.DOTALL)
    return _stop_patterns[key]


@contextlib.contextmanager
def scan_budget() -> Iterator[None]:
    """Within this block (one reply), scans take at most SCAN_STEPS Python steps in all."""
    if _steps_left.get() is not None:  # an outer block already counts this reply
        yield
        return
    token = _steps_left.set([SCAN_STEPS])
    try:
        yield
    finally:
        _steps_left.reset(token)


def scan(
    text: str, start: int, separators: str = "", quotes: QuoteEnds | None = None, capped: bool = True
) -> Iterator[tuple[int, int]]:
    """Yield (index, bracket depth after it) for each bracket and separator outside quotes, from `start`.

    A quote character that is not closed later in the text is an ordinary character. `quotes` may be shared
    by several scans of the same text. The scan ends early when the reply's steps run out (see the module
    docstring), unless `capped` is False (for texts short enough to scan whole).
    """
    quotes = quotes if quotes is not None and quotes.text is text else QuoteEnds(text)
    steps = _steps_left.get() if capped else None
    if steps is None:
        steps = [SCAN_STEPS if capped else len(text) + 1]  # each step moves on by at least one character
    dead: frozenset[str] = frozenset()  # openers whose closing quote does not occur again: skipped from now on
    stops = _stops(separators, dead)
    depth = 0
    index = start
    while True:
        steps[0] -= 1
        if steps[0] < 0:
            return
        index = stops.match(text, index).end()  # type: ignore[union-attr]  # `*+` always matches
        if index >= len(text):
            return
        char = text[index]
        quote = quotes.close_at(index) if char in QUOTE_PAIRS else None
        if quote is not None:
            index = _after_quote(text, *quote)
            continue
        if char in BRACKET_PAIRS:
            depth += 1
        elif char in _CLOSING_BRACKETS:
            depth = max(depth - 1, 0)
        elif char not in separators:  # a quote character that opens nothing
            if quotes.closes_nowhere_after(index):
                dead |= {char}
                stops = _stops(separators, dead)
            index += 1
            continue
        yield index, depth
        index += 1


def matching_close(text: str, opening: int, quotes: QuoteEnds | None = None) -> int | None:
    """The index of the bracket closing the one at text[opening], or None when it never closes."""
    for index, depth in scan(text, opening, quotes=quotes):
        if depth == 0:
            return index if index > opening else None
    return None


def split_top_level(text: str, separators: str = ",，", max_parts: int = 64) -> list[str]:
    """`text` cut at the separators that are outside quotes and brackets, into at most `max_parts` pieces (the
    last holds the rest: no tool takes more arguments, and a reply of 50,000 commas must not cost 50,000)."""
    parts: list[str] = []
    last = 0
    for index, depth in scan(text, 0, separators):
        if depth == 0 and text[index] in separators:
            if len(parts) == max_parts - 1:
                break
            parts.append(text[last:index])
            last = index + 1
    parts.append(text[last:])
    return parts


class BracketBlocks:
    """Whether a bracketed block (an Action's arguments) runs past where a segment of one text would end.

    A bracket closing inside its segment costs a scan of that segment, one closing later moves the segment's
    end past the scanned text, and a bracket that never closes costs a scan to the end of the reply — once:
    after that, labels are taken as they come (a reply of thousands of unclosed `f(` would be quadratic).
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self._quotes = QuoteEnds(text)
        self._open_to_the_end = False

    def extend(self, start: int, naive_end: int) -> int:
        """End of the first bracketed block starting in text[start:naive_end] if it closes later."""
        if self._open_to_the_end:
            return naive_end
        opening = _FIRST_BRACKET.search(self.text, start, naive_end)
        if opening is None:
            return naive_end
        close = matching_close(self.text, opening.start(), self._quotes)
        if close is None:
            self._open_to_the_end = True
            return naive_end
        return close + 1 if close >= naive_end else naive_end


def fence_body(text: str) -> str | None:
    """The inside of a text that starts with a ``` code fence (language tag and closing fence removed), else None.

    Same reading as the pattern ^```lang[ \\t]*\\n?(.*?)\\n?[ \\t]*(?:```[ \\t]*)?$, done by stripping from
    the end: the pattern's backtracking is quadratic in a run of spaces.
    """
    opening = _FENCE_OPENING.match(text)
    if opening is None:
        return None
    body = text[opening.end() :]
    body = body.removesuffix("\n")  # `$` also matches before a final newline
    trimmed = body.rstrip(" \t")
    trimmed = trimmed[:-3].rstrip(" \t") if trimmed.endswith("```") else trimmed
    return trimmed.removesuffix("\n")


def split_think_blocks(text: str) -> tuple[str, str | None]:
    """Split off reasoning-model `<think>` blocks: labels inside them are drafts, not the reply."""
    closes = [match.end() for match in _THINK_CLOSE.finditer(text)]
    reasoning: list[str] = []
    if closes:
        # Blocks are looked for before the last close only: an unclosed <think> would be searched to the end.
        head = text[: closes[-1]]
        reasoning = [match.strip() for match in _THINK_BLOCK.findall(head)]
        text = _THINK_BLOCK.sub("", head) + text[closes[-1] :]
    remaining_close = None
    for remaining_close in _THINK_CLOSE.finditer(text):  # noqa: B007 (the last one is wanted)
        pass
    if remaining_close is not None:  # the chat template opened <think> in the prompt, so only the close is here
        reasoning.append(_THINK_OPEN.sub("", text[: remaining_close.start()]).strip())
        text = text[remaining_close.end() :]
    text = _THINK_OPEN.sub("", text)
    joined = "\n".join(part for part in reasoning if part)
    return text, joined or None
