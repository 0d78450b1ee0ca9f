"""A ported tree's include graph, followed the way the compiler follows it.

"x.h" is looked for beside the including file, then in the include directories; <x.h> in
the include directories, then beside the including file (verify puts a unit's folder last on
its include path, as a build's -I. does). Only files inside the tree count (project headers): a
system or library header is never a place the report could have predicted anything.
#if branches are not evaluated, so a header behind `#ifdef _WIN32` counts as included:
for "which findings could explain this failure" one header too many costs nothing.

A .cu (or .cpp) file that another file #includes is a header, not a translation unit:
compiling it alone would judge a fragment that never builds on its own.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^">\r\n]+)[">]', re.M)
# Files an #include may name that are worth reading for their own includes.
_TEXT_SUFFIXES = frozenset(
    {".cu", ".cuh", ".hip", ".h", ".hh", ".hpp", ".hxx", ".inl", ".inc", ".cpp", ".cc", ".cxx", ".c", ".tcc", ".ipp"}
)
_MAX_READ = 4 << 20


class IncludeGraph:
    def __init__(self, root: Path, include_dirs: tuple[Path, ...] = ()) -> None:
        self.root = Path(os.path.abspath(root))
        self.include_dirs = tuple(Path(os.path.abspath(d)) for d in include_dirs)
        self._direct: dict[Path, tuple[Path, ...]] = {}

    def inside(self, path: Path) -> bool:
        return path == self.root or self.root in path.parents

    def direct(self, path: Path) -> tuple[Path, ...]:
        """The project files path includes itself, in order."""
        path = Path(os.path.abspath(path))
        if path not in self._direct:
            resolved = (
                self._resolve(path.parent, quote == b'"', name.decode("utf-8", "replace"))
                for quote, name in _includes(path)
            )
            self._direct[path] = tuple(p for p in resolved if p is not None)
        return self._direct[path]

    def headers(self, unit: Path) -> list[Path]:
        """Every project file unit includes, directly or not, in first-reached order."""
        unit = Path(os.path.abspath(unit))
        seen = {unit}
        order: list[Path] = []
        pending = list(reversed(self.direct(unit)))
        while pending:
            header = pending.pop()
            if header in seen:
                continue
            seen.add(header)
            order.append(header)
            pending.extend(reversed(self.direct(header)))
        return order

    def _resolve(self, directory: Path, quoted: bool, name: str) -> Path | None:
        # verify compiles each unit with its own folder last on the include path (unit_include_dirs),
        # so an angled name is found there too: `#include <kernel.cu>` beside the unit is its fragment
        candidates = (directory, *self.include_dirs) if quoted else (*self.include_dirs, directory)
        for base in candidates:
            found = Path(os.path.normpath(base / name))
            if self.inside(found) and found.is_file():
                return found
        return None


def _includes(path: Path) -> list[tuple[bytes, bytes]]:
    if path.suffix.lower() not in _TEXT_SUFFIXES and path.suffix:
        return []
    try:
        with open(path, "rb") as f:
            data = f.read(_MAX_READ)
    except OSError:
        return []
    return [(m.group(1), m.group(2).strip()) for m in INCLUDE.finditer(data)]


def included_files(graph: IncludeGraph, files: list[Path]) -> set[Path]:
    """The files among files (and beyond) that some file in files #includes."""
    found: set[Path] = set()
    for path in files:
        found.update(graph.direct(path))
    return found
