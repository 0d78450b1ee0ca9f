"""The library API the CLI is a thin layer over."""
from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from hipport.emit.report import build_report, file_entry
from hipport.emit.writer import write_atomic
from hipport.options import Options
from hipport.project import ProjectHeaders
from hipport.rules.engine import FileResult, port_source
from hipport.rules.ruleset import RuleSet

SOURCE_SUFFIXES = frozenset({".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hxx", ".inl", ".hip"})
SKIP_DIRS = frozenset({".git", ".hg", ".svn"})


class PortError(Exception):
    """A problem with the user's input or output paths: reported in one line."""


def port_file(path: Path, rules: RuleSet, options: Options, display: str | None = None,
              headers: ProjectHeaders | None = None) -> FileResult:
    try:
        source = Path(path).read_bytes()
    except OSError as exc:
        raise PortError(f"{path}: cannot read: {exc.strerror}") from None
    headers = headers or ProjectHeaders()
    return port_source(source, rules, options, path=display or str(path),
                       declared_elsewhere=headers.macros_visible_in(path, source))


@dataclass
class TreeRun:
    results: list[FileResult] = field(default_factory=list)
    copied: int = 0
    errors: list[str] = field(default_factory=list)


def iter_tree(root: Path) -> Iterator[Path]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            yield Path(dirpath) / name


def is_source(path: Path) -> bool:
    return path.suffix.lower() in SOURCE_SUFFIXES


def convert_tree(src: Path, out: Path, rules: RuleSet, options: Options,
                 progress: Callable[[Path], None] | None = None) -> TreeRun:
    """Mirror src into out, porting source files and copying the rest."""
    src, out = src.resolve(), out.resolve()
    if out == src or src in out.parents:
        raise PortError(f"{out}: the output directory must not be inside the source tree (use --in-place)")
    headers = ProjectHeaders()

    def mirror(path: Path, rel: Path, run: TreeRun) -> None:
        target = out / rel
        if progress is not None:
            progress(rel)
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink():
            if target.is_symlink() or target.exists():
                target.unlink()
            os.symlink(os.readlink(path), target)
            run.copied += 1
        elif is_source(path):
            result = port_file(path, rules, options, display=rel.as_posix(), headers=headers)
            write_atomic(target, result.output, mode_from=path)
            run.results.append(result)
        else:
            shutil.copy2(path, target)
            run.copied += 1

    return _each_file(src, mirror)


def convert_tree_in_place(src: Path, rules: RuleSet, options: Options) -> TreeRun:
    headers = ProjectHeaders()

    def rewrite(path: Path, rel: Path, run: TreeRun) -> None:
        if path.is_symlink() or not is_source(path):
            return
        result = port_file(path, rules, options, display=rel.as_posix(), headers=headers)
        if result.changed:
            write_atomic(path, result.output, mode_from=path)
        run.results.append(result)

    return _each_file(src, rewrite)


def _each_file(src: Path, step: Callable[[Path, Path, TreeRun], None]) -> TreeRun:
    """Run step on every file of the tree; a failing file is recorded and the rest go on."""
    run = TreeRun()
    for path in iter_tree(src):
        rel = path.relative_to(src)
        try:
            step(path, rel, run)
        except PortError as exc:
            run.errors.append(str(exc))
        except OSError as exc:
            run.errors.append(f"{rel}: {exc.strerror or exc}")
    return run


def analyze(paths: list[Path], rules: RuleSet, options: Options) -> TreeRun:
    """Port files and trees in memory only, for check and report: nothing is written.

    Paths are shown as given (a tree's files joined to the tree's path), so the
    output reads like a compiler's and editors can jump to it.
    """
    run = TreeRun()
    headers = ProjectHeaders()
    for given in paths:
        path = Path(given)
        if path.is_dir():
            files = [p for p in iter_tree(path) if is_source(p) and not p.is_symlink()]
        elif path.exists():
            files = [path]
        else:
            run.errors.append(f"{path}: no such file or directory")
            continue
        for file in files:
            try:
                run.results.append(port_file(file, rules, options, display=file.as_posix(), headers=headers))
            except PortError as exc:
                run.errors.append(str(exc))
    run.results.sort(key=lambda r: r.path)
    return run


def report_for(results: list[FileResult], rules: RuleSet, options: Options, extra: dict | None = None) -> dict:
    return build_report((file_entry(r) for r in results), options.describe(rules.newest_hip), extra)
