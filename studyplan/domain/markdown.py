"""Markdown to plan lines: markdown-it-py tokenizes, this module flattens the tokens into the lines the
plan reader's domain rules work on.

Code blocks and raw HTML are never plan content (a fenced block holding "### 第 99 周" is no week 99).
Indented code is switched off: models indent freely, and an indented task list is still a task list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from markdown_it import MarkdownIt
from markdown_it.token import Token

LineKind = Literal["heading", "text", "item", "row"]


@dataclass(frozen=True)
class Line:
    kind: LineKind  # heading; text (paragraph or quote line); item (a list item's first line); row (table)
    text: str  # the inline Markdown source of the line (emphasis and links as written)
    number: int  # 1-based line number in the document
    depth: int = 0  # heading level; list nesting for items and the text inside items (1 = top-level list)
    cells: tuple[str, ...] = ()  # a table row's cells
    header: tuple[str, ...] = ()  # the header cells of the row's table


@dataclass
class _Walk:
    lines: list[Line]
    depth: int = 0  # current list nesting
    item_starts: bool = False  # the next paragraph line opens a list item
    header: tuple[str, ...] = ()
    in_head: bool = False
    row: list[str] | None = None
    row_line: int = 0


def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table").disable(["code", "html_block", "html_inline"])


def markdown_lines(text: str) -> list[Line]:
    """The plan's headings, paragraph lines, list items and table rows, in document order."""
    tokens = _parser().parse(text)
    walk = _Walk([])
    for index, token in enumerate(tokens):
        _visit(walk, token, tokens[index - 1] if index else None)
    return walk.lines


def _visit(walk: _Walk, token: Token, previous: Token | None) -> None:
    kind = token.type
    if kind in ("bullet_list_open", "ordered_list_open"):
        walk.depth += 1
    elif kind in ("bullet_list_close", "ordered_list_close"):
        walk.depth -= 1
    elif kind == "list_item_open":
        walk.item_starts = True
    elif kind == "thead_open":
        walk.in_head, walk.header = True, ()
    elif kind == "thead_close":
        walk.in_head = False
    elif kind == "tr_open":
        walk.row, walk.row_line = [], _first_line(token)
    elif kind == "tr_close" and walk.row is not None:
        if walk.in_head:
            walk.header = tuple(walk.row)
        elif any(walk.row):
            walk.lines.append(
                Line("row", " | ".join(walk.row), walk.row_line, cells=tuple(walk.row), header=walk.header)
            )
        walk.row = None
    elif kind == "inline":
        _inline(walk, token, previous)


def _inline(walk: _Walk, token: Token, previous: Token | None) -> None:
    if walk.row is not None:  # a table cell
        walk.row.append(token.content.strip())
        return
    first = _first_line(token)
    if previous is not None and previous.type == "heading_open":
        walk.lines.append(Line("heading", _unescaped(token.content.strip()), first, depth=int(previous.tag[1:])))
        return
    for offset, source_line in enumerate(token.content.split("\n")):
        if not source_line.strip():
            continue
        kind: LineKind = "item" if walk.item_starts and offset == 0 else "text"
        walk.lines.append(Line(kind, _unescaped(source_line.strip()), first + offset, depth=walk.depth))
    walk.item_starts = False


_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")


def _unescaped(text: str) -> str:
    """Markdown's backslash escapes resolved ("0\\." → "0."); the rest of the source stays as written."""
    return _ESCAPED.sub(r"\1", text)


def _first_line(token: Token) -> int:
    return token.map[0] + 1 if token.map else 0
