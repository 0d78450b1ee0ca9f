"""Names a file's own project declares outside the file itself.

The usual case is an error-check macro (CUDA_CHECK, CUDA_CALL) defined in a
project header: it looks like a CUDA API, but it is the user's, so it must not
be reported as unmapped or rewritten. Includes are followed transitively the
way the compiler looks them up: "quoted" ones relative to the including file,
then in the include directories; <angled> ones in the include directories only
(the project's -I dirs: the tree root, --include-dir, a compile database's), so
an angled include that is not the project's is a system header and not read.
Each header is read once.
Each path probed is looked at once per run too, and what was found there is kept
(found): the answer depends on those paths and nothing else, which is what lets
the tree index (hipport.tree.index) know when a file's macros may have changed.

Beyond macros, a header declares variables, functions and types (`extern
cublasHandle_t cublas_handle;`, `void cudaCheck(...)`): given the rule set
(own_names), the names of those that look like CUDA but no rule knows are the
project's too, so that a file using them gets no HP102 for them. A "quoted"
include found neither beside the file nor in the include directories is looked
for in the folders next to it (its own subfolders, its parent's, the tree
root's), as the project's own -I flags would find it: `train/train.cu` includes
"common.h" from `llmc/` with the Makefile's -Illmc, which hipport cannot see. Only
folders inside the project's root are searched (the tree; for files named one by one, the
directory the command runs in), never beside it.
Each folder listed for that is probed too (its stat, by the path with a
trailing separator), so a folder added later is seen by the tree index.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
from pathlib import Path

from hipport.engine.linkage import RUNTIME_USE, own_header, runtime_via
from hipport.engine.warp.enable import (
    DEVICE_CODE,
    USES_DEVICE_CODE,
    USES_WARP_SYNC,
    WARP_SYNC_CALL,
    calls_group_votes,
    full_mask_mark,
)
from hipport.parse.scan import integer_constants

# A header whose port includes HIP's runtime (device code, CUDA runtime names, a runtime include).
_RUNTIME = "<runtime>"
DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_][A-Za-z0-9_]*)", re.M)
INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*(?:"([^"\r\n]+)"|<([^>\r\n]+)>)', re.M)


def include_names(source: bytes) -> tuple[str, ...]:
    """The names a file includes, in order: "x.h" as x.h, <x.h> as <x.h>."""
    return tuple(
        m.group(1).decode("utf-8", "replace")
        if m.group(1) is not None
        else "<" + m.group(2).decode("utf-8", "replace") + ">"
        for m in INCLUDE.finditer(source)
    )


class ProjectHeaders:
    def __init__(
        self,
        include_dirs: tuple[Path, ...] = (),
        declares: Callable[[bytes], frozenset[str]] | None = None,
        root: Path | None = None,
    ) -> None:
        self.include_dirs = include_dirs
        self.declares = declares  # what a header declares besides macros (own_names), if anything
        self.root = Path(os.path.abspath(root)) if root is not None else None  # the tree, if there is one
        self._macros: dict[Path, frozenset[str]] = {}
        self._includes: dict[Path, tuple[Path, ...]] = {}
        self._probed: dict[Path, tuple[str, ...]] = {}  # header -> the paths its includes probed
        self._runtime: dict[Path, bool] = {}  # header -> whether it or a header it includes gets the runtime
        self._resolved: dict[tuple[Path, str], tuple[Path | None, tuple[str, ...]]] = {}
        # path probed -> its stat when probed (before any read of it), None if it is not a file.
        # A caller may fill it beforehand with stats it took itself (hipport.tree.walk's).
        self.found: dict[str, os.stat_result | None] = {}

    def macros_visible_in(self, path: Path, source: bytes) -> frozenset[str]:
        return self.visible_in(path, source)[0]

    def visible_in(self, path: Path, source: bytes) -> tuple[frozenset[str], frozenset[str], tuple[str, ...]]:
        """The macros, every path probed to find them (each header read and each miss), and the
        names the file itself includes: with those, visible_from answers without the file."""
        includes = include_names(source)
        return (*self.visible_from(Path(path).parent, includes), includes)

    def visible_from(self, directory: Path, includes: tuple[str, ...]) -> tuple[frozenset[str], frozenset[str]]:
        """The macros a file in directory that includes these names sees, and the paths probed."""
        names: set[str] = set()
        seen: set[Path] = set()
        headers, probes = self._resolve_names(directory, includes)
        probed = set(probes)
        pending = list(headers)
        while pending:
            header = pending.pop()
            if header in seen:
                continue
            seen.add(header)
            if header not in self._macros:
                self._read(header)
            names |= self._macros[header]
            pending.extend(self._includes[header])
            probed.update(self._probed[header])
        for name in includes:  # each resolved (and its headers read) above
            included, tried = self._resolve(directory, name)
            if included is None:
                continue
            if self._gets_runtime(included):
                names.add(runtime_via(name))
            if not name.startswith("<") and self._is_file(tried[0]):
                names.add(own_header(name))  # found beside the file, where the compiler looks first
        return frozenset(names), frozenset(probed)

    def _gets_runtime(self, root: Path) -> bool:
        """Whether the port of root, or of a header it includes, includes HIP's runtime (its
        mark from _read): a file including root inside extern "C" includes the runtime first."""
        known = self._runtime.get(root)
        if known is None:
            known = self._runtime[root] = self._reaches_runtime(root)
        return known

    def _reaches_runtime(self, root: Path) -> bool:
        seen: set[Path] = set()
        pending = [root]
        while pending:
            header = pending.pop()
            if header in seen:
                continue
            seen.add(header)
            if _RUNTIME in self._macros[header]:
                return True
            pending.extend(self._includes[header])
        return False

    def _read(self, header: Path) -> None:
        try:
            data = header.read_bytes()
        except OSError:
            data = b""
        if b"generated by hipport shim" in data[:1024]:
            self._macros[header] = frozenset()  # its aliases stand for CUDA names, not the project's own
        else:
            macros = frozenset(m.group(1).decode("ascii") for m in DEFINE.finditer(data))
            if WARP_SYNC_CALL.search(data) or calls_group_votes(data):
                macros |= {USES_WARP_SYNC}
            if re.search(rb"0[xX][fF]{8}\b", data):  # a whole-warp mask the files including it may use
                macros |= {
                    full_mask_mark(name)
                    for name, (value, spelled, _) in integer_constants(data).items()
                    if value == 0xFFFFFFFF and "ll" not in spelled.lower()
                }
            if DEVICE_CODE.search(data):
                macros |= {USES_DEVICE_CODE, _RUNTIME}
            elif RUNTIME_USE.search(data):
                macros |= {_RUNTIME}
            self._macros[header] = macros | self.declares(data) if self.declares is not None else macros
        self._includes[header], self._probed[header] = self._resolve_names(header.parent, include_names(data))

    def _resolve_names(self, directory: Path, names: tuple[str, ...]) -> tuple[tuple[Path, ...], tuple[str, ...]]:
        found: list[Path] = []
        probed: list[str] = []
        for name in names:
            header, tried = self._resolve(directory, name)
            probed.extend(tried)
            if header is not None:
                found.append(header)
        return tuple(found), tuple(probed)

    def _resolve(self, directory: Path, name: str) -> tuple[Path | None, tuple[str, ...]]:
        """The header #include "name" (or <name>) in directory names, and the paths tried, in order."""
        angled = name.startswith("<")
        if angled:
            name, directory = name[1:-1], Path()  # found the same way from every directory
        known = self._resolved.get((directory, name))
        if known is None:
            tried: list[str] = []
            header = None
            for base in self.include_dirs if angled else (directory, *self.include_dirs):
                candidate = base / name
                tried.append(str(candidate))
                if self._is_file(tried[-1]):
                    header = candidate.resolve()
                    break
            if header is None and not angled and not os.path.isabs(name):
                header = self._nearby(directory, name, tried)
            known = self._resolved[directory, name] = (header, tuple(tried))
        return known

    def _nearby(self, directory: Path, name: str, tried: list[str]) -> Path | None:
        """name in a folder next to directory, inside the root: its subfolders, its parent's, the root's."""
        directory = Path(os.path.abspath(directory))
        parents = [directory]
        root = self.root
        if root is not None and root in directory.parents:  # never above the project: beside it is another's
            parents += [directory.parent] if directory.parent == root else [directory.parent, root]
        for parent in parents:
            listing = f"{parent}{os.sep}"
            tried.append(listing)
            if not self._is_file(listing):
                continue
            for folder in _subfolders(parent):
                candidate = folder / name
                tried.append(str(candidate))
                if folder != directory and self._is_file(tried[-1]):
                    return candidate.resolve()
        return None

    def _is_file(self, path: str) -> bool:
        """Whether path is a file (a folder, for a path ending in a separator); its stat is kept."""
        try:
            info = self.found[path]
        except KeyError:
            info = self.found[path] = probe(path)
        return info is not None


