"""Atomic file writes: a reader (or a crash) sees the old file or the new one.

Temporary files are named .NAME.PID.N.hipport-tmp: only a killed process
leaves one behind, and the PID tells a later run whether its writer is gone
(remove_stale_temporaries) or may still be writing it.
"""

from __future__ import annotations

import errno
import itertools
import os
import re
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

TEMP_SUFFIX = ".hipport-tmp"
_TEMP_PID = re.compile(r"\.(\d+)(?:\.[^.]*)?" + re.escape(TEMP_SUFFIX) + "$")
# As tempfile.mkstemp opens its files; a tree run creates one per file it writes, and mkstemp's
# random names and path handling cost more than the writing of most ports.
_CREATE = (
    os.O_WRONLY
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
_SERIAL = itertools.count()
_ATTEMPTS = 10_000  # names taken by someone else before giving up, as mkstemp's TMP_MAX


def _temporary(path: Path) -> tuple[int, str]:
    """A new file beside path, open for writing, readable and writable by this user only."""
    prefix = os.path.join(os.path.dirname(path), f".{os.path.basename(path)}.{os.getpid()}.")
    for _ in range(_ATTEMPTS):
        tmp = f"{prefix}{next(_SERIAL)}{TEMP_SUFFIX}"
        try:
            return os.open(tmp, _CREATE, 0o600), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name", f"{prefix}N{TEMP_SUFFIX}")


@contextmanager
def _replacing(path: Path):
    """A temporary file beside path, renamed over it on success and removed on any failure."""
    fd, tmp = _temporary(path)
    try:
        with os.fdopen(fd, "wb") as f:
            yield f, tmp
        os.replace(tmp, path)
    except BaseException:
        discard(tmp)
        raise


def discard(tmp) -> None:
    """Remove a temporary file after a failed write; it may already be gone."""
    try:
        os.unlink(tmp)
    except OSError:
        pass


def _finish(f, durable: bool) -> None:
    f.flush()
    if durable:
        os.fsync(f.fileno())


def write_atomic(path: Path, data: bytes, mode_from: Path | None = None, durable: bool = True) -> None:
    """durable=False skips the fsync: still old-or-new when the process dies, not when the machine
    does; for files that replace nothing (a fresh mirror) or can be rebuilt (a cache entry)."""

    def settle(fd: int, tmp: str) -> None:
        if durable:
            os.fsync(fd)
        _chmod(fd, tmp, os.stat(mode_from).st_mode & 0o7777 if mode_from is not None else 0o666 & ~_umask())

    _write_over(path, data, settle)


def _write_over(path: Path, data: bytes, settle: Callable[[int, str], None] | None = None) -> None:
    """data into a temporary file beside path, renamed over it; settle(fd, tmp) runs before the file
    is closed (fsync, mode). On any failure the temporary file goes and path is as it was."""
    fd, tmp = _temporary(path)
    try:
        try:
            write_all(fd, data)
            if settle is not None:
                settle(fd, tmp)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        discard(tmp)
        raise


def write_all(fd: int, data: bytes) -> None:
    """os.write may write less than asked (a signal, a pipe); loop until all of it is out."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def write_private(path: Path, data: bytes) -> None:
    """Atomically, readable by this user only, without fsync: for cache entries, where a lost one
    is a miss. Leaner than write_atomic (no chmod or umask calls): one is written per file ported."""
    _write_over(path, data)


def _chmod(fd: int, path: str, mode: int) -> None:
    if os.chmod in os.supports_fd:
        os.chmod(fd, mode)
    else:
        os.chmod(path, mode)


def copy_atomic(src: Path, dst: Path, durable: bool = True) -> None:
    """Copy a file's bytes, mode and times through a temporary file, as write_atomic does."""
    import shutil

    with _replacing(Path(dst)) as (out, tmp):
        with open(src, "rb") as f:
            shutil.copyfileobj(f, out, 1 << 20)
        _finish(out, durable)
        shutil.copystat(src, tmp)


def symlink_atomic(target: str, link: Path) -> None:
    """Create (or replace) a symbolic link; a reader sees the old link or the new one."""
    link = Path(link)
    tmp = link.parent / f".{link.name}.{os.getpid()}{TEMP_SUFFIX}"
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass
    os.symlink(target, tmp)
    try:
        os.replace(tmp, link)
    except BaseException:
        os.unlink(tmp)
        raise


def create_atomic(path: Path, data: bytes, stat_from: Path | None = None) -> bool:
    """Write a new file, never replacing one: False if path exists (perhaps written a moment ago
    by another process), so the first writer's content is the one kept."""
    import shutil

    path = Path(path)
    fd, tmp = _temporary(path)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            _finish(f, True)
        if stat_from is not None:
            shutil.copystat(stat_from, tmp)
        try:
            os.link(tmp, path)  # unlike a rename, fails when path exists
        except FileExistsError:
            return False
        except OSError:  # a file system without hard links
            if os.path.lexists(path):
                return False
            os.replace(tmp, path)
        return True
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def check_writable(directory: Path) -> None:
    """Raise OSError unless a file can be created in directory (as root, os.access always says yes)."""
    fd, tmp = _temporary(Path(directory) / "probe")
    os.close(fd)
    os.unlink(tmp)


def remove_stale_temporaries(paths) -> int:
    """Remove the temporary files among paths whose writing process is gone; returns how many."""
    removed = 0
    for path in paths:
        match = _TEMP_PID.search(Path(path).name)
        if match is None or _alive(int(match.group(1))):
            continue
        try:
            os.unlink(path)
            removed += 1
        except OSError:
            pass
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process, or no way to ask: assume it is writing
        return True
    return True


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
