"""Atomic file writes: a reader (or a crash) sees the old file or the new one."""
from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def _replacing(path: Path):
    """A temporary file beside path, renamed over it on success and removed on any failure."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".hipport-tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            yield f, tmp
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _finish(f, durable: bool) -> None:
    f.flush()
    if durable:
        os.fsync(f.fileno())


def write_atomic(path: Path, data: bytes, mode_from: Path | None = None, durable: bool = True) -> None:
    """durable=False skips the fsync: still old-or-new when the process dies, not when the machine
    does; for files that replace nothing (a fresh mirror) or can be rebuilt (a cache entry)."""
    path = Path(path)
    with _replacing(path) as (f, tmp):
        f.write(data)
        _finish(f, durable)
        if mode_from is not None:
            os.chmod(tmp, os.stat(mode_from).st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o666 & ~_umask())


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
    tmp = link.parent / f".{link.name}.{os.getpid()}.hipport-tmp"
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


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