def probe(path: str) -> os.stat_result | None:
    """The stat of a regular file at path, or of a folder for a path ending in a separator (its
    times change when an entry is added or removed); None for anything else or nothing."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):  # missing, unreadable, or no file name at all (a NUL byte)
        return None
    wanted = stat.S_ISDIR if path.endswith(os.sep) else stat.S_ISREG
    return info if wanted(info.st_mode) else None


def _subfolders(parent: Path) -> list[Path]:
    try:
        with os.scandir(parent) as entries:
            names = sorted(e.name for e in entries if not e.name.startswith(".") and e.is_dir(follow_symlinks=False))
    except OSError:
        return []
    return [parent / name for name in names]


def own_names(rules) -> Callable[[bytes], frozenset[str]]:
    """What a header declares (variables, functions, types, enumerators, macros) among the names
    that look like CUDA and that no rule knows: without it, each use would be HP102."""
    from hipport.parse.scan import scan
    from hipport.parse.sites import Role
    from hipport.parse.treesitter import TreeSitterBackend

    def unknown(name: str) -> bool:
        return (
            rules.unmapped_re.match(name) is not None
            and name not in rules.names
            and name not in rules.vocabulary
            and name not in rules.namespaces
        )

    memo: dict[bytes, str] = {}

    def declared(data: bytes) -> frozenset[str]:
        candidates = scan(data, unknown, None, memo)
        if not candidates.names:
            return frozenset()
        parsed = TreeSitterBackend().parse(data, candidates, rules.markers)
        return frozenset(site.name for site in parsed.names if site.role is Role.DECLARATION)

    return declared


def project_include_dirs(
    root: Path, extra: tuple[Path, ...] = (), compile_commands: Path | None = None
) -> tuple[Path, ...]:
    """The directories a project's <angled> includes are found in: the tree root, the
    --include-dir ones, and a compile database's -I/-iquote directories inside the root (outside
    it they are CUDA's, a library's or the system's, whose macros are not the project's)."""
    dirs = [Path(os.path.abspath(root)), *(Path(os.path.abspath(d)) for d in extra)]
    if compile_commands is not None:
        from hipport.toolchain import compdb

        try:
            entries = compdb.load(compile_commands)
        except compdb.CompileDatabaseError:
            entries = {}  # the clang parse that reads it too reports it
        inside = f"{dirs[0]}{os.sep}"
        for entry in entries.values():
            for directory in _include_flags(entry.flags):
                if directory == str(dirs[0]) or directory.startswith(inside):
                    dirs.append(Path(directory))
    return tuple(dict.fromkeys(dirs))


def _include_flags(flags: tuple[str, ...]) -> list[str]:
    found = []
    for index, flag in enumerate(flags):
        for option in ("-I", "-iquote"):
            if flag == option and index + 1 < len(flags):
                found.append(os.path.normpath(flags[index + 1]))
            elif flag.startswith(option) and len(flag) > len(option) and not flag.startswith("-isystem"):
                found.append(os.path.normpath(flag[len(option) :]))
    return found
