"""Read a pickled cache back without trusting whoever else could have written it.

Unpickling runs whatever callables the data names, so a cache file is code
in effect. Two locks, either of which stops a planted file from running
anything: the file is only opened when this user owns it and nobody else may
write it (another account cannot plant or edit one, even in a shared or
world-writable HIPPORT_CACHE_DIR), and the unpickler resolves only the
classes the cache is known to hold (so a file this user's own account was
tricked into storing, say a CI cache restored from an untrusted branch, still
cannot name os.system). A file that fails either check is a cache miss.
"""

from __future__ import annotations

import os
import pickle
import stat
from pathlib import Path
from typing import BinaryIO


class UntrustedCache(OSError):
    """The cache file is not this user's own: it is ignored and rewritten."""


def open_private(path: Path) -> BinaryIO:
    """path opened for reading, when this user owns it and no one else may write it."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    try:
        info = os.fstat(fd)  # of the file opened, not of whatever the path names by now
        if not stat.S_ISREG(info.st_mode):
            raise UntrustedCache(f"{path}: not a regular file")
        if hasattr(os, "getuid") and info.st_uid != os.getuid():
            raise UntrustedCache(f"{path}: owned by user {info.st_uid}, not by this user")
        # Group write is fine for this user's own primary group (umask 002 with per-user groups).
        shared_group = hasattr(os, "getgid") and info.st_gid != os.getgid()
        if info.st_mode & stat.S_IWOTH or (info.st_mode & stat.S_IWGRP and shared_group):
            raise UntrustedCache(f"{path}: writable by other users")
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


class RestrictedUnpickler(pickle.Unpickler):
    """Resolves only the (module, name) pairs in allowed; anything else is an error."""

    def __init__(self, file: BinaryIO, allowed: frozenset[tuple[str, str]]) -> None:
        super().__init__(file)
        self.allowed = allowed

    def find_class(self, module: str, name: str):
        if (module, name) not in self.allowed:
            raise pickle.UnpicklingError(f"the cache names {module}.{name}, which it never holds")
        return super().find_class(module, name)


def load_private(path: Path, allowed: frozenset[tuple[str, str]]):
    """What the pickle at path holds, if it is this user's own and names only allowed classes."""
    with open_private(path) as f:
        return RestrictedUnpickler(f, allowed).load()


def allowed_globals(*objects) -> frozenset[tuple[str, str]]:
    return frozenset((obj.__module__, obj.__qualname__) for obj in objects)
