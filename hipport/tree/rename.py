"""--rename: .cu -> .hip and .cuh -> .hip.h, and every reference to a renamed file.

References are #include lines of project files and paths in build files.
A path is matched the way a compiler or make would find it: relative to the
file that names it, then to the tree's root, then as the unique renamed file
whose path ends with it (headers found through -I directories).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from hipport.diagnostics import Edit

DEFAULT_SUFFIXES = ((".cu", ".hip"), (".cuh", ".hip.h"))
_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*(["<])([^">\r\n]+)[">]', re.M)
_LEADING_VARIABLE = re.compile(r"^(?:\$[({][^)}]*[)}]/)+")


def parse_suffix_map(items) -> tuple[tuple[str, str], ...]:
    """'.cu=.hip' items -> pairs, longest old suffix first so .cuh wins over .cu."""
    pairs = dict(DEFAULT_SUFFIXES)
    for item in items:
        old, sep, new = item.partition("=")
        if not sep or not old.startswith(".") or not new.startswith(".") or "/" in old + new:
            raise ValueError(f"--rename-suffix wants OLD=NEW like .cu=.hip, got {item!r}")
        pairs[old] = new
    return tuple(sorted(pairs.items(), key=lambda kv: -len(kv[0])))


def renamed_suffix(path: str, suffixes) -> str | None:
    for old, new in suffixes:
        if path.endswith(old):
            return path[: -len(old)] + new
    return None


@dataclass
class RenamePlan:
    suffixes: tuple[tuple[str, str], ...]
    moves: dict[str, str] = field(default_factory=dict)  # old rel -> new rel
    collisions: dict[str, str] = field(default_factory=dict)  # old rel -> the existing rel it would replace

    @classmethod
    def build(cls, sources: list[str], every_path: set[str], suffixes) -> RenamePlan:
        plan = cls(tuple(suffixes))
        taken = set(every_path)
        for rel in sorted(sources):
            new = renamed_suffix(rel, plan.suffixes)
            if new is None or posixpath.basename(rel) in dict(plan.suffixes):
                continue
            if new in taken:
                plan.collisions[rel] = new
                continue
            taken.add(new)
            plan.moves[rel] = new
        return plan

    def target(self, rel: str) -> str:
        return self.moves.get(rel, rel)

    def resolve(self, name: str, from_dir: str, allow_relative: bool = True) -> str | None:
        """The renamed file a reference means, or None."""
        name = name.replace("\\", "/")
        if allow_relative:
            for base in (from_dir, ""):
                candidate = posixpath.normpath(posixpath.join(base, name))
                if candidate in self.moves:
                    return candidate
        tail = posixpath.normpath(name).lstrip("/")
        if tail.startswith("../") or tail == "..":
            return None
        matches = [rel for rel in self.moves if rel == tail or rel.endswith("/" + tail)]
        return matches[0] if len(matches) == 1 else None

    def include_edits(self, source: bytes, rel: str) -> list[Edit]:
        """Edits to #include lines naming renamed project headers."""
        if not self.moves:
            return []
        edits = []
        here = posixpath.dirname(rel)
        for m in _INCLUDE.finditer(source):
            name = m.group(2).decode("utf-8", "surrogateescape")
            found = self.resolve(name, here, allow_relative=m.group(1) == b'"')
            if found is None:
                continue
            new = renamed_suffix(name, self.suffixes)
            if new is not None and posixpath.basename(self.moves[found]) == posixpath.basename(new):
                edits.append(Edit(m.start(2), m.end(2), new.encode("utf-8", "surrogateescape")))
        return edits

    def build_file_renamer(self, build_rel: str):
        """The callback a build-file port uses for each .cu path it meets."""
        here = posixpath.dirname(build_rel)

        def rename(text: str) -> str | None:
            if "%" in text or "*" in text or text in dict(self.suffixes):
                # a pattern (%.cu, *.cu) or a bare suffix ($(SRCS:.cu=.o)): every match is renamed
                return renamed_suffix(text, self.suffixes)
            # ${CMAKE_CURRENT_SOURCE_DIR}/a.cu, $(SRC)/a.cu: the file's or the root's directory, or a unique tail.
            found = self.resolve(_LEADING_VARIABLE.sub("", text), here)
            if found is None:
                return None
            return renamed_suffix(text, self.suffixes)

        return rename

    def link_target(self, link_rel: str, target: str) -> str:
        """A relative symbolic link to a renamed file points to its new name."""
        if target.startswith("/"):
            return target
        pointed = posixpath.normpath(posixpath.join(posixpath.dirname(link_rel), target))
        if pointed not in self.moves:
            return target
        return renamed_suffix(target, self.suffixes) or target
