"""The files studyplan reads and writes for the user, in one place, so every one of them is handled the same way.

Reading: only regular files (never a FIFO that blocks, /dev/zero that never ends, a folder), up to a size
bound, as UTF-8. Writing: only inside a folder that is really a folder the user can write to, only to new
regular files (created atomically, never replacing anything), with the user's normal file mode (umask).
Every failure is one line naming the path.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
import threading
from pathlib import Path

from studyplan.errors import StorageError, StudyplanError, UsageError

# Plans, catalogs, goals files and results files are text a person could read; 20 MB is far beyond any of them.
MAX_USER_FILE_BYTES = 20_000_000
# Most file systems limit one name to 255 bytes (not characters: a Chinese character is 3 bytes in UTF-8).
MAX_NAME_BYTES = 255
# Kernel views that look like folders but are not a place for the user's files.
_VIRTUAL_ROOTS = (Path("/proc"), Path("/sys"), Path("/dev"))
_SHARED_MEMORY = Path("/dev/shm")
_FREE_NAME_ATTEMPTS = 1000
_umask_lock = threading.Lock()
_umask: int | None = None


def display_path(path: Path) -> str:
    """The path as a user would type it: relative to the working directory when it is below it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def read_user_file(
    path: Path, error: type[StudyplanError], kind: str = "file", limit: int = MAX_USER_FILE_BYTES
) -> str:
    """The text of a file the user named; any failure is one `error` line naming the file.

    Only a regular file is read (opened without blocking, so a FIFO is refused rather than waited on), and
    at most `limit` bytes of it. `kind` names what was expected ("plan file", "catalog"); a UTF-8 BOM from
    Windows editors is tolerated.
    """
    data = read_user_bytes(path, error, kind, limit)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise error(f"{path}: not UTF-8 text") from None


def read_user_bytes(
    path: Path, error: type[StudyplanError], kind: str = "file", limit: int = MAX_USER_FILE_BYTES
) -> bytes:
    """The bytes of a regular file the user named, at most `limit` of them (see read_user_file)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except FileNotFoundError:
        raise error(f"{path}: {kind} not found") from None
    except IsADirectoryError:
        raise error(f"{path}: is a folder, not a {kind}") from None
    except OSError as exc:
        raise error(f"{path}: cannot be read ({exc.strerror or exc})") from None
    with os.fdopen(descriptor, "rb") as handle:
        mode = os.fstat(descriptor).st_mode
        if stat.S_ISDIR(mode):
            raise error(f"{path}: is a folder, not a {kind}")
        if not stat.S_ISREG(mode):
            raise error(f"{path}: not a regular file (a device, pipe or socket); give a {kind}")
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise error(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if len(data) > limit:
        raise error(f"{path}: bigger than {limit // 1_000_000} MB, too big for a {kind}")
    return data


def is_virtual(path: Path) -> bool:
    """Whether `path` lies in a kernel view (/proc, /sys, /dev) rather than on a file system for files."""
    resolved = path.resolve()
    if resolved == _SHARED_MEMORY or _SHARED_MEMORY in resolved.parents:  # /dev/shm is an ordinary tmpfs
        return False
    return any(resolved == root or root in resolved.parents for root in _VIRTUAL_ROOTS)


def ensure_folder(folder: Path, what: str = "plans folder") -> Path:
    """`folder`, created if missing, after checking that new files can really be written there.

    Refused with one line naming it (UsageError, exit 2) when it is a file, a dangling symlink, in /proc,
    /sys or /dev, or read-only; StorageError (exit 3) when a probe write fails for lack of space.
    """
    if folder.is_symlink() and not folder.exists():
        raise UsageError(f"{folder}: the {what} is a symlink to nothing")
    if is_virtual(folder):
        raise UsageError(f"{folder}: the {what} is in a kernel view ({folder.resolve()}), not a place for files")
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{folder}: the {what} is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _write_error(folder, exc, f"the {what} cannot be created") from None
    try:
        with tempfile.TemporaryFile(dir=folder, prefix=".studyplan-probe-") as probe:
            probe.write(b"\n")
            probe.flush()
            os.fsync(probe.fileno())
    except OSError as exc:
        raise _write_error(folder, exc, f"cannot write in the {what}") from None
    return folder


def _write_error(path: Path, exc: OSError, doing: str) -> StudyplanError:
    """One line for a failed write: the disk being full is a storage problem, the rest the user's choice."""
    reason = exc.strerror or str(exc)
    if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EIO):
        return StorageError(f"{path}: {doing} ({reason})")
    return UsageError(f"{path}: {doing} ({reason})")


def check_name_length(name: str) -> str | None:
    """Why `name` is too long for a file system (255 bytes in UTF-8), or None when it fits."""
    size = len(name.encode("utf-8", errors="surrogatepass"))
    return f"{size} bytes in UTF-8, at most {MAX_NAME_BYTES}" if size > MAX_NAME_BYTES else None


def user_file_mode() -> int:
    """The mode a new file of the user's gets, as `open()` would give it: 0666 minus the umask."""
    global _umask
    with _umask_lock:
        if _umask is None:
            _umask = os.umask(0o022)  # reading the umask means setting it; it is put back at once
            os.umask(_umask)
    return 0o666 & ~_umask


def write_new_file(folder: Path, name: str, content: str) -> Path:
    """Write `content` to folder/name atomically without ever replacing an existing file.

    The text goes to a temporary file first and is then hard-linked into place: link() fails if the name
    exists (even as a dangling symlink), so a user's file is never overwritten and no partial file is ever
    visible. On a clash the next free name (`name-2.md`, `name-3.md`, ...) is used. The file gets the user's
    normal mode. Raises StorageError or UsageError naming the file when the file system refuses.
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
        real_folder = folder.resolve()
        descriptor, temporary = tempfile.mkstemp(dir=real_folder, prefix=".studyplan-", suffix=".tmp")
    except OSError as exc:
        raise _write_error(folder / name, exc, "cannot be written") from None
    stem, suffix = os.path.splitext(name)
    try:
        try:
            os.fchmod(descriptor, user_file_mode())
            with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as handle:  # as given: .ics needs CRLF
                handle.write(content if content.endswith("\n") else content + "\n")
        except OSError as exc:
            raise _write_error(folder / name, exc, "cannot be written") from None
        for attempt in range(1, _FREE_NAME_ATTEMPTS):
            candidate = real_folder / (name if attempt == 1 else f"{stem}-{attempt}{suffix}")
            try:
                os.link(temporary, candidate)
            except FileExistsError:
                continue
            except OSError as exc:
                raise _write_error(candidate, exc, "cannot be written") from None
            return candidate
        raise UsageError(f"{folder / name}: no free file name (tried {_FREE_NAME_ATTEMPTS - 1} numbered names)")
    finally:
        Path(temporary).unlink(missing_ok=True)


def replace_file(path: Path, content: str) -> None:
    """Write `content` over the regular file `path` atomically: a reader sees the old text or the new, never
    half of one. The file keeps its own mode. A symlink is refused, never followed out of its folder."""
    if path.is_symlink():
        raise UsageError(f"{path}: is a symlink; studyplan only rewrites plain files inside the plans folder")
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
        descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".studyplan-", suffix=".tmp")
    except OSError as exc:
        raise _write_error(path, exc, "cannot be written") from None
    try:
        os.fchmod(descriptor, mode)
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as handle:  # as given: .ics needs CRLF
            handle.write(content if content.endswith("\n") else content + "\n")
        os.replace(temporary, path)
    except OSError as exc:
        Path(temporary).unlink(missing_ok=True)
        raise _write_error(path, exc, "cannot be written") from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
