"""Which programs a ported tree holds: each unit with a `main`, with the units it links.

A directory with one `main` is one program made of all its units; a directory
with several (a folder of small samples) gives one program per `main`, each
built from its own unit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from hipport.verify import translation_units

_MAIN = re.compile(rb"^[ \t]*(?:int|auto)[ \t]+main[ \t]*\(", re.M)


@dataclass(frozen=True)
class Program:
    name: str  # the main unit's path under the tree, for reports
    units: tuple[Path, ...]  # relative to the tree's root, main first

    @property
    def directory(self) -> Path:
        return self.units[0].parent


def has_main(path: Path) -> bool:
    try:
        return _MAIN.search(path.read_bytes()) is not None
    except OSError:
        return False


def find_programs(root: Path) -> list[Program]:
    if root.is_file():
        return [Program(root.name, (Path(root.name),))] if has_main(root) else []
    units = [u.relative_to(root) for u in translation_units(root)]
    by_directory: dict[Path, list[Path]] = {}
    for unit in units:
        by_directory.setdefault(unit.parent, []).append(unit)
    programs = []
    for directory in sorted(by_directory):
        members = by_directory[directory]
        mains = [u for u in members if has_main(root / u)]
        if len(mains) == 1:
            others = tuple(u for u in members if u != mains[0])
            programs.append(Program(mains[0].as_posix(), (mains[0], *others)))
        else:
            programs.extend(Program(m.as_posix(), (m,)) for m in mains)
    return programs
