"""The library API the CLI is a thin layer over."""
from __future__ import annotations

import errno
import os
from dataclasses import dataclass, field
from pathlib import Path

from hipport.emit.report import build_report, file_entry
from hipport.options import Options
from hipport.parse import backend_for
from hipport.project import ProjectHeaders
from hipport.engine.port import FileResult, port_source
from hipport.ruleset.model import RuleSet

SOURCE_SUFFIXES = frozenset({".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hxx", ".inl", ".hip"})


class PortError(Exception):
    """A problem with the user's input or output paths: reported in one line."""


def port_file(path: Path, rules: RuleSet, options: Options, display: str | None = None,
              headers: ProjectHeaders | None = None) -> FileResult:
    try:
        source = Path(path).read_bytes()
    except OSError as exc:
        raise PortError(f"{path}: cannot read: {exc.strerror}") from None
    headers = headers or ProjectHeaders()
    return port_bytes(source, rules, options, display or str(path), path, headers.macros_visible_in(path, source))


def port_bytes(source: bytes, rules: RuleSet, options: Options, display: str, path: Path | str | None = None,
               declared: frozenset[str] = frozenset()) -> FileResult:
    """Port bytes read from path (the parser backend may need the file itself), shown as display."""
    if options.mode == "shim":
        from hipport.shim import convert_file_result

        return convert_file_result(source, rules, options, path=display, declared_elsewhere=declared)
    return port_source(source, rules, options, path=display, backend=backend_for(options, path or display),
                       declared_elsewhere=declared)


@dataclass
class TreeRun:
    results: list[FileResult] = field(default_factory=list)
    copied: int = 0
    errors: list[str] = field(default_factory=list)
    # convert on a tree (hipport.tree): what the run did beyond porting
    cached: int = 0  # sources served from the incremental cache
    skipped: int = 0  # left out by .gitignore or --exclude
    build_files: int = 0
    binary: int = 0  # files with a source or build-file name that hold binary data: copied
    written: int = 0
    backups: int = 0
    renamed: dict[str, str] = field(default_factory=dict)  # old path -> new path, with --rename
    notices: list[str] = field(default_factory=list)  # worth saying, not failures: FIFOs left out


def convert_tree(src: Path, out: Path, rules: RuleSet, options: Options, settings=None) -> TreeRun:
    """Mirror src into out: sources ported, build files migrated, the rest copied (hipport.tree).

    A source's result lets its source and output bytes go once they are written, unless the run
    renames files: they are in out, and result.changed still answers."""
    from hipport.tree.run import convert_tree as run

    return run(src, out, rules, options, settings)


def convert_tree_in_place(src: Path, rules: RuleSet, options: Options, settings=None) -> TreeRun:
    """Port src's sources and build files in place, atomically, after git-state checks (hipport.tree)."""
    from hipport.tree.run import convert_tree_in_place as run

    return run(src, rules, options, settings)


def analyze(paths: list[Path], rules: RuleSet, options: Options) -> TreeRun:
    """Port files and trees in memory only, for check and report: nothing is written.

    Paths are shown as given (a tree's files joined to the tree's path), so the
    output reads like a compiler's and editors can jump to it.
    """
    run = TreeRun()
    headers = ProjectHeaders()
    files, run.errors = source_files(paths)
    for file in files:
        try:
            run.results.append(port_file(file, rules, options, display=file.as_posix(), headers=headers))
        except PortError as exc:
            run.errors.append(str(exc))
    run.results.sort(key=lambda r: r.path)
    return run


def source_files(paths: list[Path]) -> tuple[list[Path], list[str]]:
    """Files named on a command line, and the sources of the trees named there.

    Trees get the same selection convert makes: .gitignore'd vendored code is
    not the user's to fix, and links are never followed.
    """
    files, errors = [], []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            # Imported here: a pre-commit hook names files, and walking costs pathspec's import.
            from hipport.tree.walk import select

            selection = select(path)
            files.extend(entry.path for entry in selection.of_kind("source"))
            errors.extend(selection.errors)
        elif path.exists():
            files.append(path)
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


def report_for(results: list[FileResult], rules: RuleSet, options: Options, extra: dict | None = None,
               root: str | None = None) -> dict:
    """The JSON report with its derived numbers; root: what the file paths are relative to, if not the cwd."""
    from hipport.report import complete

    report = build_report((file_entry(r) for r in results), options.describe(rules.newest_hip), extra)
    if root is not None:
        report = {**{k: report.pop(k) for k in ("schema", "tool", "options")}, "root": root, **report}
    return complete(report, rules)
