"""Which files of a tree hipport ports, copies, keeps as links, or leaves out.

.gitignore files are honoured the way git reads them (each relative to its
directory, deeper files winning, an ignored directory never entered, and a file
git tracks never ignored: a `.gitkeep` committed under an ignored `results/`
stays, and so does the folder holding it), and so are --exclude and --include
patterns, written in the same gitignore syntax.
Symbolic links are listed as links and never followed. FIFOs, sockets and
devices are listed as special and never opened: reading a FIFO would wait for
a writer forever.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from hipport.porting import SOURCE_SUFFIXES
from hipport.buildfiles import build_file_kind
from hipport.emit.writer import TEMP_SUFFIX

VCS_DIRS = frozenset({".git", ".hg", ".svn"})
BINARY_SNIFF = 8000  # bytes git looks at to call a file binary


@dataclass(frozen=True)
class Filters:
    include: tuple[str, ...] = ()  # when given, only matching files are ported; the rest are copied
    exclude: tuple[str, ...] = ()  # matching files and directories are left out altogether
    gitignore: bool = True
    source_suffixes: frozenset[str] = SOURCE_SUFFIXES
    build_files: bool = True
    backup_suffixes: tuple[str, ...] = (".prehip",)  # --in-place backups: copied, never ported again


class Entry:
    """A file, directory or link of the tree.

    rel: POSIX path relative to the tree's root; kind: source | build | copy | link | dir |
    special (FIFO, socket, device); stat: a file's lstat, taken as it was listed, before
    anything read it (hipport.tree.index). path is made when first asked for: a rerun that
    the tree index serves never asks for most files' paths.
    """

    __slots__ = ("rel", "kind", "stat", "_directory", "_name", "_path")

    def __init__(
        self,
        rel: str,
        path: Path | None,
        kind: str,
        stat: os.stat_result | None = None,
        directory: Path | None = None,
        name: str = "",
    ) -> None:
        self.rel, self.kind, self.stat = rel, kind, stat
        self._path, self._directory, self._name = path, directory, name

    @property
    def path(self) -> Path:
        if self._path is None:
            assert self._directory is not None  # an Entry has a path or a directory and name
            self._path = self._directory / self._name
        return self._path

    def __eq__(self, other) -> bool:
        if not isinstance(other, Entry):
            return NotImplemented
        return (self.rel, self.path, self.kind) == (other.rel, other.path, other.kind)

    def __hash__(self) -> int:
        return hash((self.rel, self.kind))

    def __repr__(self) -> str:
        return f"Entry(rel={self.rel!r}, path={self.path!r}, kind={self.kind!r})"


@dataclass
class Selection:
    entries: list[Entry] = field(default_factory=list)  # sorted by rel
    skipped: list[str] = field(default_factory=list)  # ignored or excluded (directories end in '/')
    errors: list[str] = field(default_factory=list)  # directories that could not be listed
    temporary: list[Path] = field(default_factory=list)  # temporary files a killed run left behind

    def of_kind(self, *kinds: str) -> list[Entry]:
        return [e for e in self.entries if e.kind in kinds]


def is_binary(data: bytes) -> bool:
    return b"\0" in data[:BINARY_SNIFF]


def select(root: Path, filters: Filters = Filters()) -> Selection:
    root = Path(root)
    selection = Selection()
    ignores = _Ignores(root, filters.gitignore)
    exclude = _spec(filters.exclude) if filters.exclude else None
    include = _spec(filters.include) if filters.include else None
    backups = tuple(suffix for suffix in filters.backup_suffixes if suffix)

    def left_out(rel: str, is_dir: bool) -> bool:
        probe = rel + "/" if is_dir else rel
        return (exclude is not None and exclude.match_file(probe)) or ignores.ignored(rel, is_dir)

    def unlisted(exc: OSError) -> None:  # os.walk would pass over the directory in silence
        selection.errors.append(f"{exc.filename}: cannot list directory: {exc.strerror}")

    for dirpath, dirnames, filenames in os.walk(root, onerror=unlisted):
        here = Path(dirpath)
        base = here.relative_to(root).as_posix()
        base = "" if base == "." else base + "/"
        ignores.enter(base, here)
        kept_dirs = []
        for name in sorted(dirnames):
            rel = base + name
            if name in VCS_DIRS:
                continue
            if name.endswith(TEMP_SUFFIX):  # symlink_atomic's, pointing at a directory
                selection.temporary.append(here / name)
                continue
            if left_out(rel, True):
                selection.skipped.append(rel + "/")
            elif (here / name).is_symlink():
                selection.entries.append(Entry(rel, here / name, "link"))
            else:
                kept_dirs.append(name)
                selection.entries.append(Entry(rel, here / name, "dir"))
        dirnames[:] = kept_dirs
        for name in sorted(filenames):
            rel = base + name
            if name.endswith(TEMP_SUFFIX):
                selection.temporary.append(here / name)
                continue
            if left_out(rel, False):
                selection.skipped.append(rel)
                continue
            kind, info = _kind(rel, f"{dirpath}{os.sep}{name}", filters, include, backups)
            selection.entries.append(Entry(rel, None, kind, info, here, name))
    selection.entries.sort(key=lambda e: e.rel)
    selection.skipped.sort()
    return selection


def special_kind(path: Path) -> str:
    try:
        mode = path.lstat().st_mode
    except OSError:
        return "special file"
    for test, name in (
        (stat.S_ISFIFO, "FIFO"),
        (stat.S_ISSOCK, "socket"),
        (stat.S_ISCHR, "character device"),
        (stat.S_ISBLK, "block device"),
    ):
        if test(mode):
            return name
    return "special file"


def _kind(
    rel: str, path: str, filters: Filters, include, backups: tuple[str, ...]
) -> tuple[str, os.stat_result | None]:
    try:
        info = os.lstat(path)
    except OSError:
        return _kind_of_regular(rel, filters, include, backups), None  # vanished or unreadable: reading says why
    if stat.S_ISLNK(info.st_mode):
        return "link", None
    if not stat.S_ISREG(info.st_mode):
        return "special", None
    return _kind_of_regular(rel, filters, include, backups), info


def _kind_of_regular(rel: str, filters: Filters, include, backups: tuple[str, ...]) -> str:
    if include is not None and not include.match_file(rel):
        return "copy"
    if backups and rel.endswith(backups):
        return "copy"
    if _suffix(rel).lower() in filters.source_suffixes:
        return "source"
    if filters.build_files and build_file_kind(rel):
        return "build"
    return "copy"


def _suffix(rel: str) -> str:
    """Path(rel).suffix, without making a Path: this runs for every file of the tree."""
    name = rel[rel.rfind("/") + 1 :]
    dot = name.rfind(".")
    return name[dot:] if 0 < dot < len(name) - 1 else ""


def _spec(lines):
    """Patterns in gitignore syntax. pathspec is imported here: a tree with no .gitignore and no
    --include or --exclude never needs it, and importing it costs more than walking a small tree."""
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(lines)


class _Ignores:
    """The .gitignore files seen so far, by the directory they sit in."""

    def __init__(self, root: Path, enabled: bool) -> None:
        self.enabled = enabled
        self.root = root
        self.specs: dict = {}  # base -> pathspec.GitIgnoreSpec
        self._tracked: frozenset[str] | None = None  # what git tracks under root, and the folders on the way
        if enabled:
            exclude = root / ".git" / "info" / "exclude"
            self._load("", exclude)
            if "" in self.specs:
                self.specs["\0info"] = self.specs.pop("")  # lowest precedence, root-relative

    def enter(self, base: str, directory: Path) -> None:
        if self.enabled:
            self._load(base, directory / ".gitignore")

    def _load(self, base: str, file: Path) -> None:
        try:
            lines = file.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return
        self.specs[base] = _spec(lines)

    def ignored(self, rel: str, is_dir: bool) -> bool:
        if not self.specs:
            return False
        return self._ignored(rel, is_dir) and rel not in self.tracked()

    def tracked(self) -> frozenset[str]:
        """The files git tracks under the root and their folders, relative to it; asked once, and
        only when something would be ignored. Empty outside a git work tree or without git."""
        if self._tracked is None:
            self._tracked = _tracked_paths(self.root)
        return self._tracked

    def _ignored(self, rel: str, is_dir: bool) -> bool:
        parts = rel.split("/")
        # The deepest .gitignore with an opinion decides; .git/info/exclude comes last.
        for depth in range(len(parts) - 1, -1, -1):
            base = "/".join(parts[:depth]) + "/" if depth else ""
            spec = self.specs.get(base)
            if spec is None:
                continue
            verdict = spec.check_file(rel[len(base) :] + ("/" if is_dir else "")).include
            if verdict is not None:
                return verdict
        info = self.specs.get("\0info")
        if info is not None:
            verdict = info.check_file(rel + ("/" if is_dir else "")).include
            return bool(verdict)
        return False


def _tracked_paths(root: Path) -> frozenset[str]:
    git = shutil.which("git")
    if git is None:
        return frozenset()
    try:
        listed = subprocess.run(
            [git, "-C", str(root), "ls-files", "-z", "--cached"],
            capture_output=True,
            env=dict(os.environ, LC_ALL="C", GIT_OPTIONAL_LOCKS="0"),
        )
    except OSError:
        return frozenset()
    if listed.returncode != 0:
        return frozenset()  # not a work tree
    paths: set[str] = set()
    for raw in listed.stdout.split(b"\0"):
        if not raw:
            continue
        rel = os.fsdecode(raw)
        paths.add(rel)
        slash = rel.rfind("/")
        while slash > 0 and rel[:slash] not in paths:
            rel = rel[:slash]
            paths.add(rel)
            slash = rel.rfind("/")
    return frozenset(paths)
