"""Writing a converted tree: its mirror into OUT, each file atomically, never through a link in OUT;
or in place, after the git-state checks, with backups where asked.

A part of hipport.tree.run's TreeConversion.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from functools import partial
from pathlib import Path

from hipport.emit.writer import (
    TEMP_SUFFIX,
    check_writable,
    copy_atomic,
    create_atomic,
    remove_stale_temporaries,
    symlink_atomic,
    write_atomic,
)
from hipport.engine.port import FileResult
from hipport.porting import PortError, TreeRun
from hipport.tree.interrupt import HeldInterrupts
from hipport.tree.rename import RenamePlan
from hipport.tree.safety import backup_suffix, check_in_place, git_state
from hipport.tree.settings import TreeSettings
from hipport.tree.walk import Entry

# Errors every later write would meet too: the run stops at the first.
# (what a step writes, the step, the source it reads: a read error is reported as such)
Step = tuple[Path, Callable[[], object], Path | None]
_STOPPING = frozenset(getattr(errno, name) for name in ("ENOSPC", "EDQUOT", "EROFS") if hasattr(errno, name))


class MirrorWriting:
    """The writing half of TreeConversion, which sets these attributes."""

    src: Path
    run: TreeRun
    plan: RenamePlan | None
    by_rel: dict[str, FileResult]
    copies: list[Entry]
    links: list[Entry]
    dirs: list[Entry]
    _checked_dirs: set[str]
    _linked_dirs: set[str]
    _streamed: dict[str, list[str]]
    _opened: Path | None
    settings: TreeSettings
    temporary: list[Path]

    def _open_mirror(self, out: Path) -> Path:
        if self._opened is None:
            out = Path(out)
            try:
                out.mkdir(parents=True, exist_ok=True)
                check_writable(out)  # one line for a read-only OUT, not one per file
            except OSError as exc:
                raise PortError(f"{out}: cannot write: {exc.strerror or exc}") from None
            remove_stale_temporaries(_temporaries(out))
            self._opened = out
        return self._opened

    def write_mirror(self, out: Path) -> None:
        out = self._open_mirror(out)
        src_real = self.src.resolve()
        steps: list[Step] = []
        for entry in self.dirs:
            steps.append((out / entry.rel, partial(self._mkdir, out, entry.rel), None))
        for rel, result in sorted(self.by_rel.items()):
            if rel in self._streamed:
                if self._streamed[rel]:  # (most have none: no step, no path made for them)
                    steps.append((out / rel, partial(self.run.errors.extend, self._streamed[rel]), None))
                continue
            target = out / self._target(rel)
            steps.append((target, partial(self._write, out, target, result.output, self.src / rel), None))
        for entry in sorted(self.copies, key=lambda e: e.rel):
            steps.append((out / entry.rel, partial(self._copy, out, entry.path, out / entry.rel), entry.path))
        for entry in self.links:
            steps.append((out / entry.rel, partial(self._link, entry, out, src_real), None))
        self._run_steps(steps)

    def _run_steps(self, steps: list[Step]) -> None:
        with HeldInterrupts() as held:
            for target, step, source in steps:
                held.check()
                self._guard(target, step, source)

    def _mkdir(self, out: Path, rel: str) -> None:
        if not self._link_in_the_way(out, rel + "/"):
            (out / rel).mkdir(parents=True, exist_ok=True)

    def _link_in_the_way(self, out: Path, rel: str) -> bool:
        """True (reported once) if a directory between OUT and rel is a link: say an earlier run's
        mirror of what was a link then. Writing through it would write outside OUT."""
        parts = rel.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            directory = "/".join(parts[:depth])
            if directory in self._linked_dirs:
                return True
            if directory in self._checked_dirs:
                continue
            if (out / directory).is_symlink():
                self._linked_dirs.add(directory)
                self.run.errors.append(
                    f"{out / directory}: a symbolic link in the output; hipport does not "
                    "write through it (remove it and run again)"
                )
                return True
            self._checked_dirs.add(directory)
        return False

    def _target(self, rel: str) -> str:
        return self.plan.target(rel) if self.plan is not None else rel

    def _write(self, out: Path, target: Path, data: bytes, mode_from: Path) -> os.stat_result | None:
        """Make target hold data; its stat then (taken before the read that found it right, or
        after writing it), for the tree index."""
        if self._link_in_the_way(out, target.relative_to(out).as_posix()):
            return None
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            before = os.lstat(target)
            if stat.S_ISREG(before.st_mode) and target.read_bytes() == data:
                return before  # a rerun into the same OUT leaves unchanged files (and their times) alone
        except OSError:
            pass
        # A mirror file replaces only an earlier port: a kill still leaves it old or new, and the
        # per-file fsync that guards in-place writes against power loss would be most of the run.
        write_atomic(target, data, mode_from=mode_from, durable=False)
        self.run.written += 1
        try:
            return os.lstat(target)
        except OSError:
            return None

    def _copy(self, out: Path, source: Path, target: Path) -> None:
        if self._link_in_the_way(out, target.relative_to(out).as_posix()):
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            here, there = source.stat(), target.lstat()
            if not target.is_symlink() and (here.st_size, here.st_mtime_ns) == (there.st_size, there.st_mtime_ns):
                return
        except OSError:
            pass
        copy_atomic(source, target, durable=False)

    def _link(self, entry: Entry, out: Path, src_real: Path) -> None:
        target = os.readlink(entry.path)
        if os.path.isabs(target):
            real = Path(target)
            if real == src_real or src_real in real.parents:
                target = str(out.resolve() / real.relative_to(src_real))  # into the mirror, as it was into SRC
        else:
            pointed = Path(os.path.normpath(entry.path.parent.resolve() / target))
            if pointed != src_real and src_real not in pointed.parents:
                target = str(pointed)  # outside the tree: keep pointing at the same file
            elif self.plan is not None:
                target = self.plan.link_target(entry.rel, target)
        link = out / entry.rel
        if self._link_in_the_way(out, entry.rel):
            return
        link.parent.mkdir(parents=True, exist_ok=True)
        if link.is_symlink() and os.readlink(link) == target:
            return
        symlink_atomic(target, link)

    def _guard(self, target: Path, step, source: Path | None = None) -> None:
        try:
            step()
        except OSError as exc:
            if source is not None and exc.filename is not None and os.fspath(exc.filename) == os.fspath(source):
                self.run.errors.append(f"{source}: cannot read: {exc.strerror}")
                return
            message = f"{target}: cannot write: {exc.strerror or exc}"
            if exc.errno in _STOPPING:
                raise PortError(
                    f"{message}; stopped with {self.run.written} file(s) written, none of them partly"
                ) from None
            self.run.errors.append(message)

    # -- writing in place -------------------------------------------------------------------

    def write_in_place(self) -> None:
        changes = [
            (rel, self._target(rel), r)
            for rel, r in sorted(self.by_rel.items())
            if r.changed or self._target(rel) != rel
        ]
        touched = [self.src / rel for rel, _, _ in changes] + [self.src / new for rel, new, _ in changes if new != rel]
        state = git_state(self.src)
        check_in_place(state, touched, self.settings.force)
        suffix = backup_suffix(state, touched, self.settings.backup_suffix)
        remove_stale_temporaries(self.temporary)
        steps: list[Step] = [
            (self.src / rel, partial(self._replace, rel, new, result, suffix), self.src / rel)
            for rel, new, result in changes
        ]
        if self.plan is not None:
            steps += [(entry.path, partial(self._retarget, entry), None) for entry in self.links]
        self._run_steps(steps)

    def _replace(self, rel: str, new: str, result: FileResult, suffix: str) -> None:
        path = self.src / rel
        current = _read_if_there(path)
        if current != result.source:
            # Another hipport run may have ported it meanwhile; anything else is someone's edit to keep.
            done = _read_if_there(self.src / new) if new != rel and current is None else current
            if done != result.output:
                self.run.errors.append(f"{path}: changed while hipport ran; left as it is (run again to port it)")
            return
        # The backup holds the bytes just compared, created only if none exists: a second run, or
        # a concurrent one, never replaces the original with a port.
        if suffix and create_atomic(path.with_name(path.name + suffix), current, stat_from=path):
            self.run.backups += 1
        write_atomic(self.src / new, result.output, mode_from=path)
        self.run.written += 1
        if new != rel:
            os.unlink(path)

    def _retarget(self, entry: Entry) -> None:
        target = os.readlink(entry.path)
        assert self.plan is not None  # links are retargeted only with --rename
        new = self.plan.link_target(entry.rel, target)
        if new != target:
            symlink_atomic(new, entry.path)


def _read_if_there(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _temporaries(directory: Path):
    for dirpath, dirnames, filenames in os.walk(directory):
        for name in dirnames + filenames:
            if name.endswith(TEMP_SUFFIX):
                yield Path(dirpath) / name
