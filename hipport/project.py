"""Names a file's own project declares outside the file itself.

The usual case is an error-check macro (CUDA_CHECK, CUDA_CALL) defined in a
project header: it looks like a CUDA API, but it is the user's, so it must not
be reported as unmapped or rewritten. Quoted includes are followed
transitively, relative to the including file, and each header is read once.
"""
from __future__ import annotations

import re
from pathlib import Path

DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_][A-Za-z0-9_]*)", re.M)
LOCAL_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\r\n]+)"', re.M)


class ProjectHeaders:
    def __init__(self, include_dirs: tuple[Path, ...] = ()) -> None:
        self.include_dirs = include_dirs
        self._macros: dict[Path, frozenset[str]] = {}
        self._includes: dict[Path, tuple[Path, ...]] = {}

    def macros_visible_in(self, path: Path, source: bytes) -> frozenset[str]:
        names: set[str] = set()
        seen: set[Path] = set()
        pending = list(self._resolve_all(Path(path).parent, source))
        while pending:
            header = pending.pop()
            if header in seen:
                continue
            seen.add(header)
            if header not in self._macros:
                self._read(header)
            names |= self._macros[header]
            pending.extend(self._includes[header])
        return frozenset(names)

    def _read(self, header: Path) -> None:
        try:
            data = header.read_bytes()
        except OSError:
            data = b""
        self._macros[header] = frozenset(m.group(1).decode("ascii") for m in DEFINE.finditer(data))
        self._includes[header] = tuple(self._resolve_all(header.parent, data))

    def _resolve_all(self, directory: Path, source: bytes):
        for m in LOCAL_INCLUDE.finditer(source):
            name = m.group(1).decode("utf-8", "replace")
            for base in (directory, *self.include_dirs):
                candidate = base / name
                if candidate.is_file():
                    yield candidate.resolve()
                    break
