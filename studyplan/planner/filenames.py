"""The file names a model may give a plan: plain, portable names ending in .md, inside the plans folder."""

from __future__ import annotations

import re

from studyplan.paths import check_name_length
from studyplan.planner import observations

MAX_FILENAME_LENGTH = 120
# Names Windows refuses whatever the extension; refusing them everywhere keeps plans portable.
_RESERVED_NAMES = {
    "con",
    "prn",
    "aux",
    "nul",
    *(f"com{i}" for i in range(1, 10)),
    *(f"lpt{i}" for i in range(1, 10)),
}
_SAFE_FILENAME = re.compile(r"^\w[\w.\- ]*\.md$")  # \w includes CJK letters


def checked_plan_filename(filename: str) -> str:
    """`filename` as a plain .md name in the plans folder, or a ToolError saying how to fix it."""
    name = filename.strip()
    if "/" in name or "\\" in name or name.startswith("."):
        raise observations.filename_with_folders(filename)
    if not name.lower().endswith(".md"):
        raise observations.filename_without_md(filename)
    if len(name) > MAX_FILENAME_LENGTH or check_name_length(name):
        raise observations.filename_too_long(name, MAX_FILENAME_LENGTH)
    if name.split(".")[0].lower() in _RESERVED_NAMES or not _SAFE_FILENAME.match(name):
        raise observations.filename_not_allowed(filename)
    return name
