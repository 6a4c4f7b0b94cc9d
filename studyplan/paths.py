"""Small path helpers shared by tools, commands and the renderer."""

from __future__ import annotations

from pathlib import Path


def display_path(path: Path) -> str:
    """The path as a user would type it: relative to the working directory when it is below it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)
