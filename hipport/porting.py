"""Port one file's bytes: the operation every command and the tree run share.

It sits below tree/, check, report and shim so that none of them reaches up to
hipport.api (the public facade) for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from hipport.engine.port import FileResult, port_source
from hipport.options import Options
from hipport.parse import backend_for
from hipport.project import ProjectHeaders
from hipport.ruleset.model import RuleSet

SOURCE_SUFFIXES = frozenset({".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hh", ".hpp", ".hxx", ".inl", ".hip"})


class PortError(Exception):
    """A problem with the user's input or output paths: reported in one line."""


def port_file(
    path: Path, rules: RuleSet, options: Options, display: str | None = None, headers: ProjectHeaders | None = None
) -> FileResult:
    try:
        source = Path(path).read_bytes()
    except OSError as exc:
        raise PortError(f"{path}: cannot read: {exc.strerror}") from None
    headers = headers or ProjectHeaders()
    return port_bytes(source, rules, options, display or str(path), path, headers.macros_visible_in(path, source))


def port_bytes(
    source: bytes,
    rules: RuleSet,
    options: Options,
    display: str,
    path: Path | str | None = None,
    declared: frozenset[str] = frozenset(),
) -> FileResult:
    """Port bytes read from path (the parser backend may need the file itself), shown as display."""
    if options.mode == "shim":
        # Imported here: only --mode shim needs it, and a pre-commit check's start-up should not pay for it.
        from hipport.engine.port.shim_mode import convert_file_result

        return convert_file_result(source, rules, options, path=display, declared_elsewhere=declared)
    return port_source(
        source, rules, options, path=display, backend=backend_for(options, path or display), declared_elsewhere=declared
    )


@dataclass
class TreeRun:
    results: list[FileResult] = field(default_factory=list)
    copied: int = 0
    errors: list[str] = field(default_factory=list)
    # convert on a tree (hipport.tree): what the run did beyond porting
    cached: int = 0  # sources served from the incremental cache
    skipped: int = 0  # left out by .gitignore or --exclude
    left_out: list[str] = field(default_factory=list)  # what was, by path (a folder ends in '/')
    build_files: int = 0
    binary: int = 0  # files with a source or build-file name that hold binary data: copied
    written: int = 0
    backups: int = 0
    renamed: dict[str, str] = field(default_factory=dict)  # old path -> new path, with --rename
    notices: list[str] = field(default_factory=list)  # worth saying, not failures: FIFOs left out
