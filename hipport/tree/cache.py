"""The incremental cache: a file's port, stored under a key of everything it depends on.

The key hashes the file's bytes and path, the macros its project headers
define, hipport's code identity (hipport.identity), the rule set's digest, the options and the layout
of the stored records. Entries are written atomically, so a killed run leaves
whole entries or none; an entry that does not load is a miss and is rewritten.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from pathlib import Path

from hipport.cache_files import load_private
from hipport.identity import code_identity
from hipport.emit.writer import write_private
from hipport.options import Options
from hipport.engine.port import FileResult
from hipport.tree.records import LAYOUT, pack, unpack

# A stored FileResult is a record of builtins (hipport.tree.records): an entry naming any class is not loaded.
_STORED_GLOBALS: frozenset[tuple[str, str]] = frozenset()


def cache_root() -> Path:
    base = os.environ.get("HIPPORT_CACHE_DIR") or os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "hipport" / "ports"


class PortCache:
    def __init__(self, directory: Path | None, rules_digest: str, options: Options) -> None:
        self.directory = directory  # None: caching is off
        self.salt = "\0".join([code_identity(), rules_digest, repr(options), LAYOUT]).encode()
        self.hits = 0

    @property
    def enabled(self) -> bool:
        return self.directory is not None

    def key(self, rel: str, source: bytes, declared: frozenset[str]) -> str:
        digest = hashlib.sha256(self.salt)
        for part in (rel.encode("utf-8", "surrogateescape"), "\0".join(sorted(declared)).encode(), source):
            digest.update(len(part).to_bytes(8, "little"))
            digest.update(part)
        return digest.hexdigest()

    def _file(self, key: str) -> Path:
        assert self.directory is not None  # only called when caching is on
        return self.directory / key[:2] / f"{key[2:]}.pickle"

    def get(self, key: str, source: bytes) -> FileResult | None:
        result = self.stored(key, source)
        if result is not None:
            self.hits += 1
        return result

    def stored(self, key: str, source: bytes = b"") -> FileResult | None:
        """The entry under key, not counted as a hit (source: the key's input, if the caller has it)."""
        if self.directory is None:
            return None
        try:
            stored_key, record = load_private(self._file(key), _STORED_GLOBALS)  # see hipport/cache_files.py
            if stored_key != key:
                return None
            return unpack(record, source)
        except Exception:  # missing, truncated, from another layout or not this user's: a miss
            return None

    def put(self, key: str, result: FileResult) -> None:
        if self.directory is not None:
            self.put_record(key, pack(result))

    def put_record(self, key: str, record: tuple) -> None:
        """Store a record from hipport.tree.records.pack (a worker has one already)."""
        if self.directory is None:
            return
        data = pickle.dumps((key, record), protocol=pickle.HIGHEST_PROTOCOL)
        target = self._file(key)
        try:
            try:
                write_private(target, data)
            except FileNotFoundError:  # the entry's directory, made once
                target.parent.mkdir(parents=True, exist_ok=True)
                write_private(target, data)
        except OSError:
            pass  # a read-only cache only costs speed
