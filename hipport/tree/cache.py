"""The incremental cache: a file's port, stored under a key of everything it depends on.

The key hashes the file's bytes and path, the macros its project headers
define, hipport's version, the rule set's digest, the options and the layout
of the stored records. Entries are written atomically, so a killed run leaves
whole entries or none; an entry that does not load is a miss and is rewritten.
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
import pickle
from pathlib import Path

from hipport import __version__
from hipport.diagnostics import Edit, Finding
from hipport.emit.writer import write_atomic
from hipport.options import Options
from hipport.rules.engine import FileResult

_LAYOUT = repr([(cls.__name__, [f.name for f in dataclasses.fields(cls)]) for cls in (FileResult, Finding, Edit)])


def cache_root() -> Path:
    base = os.environ.get("HIPPORT_CACHE_DIR") or os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "hipport" / "ports"


class PortCache:
    def __init__(self, directory: Path | None, rules_digest: str, options: Options) -> None:
        self.directory = directory  # None: caching is off
        self.salt = "\0".join([__version__, rules_digest, repr(options), _LAYOUT]).encode()
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
        return self.directory / key[:2] / f"{key[2:]}.pickle"

    def get(self, key: str, source: bytes) -> FileResult | None:
        if self.directory is None:
            return None
        try:
            with open(self._file(key), "rb") as f:
                stored_key, result, changed = pickle.load(f)
        except Exception:  # missing, truncated or from another layout: a miss
            return None
        if stored_key != key or not isinstance(result, FileResult):
            return None
        result.source = source
        if not changed:
            result.output = source
        self.hits += 1
        return result

    def put(self, key: str, result: FileResult) -> None:
        if self.directory is None:
            return
        changed = result.changed
        # The source is the key's input; an unchanged output is the source again.
        stored = dataclasses.replace(result, source=b"", output=result.output if changed else b"")
        try:
            target = self._file(key)
            target.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(target, pickle.dumps((key, stored, changed), protocol=pickle.HIGHEST_PROTOCOL),
                         durable=False)  # a lost entry is a miss
        except OSError:
            pass  # a read-only cache only costs speed
