"""Text from outside (goals, notes, catalog names, file names in messages) made safe to print and to write.

A goal pasted from a web page can carry terminal escape sequences (which recolour or rewrite the screen),
a NUL, or, from a non-UTF-8 terminal, undecodable bytes that Python keeps as lone surrogates and that no
UTF-8 file can hold. These helpers remove control characters, or show them escaped where the exact text
matters to the reader (error messages naming a file).
"""

from __future__ import annotations

import json
import re
from typing import Any

# CSI (ESC [ ... final), OSC (ESC ] ... BEL or ESC \), and two-character ESC sequences.
_ESCAPE_SEQUENCE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]?|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_]?)")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")  # all but tab and newline
_LINE_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def has_surrogates(text: str) -> bool:
    """Whether `text` holds undecodable bytes (lone surrogates): it did not arrive as valid UTF-8."""
    return _SURROGATE.search(text) is not None


def clean_line(text: str) -> str:
    """One line of user text: escape sequences removed, control characters (newlines too) made spaces,
    NULs dropped, runs of spaces kept as they are."""
    text = _ESCAPE_SEQUENCE.sub("", text.replace("\x00", ""))
    return _LINE_CONTROL.sub(" ", text)


def clean_text(text: str) -> str:
    """Text of several lines: escape sequences and control characters removed, tabs and newlines kept."""
    return _CONTROL.sub("", _ESCAPE_SEQUENCE.sub("", text))


def printable(text: str) -> str:
    """`text` for the terminal: control characters shown escaped (\\x1b), undecodable bytes as \\udcxx."""
    text = _CONTROL.sub(lambda match: match.group().encode("unicode_escape").decode("ascii"), text)
    return _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def json_line(record: Any) -> str:
    """`record` as one JSON line (with its newline) that UTF-8 can always hold: text that is not valid Unicode
    (lone surrogates from undecodable input) is written as \\u escapes, so the line stays valid JSON."""
    line = json.dumps(record, ensure_ascii=False)
    return (line if not has_surrogates(line) else json.dumps(record)) + "\n"
