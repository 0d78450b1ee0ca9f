"""Which programs a ported tree holds: each unit with a `main`, with the units it links, and what
the program's own build says of it.

A directory with one `main` is one program made of all its units; a directory with several (a
folder of small samples) gives one program per `main`, each built from its own unit. Where the
directory's Makefile names the program's units (its link rule's objects, or `source =`), those are
the program; the Makefile's `run:` recipe, or CTest's `add_test`, gives its command lines, and its
CFLAGS the standard, macros and include paths the build needs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from hipport.buildfiles.recipe import Recipe, RunCommand, program_recipe, source_files
from hipport.verify import translation_units

_MAIN = re.compile(rb"^[ \t]*(?:int|auto)[ \t]+main[ \t]*\(", re.M)


@dataclass(frozen=True)
class Program:
    name: str  # the main unit's path under the tree, for reports
    units: tuple[Path, ...]  # relative to the tree's root, main first
    binary: str | None = None  # the build file's name for it; None: the main unit's stem
    runs: tuple[RunCommand, ...] = ()  # its command lines; none: run once without arguments
    flags: tuple[str, ...] = ()  # compile flags its build file gives (-std=, -D, -I relative to directory)
    nvcc_flags: tuple[str, ...] = ()  # nvcc's own that its build file gives (--extended-lambda, -lcublas)
    origin: str = ""  # the build file the runs come from

    @property
    def directory(self) -> Path:
        return self.units[0].parent

    @property
    def binary_name(self) -> str:
        return self.binary or self.units[0].name.split(".")[0]


def has_main(path: Path) -> bool:
    try:
        return _MAIN.search(path.read_bytes()) is not None
    except OSError:
        return False


def find_programs(root: Path, build_files: Path | None = None, args: tuple[str, ...] | None = None) -> list[Program]:
    """The programs under root. build_files: the tree whose build files say how each is built and
    run (the CUDA original's), root itself when None; args: one command line for every program
    instead of the build files' (verify --args)."""
    if root.is_file():
        found = [Program(root.name, (Path(root.name),))] if has_main(root) else []
    else:
        found = _programs_of_tree(root, build_files or root)
    if args is not None:
        found = [replace(p, runs=(RunCommand(f"./{p.binary_name}", args),), origin="--args") for p in found]
    return found


def _programs_of_tree(root: Path, build_files: Path) -> list[Program]:
    units = [u.relative_to(root) for u in translation_units(root)]
    by_directory: dict[Path, list[Path]] = {}
    for unit in units:
        by_directory.setdefault(unit.parent, []).append(unit)
    programs = []
    for directory in sorted(by_directory):
        members = by_directory[directory]
        recipe = program_recipe(build_files / directory) or program_recipe(root / directory)
        named = _recipe_units(root, directory, recipe) if recipe else []
        if named:
            mains = [u for u in named if has_main(root / u)] or named[:1]
            ordered = (mains[0], *(u for u in named if u != mains[0]))
            programs.append(_with_recipe(Program(mains[0].as_posix(), ordered), recipe))
            continue
        mains = [u for u in members if has_main(root / u)]
        if len(mains) == 1:
            others = tuple(u for u in members if u != mains[0])
            programs.append(_with_recipe(Program(mains[0].as_posix(), (mains[0], *others)), recipe))
        else:
            programs.extend(Program(m.as_posix(), (m,)) for m in mains)
    return programs


def _recipe_units(root: Path, directory: Path, recipe: Recipe) -> list[Path]:
    """The build file's units as they are in root (a port may have renamed a.cu to a.hip)."""
    stems = Recipe(recipe.origin, sources=tuple(str(Path(s).with_suffix("")) for s in recipe.sources))
    exact = source_files(root / directory, recipe)
    found = exact if len(exact) == len(recipe.sources) else source_files(root / directory, stems)
    return [p.relative_to(root) for p in found if p.resolve().is_relative_to((root / directory).resolve())]


def _with_recipe(program: Program, recipe: Recipe | None) -> Program:
    if recipe is None:
        return program
    return replace(
        program,
        binary=recipe.program,
        runs=recipe.runs,
        flags=recipe.flags,
        nvcc_flags=recipe.nvcc_flags,
        origin=recipe.origin if recipe.runs else "",
    )
