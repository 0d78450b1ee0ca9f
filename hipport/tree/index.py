"""The tree index: what the last run over this tree did to each source, by the files' stats.

A rerun over an unchanged tree should cost a stat per file, not a read, a hash
and a port-cache lookup. So each run of `convert` on a tree (mirror or in place)
leaves an index beside the port cache: for each source it ported, the stat
signature of the source, of every path its project-header macros were looked for
at (hipport.project) and of the output it wrote or found already right, with
what the report needs of the port. The next run takes a file from the index when
all of those stats are unchanged; anything else (an edited, touched, replaced or
deleted file, a new header that an include would now find) is a miss and goes
through the real port and the content-keyed port cache. When only headers
changed, the file's macros are worked out again from the headers and the names
the file includes (kept in the index): if they are the same, so is the port,
and the file itself is not read. Rules, options, hipport's version and the
record layout are the index's salt: any change and the whole index is ignored.

A signature is (mode, size, mtime, ctime, inode, device). ctime cannot be set
back by touch or a restored backup, and the inode changes when an editor saves
through a new file, so a changed file changes its signature, with one exception:
a change within the same tick of the file system's clock as the one before it.
Such "racy" stats (git's word) are never trusted: a source or header only when it
had not changed for a margin before the run started (any change after we read it
would then show), an output only when it had not changed for a margin before the
index was written. File systems whose timestamps keep whole seconds get a
margin of two seconds. What this cannot see: a network file system whose clock
runs behind this machine's by more than the margin, or a program that rewrites
an output with as many bytes within a few milliseconds of hipport writing it.

The index loads through hipport.cache_files like every cache: it must be this
user's own, and it holds builtins only. Whatever fails to load is no index.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import time
from collections.abc import Sequence
from pathlib import Path

from hipport.cache_files import load_private
from hipport.emit.writer import write_private
from hipport.project import ProjectHeaders, probe
from hipport.engine.port import FileResult
from hipport.tree.cache import PortCache
from hipport.tree.records import pack_summary, unpack_summary

LAYOUT = "tree-index-2"
# Above the kernel's coarse clock tick (at most 10 ms) by a wide margin.
RACY_MARGIN_NS = 100_000_000
# Whole-second timestamps (ext3, HFS+, some network shares; FAT keeps even seconds).
COARSE_MARGIN_NS = 2_100_000_000
_SECOND = 1_000_000_000

Signature = tuple[int, int, int, int, int, int]


def signature(info: os.stat_result | None) -> Signature | None:
    if info is None:
        return None
    return (info.st_mode, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)


def settled(sig: Signature | None, before_ns: int) -> bool:
    """True if the file had not changed for a clock tick or more before before_ns, so that a
    change after it would change its signature (a path with no file always is)."""
    if sig is None:
        return True
    newest = max(sig[2], sig[3])
    coarse = sig[2] % _SECOND == 0 and sig[3] % _SECOND == 0
    return newest < before_ns - (COARSE_MARGIN_NS if coarse else RACY_MARGIN_NS)


def index_file(directory: Path, src: Path, out: Path | None) -> Path:
    """One index per source tree and destination: OUT, or the tree itself in place."""
    where = [os.path.realpath(src), os.path.realpath(out) if out is not None else "\0in-place"]
    name = hashlib.sha256("\0".join(where).encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return Path(directory) / "trees" / f"{name}.index"


class TreeIndex:
    """Look files up (lookup), record what each run did (record), and write the result (save).

    headers is the run's hipport.project.ProjectHeaders, whose memo of stats by absolute path
    (found) the index shares, so that each path is looked at once per run and both see the same
    answer; root is the tree's absolute path, which it was made with.
    """

    def __init__(
        self,
        path: Path,
        salt: bytes,
        cache: PortCache,
        in_place: bool,
        headers: ProjectHeaders,
        root: Path,
        started_ns: int,
    ) -> None:
        self.path = path
        self.salt = salt + b"\0" + LAYOUT.encode() + (b"\0in-place" if in_place else b"\0mirror")
        self.cache = cache
        self.in_place = in_place
        self.headers = headers
        self.found = headers.found
        self.root = root
        self.started_ns = started_ns
        self.hits = 0
        self._old: dict[str, tuple] = {}
        self._old_deps: dict[str, Signature | None] = {}
        self._new: dict[str, tuple] = {}
        self._changed = False
        self._deps_ok: dict[frozenset, bool] = {}
        self._load()

    def _load(self) -> None:
        try:
            layout, salt, deps, entries = load_private(self.path, frozenset())
        except Exception:  # missing, truncated, someone else's, or not an index at all: none
            return
        if layout == LAYOUT and salt == self.salt and isinstance(deps, dict) and isinstance(entries, dict):
            self._old, self._old_deps = entries, deps

    # -- a rerun ----------------------------------------------------------------------

    def binary(self, rel: str, source: os.stat_result | None) -> bool:
        """True if rel held binary data (it is copied) and has not changed since."""
        entry = self._old.get(rel)
        if (
            entry is None
            or source is None
            or type(entry) is not tuple
            or len(entry) != 1
            or signature(source) != entry[0]
        ):
            return False
        self._new[rel] = entry
        return True

    def lookup(self, rel: str, source: os.stat_result | None, output: str | None) -> FileResult | None:
        """The port of rel if neither it, nor its macros, nor its output (a mirror's file) changed."""
        entry = self._old.get(rel)
        if entry is None or source is None or type(entry) is not tuple or len(entry) != 7:
            return None
        try:
            source_sig, output_sig, deps, key, summary, includes, declared = entry
            if signature(source) != source_sig:
                return None
            if not self._unchanged(deps):
                probed = self._same_macros(rel, includes, declared)
                if probed is None:
                    return None
                entry = (source_sig, output_sig, probed, key, summary, includes, declared)
            if output is not None:
                try:
                    if signature(os.lstat(output)) != output_sig:
                        return None
                except OSError:
                    return None
            result, count = unpack_summary(summary)
            if output is None and result.changed:
                return None  # in place, only what the port leaves as it is was recorded
        except Exception:  # an entry of the wrong shape (a planted index): a miss
            return None
        result.edits = StoredEdits(count, self.cache, key)  # type: ignore[assignment]  # a lazy list: len, items, ==
        self._new[rel] = entry
        self.hits += 1
        return result

    def _unchanged(self, deps: frozenset) -> bool:
        if not deps:
            return True
        known = self._deps_ok.get(deps)
        if known is None:
            old = self._old_deps
            known = self._deps_ok[deps] = all(p in old and self._now(p) == old[p] for p in deps)
        return known

    def _same_macros(self, rel: str, includes: tuple[str, ...], declared: frozenset[str]) -> frozenset[str] | None:
        """The paths probed, if the headers that changed still give rel the macros it was ported with."""
        now, probed = self.headers.visible_from((self.root / rel).parent, includes)
        return probed if now == declared else None

    def _now(self, path: str) -> Signature | None:
        try:
            info = self.found[path]
        except KeyError:
            info = self.found[path] = probe(path)
        return signature(info)

    # -- what this run did ---------------------------------------------------------------

    def record(
        self,
        rel: str,
        source: os.stat_result | None,
        macros: tuple,
        key: str,
        result: FileResult,
        output: os.stat_result | None,
    ) -> None:
        """Remember rel's port. source: the stat taken before it was read; macros: what
        ProjectHeaders.visible_in said of it; output: the stat of the file in the mirror, taken
        after writing it or before reading it to compare (None in place)."""
        self._changed = True
        source_sig = signature(source)
        if source_sig is None or not settled(source_sig, self.started_ns):
            return
        if self.in_place:
            if result.changed:
                return  # the next run ports what was written, and records that
        elif output is None:
            return
        declared, probed, includes = macros
        self._new[rel] = (source_sig, signature(output), probed, key, pack_summary(result), includes, declared)

    def record_binary(self, rel: str, source: os.stat_result | None) -> None:
        """rel has a source's name and binary bytes: it is copied as data."""
        self._changed = True
        sig = signature(source)
        if sig is not None and settled(sig, self.started_ns):
            self._new[rel] = (sig,)

    def save(self) -> None:
        """Write the index if this run changed it: the files seen (those ported and recorded now,
        and those served from it), never an output written too recently to be trusted, and for
        a header that changed too recently a signature that nothing matches."""
        if (
            not self._changed
            and len(self._new) == len(self._old)
            and self._new.keys() == self._old.keys()
            and all(self._new[rel] is self._old[rel] for rel in self._new)
        ):
            return
        now = time.time_ns()
        entries = {rel: e for rel, e in self._new.items() if len(e) == 1 or e[1] is None or settled(e[1], now)}
        deps: dict[str, Signature | str | None] = {}  # a path -> its signature, None (absent) or _UNSETTLED
        shared: dict = {}  # files that see the same headers share one set (and one copy in the pickle)
        for rel, entry in entries.items():
            if len(entry) == 1:
                continue
            probed, includes, declared = (shared.setdefault(part, part) for part in (entry[2], entry[5], entry[6]))
            entries[rel] = (entry[0], entry[1], probed, entry[3], entry[4], includes, declared)
            for p in probed:
                if p not in deps:
                    sig = signature(self.found.get(p))
                    deps[p] = sig if settled(sig, self.started_ns) else _UNSETTLED
        data = pickle.dumps((LAYOUT, self.salt, deps, entries), protocol=pickle.HIGHEST_PROTOCOL)
        try:
            try:
                write_private(self.path, data)
            except FileNotFoundError:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                write_private(self.path, data)
        except OSError:
            pass  # a read-only cache only costs speed


# What the index keeps for a header that changed too shortly before the run: it never matches a
# signature, so the next run works the macros out again from the header as it is then.
_UNSETTLED = "unsettled"


class StoredEdits(Sequence):
    """The edits of a port served from the tree index: their number is known, and they are
    read from the port cache only if someone looks at them (the report needs the number only)."""

    __slots__ = ("_count", "_cache", "_key", "_edits")

    def __init__(self, count: int, cache: PortCache, key: str) -> None:
        self._count, self._cache, self._key = count, cache, key
        self._edits: list | None = None

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index):
        return self._load()[index]

    def __eq__(self, other) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    def __repr__(self) -> str:
        return f"StoredEdits({self._count} edits)"

    def _load(self) -> list:
        if self._edits is None:
            result = self._cache.stored(self._key)
            if result is None or len(result.edits) != self._count:
                raise LookupError("the port cache no longer holds this file's edits; run convert with --no-cache")
            self._edits = result.edits
        return self._edits
