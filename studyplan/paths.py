"""Small path helpers shared by tools, commands and the renderer."""

from __future__ import annotations

from pathlib import Path

from studyplan.errors import StudyplanError


def display_path(path: Path) -> str:
    """The path as a user would type it: relative to the working directory when it is below it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def read_user_file(path: Path, error: type[StudyplanError], kind: str = "file") -> str:
    """The text of a file the user named; any failure is one `error` line naming the file.

    `kind` names what was expected ("plan file", "file"); a UTF-8 BOM from Windows editors is tolerated.
    """
    try:
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise error(f"{path}: {kind} not found") from None
    except IsADirectoryError:
        raise error(f"{path}: is a folder, not a {kind}") from None
    except UnicodeDecodeError:
        raise error(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise error(f"{path}: cannot be read ({exc.strerror or exc})") from None
