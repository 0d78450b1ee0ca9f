"""Files and trees named on a command line, ported in memory: what check, report and shim read.

Nothing is written here. It sits above hipport.tree (a named tree gets the
selection convert makes) and below check, report and shim.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from hipport import porting
from hipport.buildfiles import build_file_kind
from hipport.options import Options
from hipport.porting import PortError, TreeRun
from hipport.project import ProjectHeaders, own_names, project_include_dirs
from hipport.ruleset.model import RuleSet


def analyze(paths: list[Path], rules: RuleSet, options: Options, progress=None) -> TreeRun:
    """Port files and trees in memory only, for check and report: nothing is written.

    Paths are shown as given (a tree's files joined to the tree's path), so the
    output reads like a compiler's and editors can jump to it. progress(done, total, path),
    if given, is called after each file.
    """
    run = TreeRun()
    declares = own_names(rules)
    # the files named one by one (a pre-commit hook's): their project is where the command runs
    loose = ProjectHeaders(declares=declares, root=Path.cwd())
    trees: dict[Path, ProjectHeaders] = {}
    files, run.errors = sources_by_tree(paths)
    for done, (file, tree) in enumerate(files, 1):
        headers = loose
        if tree is not None:  # a named tree's headers are found as convert finds them
            headers = trees.get(tree) or trees.setdefault(
                tree, ProjectHeaders(project_include_dirs(tree), declares, root=tree)
            )
        try:
            if build_file_kind(file.name):
                run.results.append(_build_file(file, rules, options))
            else:
                run.results.append(porting.port_file(file, rules, options, display=file.as_posix(), headers=headers))
        except PortError as exc:
            run.errors.append(str(exc))
        if progress is not None:
            progress(done, len(files), file.as_posix())
    run.results.sort(key=lambda r: r.path)
    return run


def _build_file(path: Path, rules: RuleSet, options: Options):
    """A build file (CMake, Makefile, setup.py) ported in memory: its findings say what will not build."""
    from hipport.buildfiles import BuildSettings, port_build_file

    try:
        data = path.read_bytes()
    except OSError as exc:
        raise PortError(f"{path}: cannot read: {exc.strerror}") from None
    settings = BuildSettings(offload_arch=rules.build.default_arches(options.hip_version))
    return port_build_file(data, rules, settings, path=path.as_posix())


def source_files(paths: list[Path]) -> tuple[list[Path], list[str]]:
    """Files named on a command line, and the sources of the trees named there."""
    files, errors = sources_by_tree(paths)
    return [file for file, _ in files], errors


def sources_by_tree(paths: list[Path]) -> tuple[list[tuple[Path, Path | None]], list[str]]:
    """source_files, each with the tree named that holds it (None for a file named itself).

    Trees get the same selection convert makes: .gitignore'd vendored code is
    not the user's to fix, and links are never followed.
    """
    files: list[tuple[Path, Path | None]] = []
    errors: list[str] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            # Imported here: a pre-commit hook names files, and walking costs pathspec's import.
            from hipport.tree.walk import select

            selection = select(path)
            files.extend((entry.path, path) for entry in (*selection.of_kind("source"), *selection.of_kind("build")))
            errors.extend(selection.errors)
        elif path.exists():
            files.append((path, None))
        else:
            errors.append(missing_path_message(path))
    return files, errors


def missing_path_message(path: Path) -> str:
    """Why a named path cannot be read, for a path whose exists() is False.

    exists() follows links, so a dangling or looping link reads as missing;
    saying "no such file" about a file the user can see in `ls` sends them looking in the wrong place.
    """
    if path.is_symlink():
        try:
            path.resolve(strict=True)
        except RuntimeError:
            return f"{path}: a symbolic link that loops back on itself"
        except OSError as exc:
            if exc.errno == errno.ELOOP:  # how Python 3.13 and later say it
                return f"{path}: a symbolic link that loops back on itself"
        return f"{path}: a symbolic link to {os.readlink(path)}, which does not exist"
    return f"{path}: no such file or directory"
