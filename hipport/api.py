"""The library API the CLI offers, for Python callers: a facade, and nothing inside hipport imports it.

`convert(ConvertRequest(...), rules)` does what `hipport convert` does, without printing (hipport.requests);
`check(CheckRequest(...), rules)` and `report(ReportRequest(...), rules)` return what `hipport check` and
`hipport report` would print, and print nothing.
The work is below: hipport.porting (one file), hipport.analysis (files and
trees in memory), hipport.tree (a tree on disk) and hipport.report.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from hipport.analysis import analyze, missing_path_message, source_files
from hipport.engine.port import FileResult
from hipport.options import Options
from hipport.porting import SOURCE_SUFFIXES, PortError, TreeRun, port_bytes, port_file
from hipport.report import report_for
from hipport.requests import (
    CheckOutcome,
    CheckRequest,
    ConvertOutcome,
    ConvertRequest,
    ReportOutcome,
    ReportRequest,
    RequestError,
    VerifyRequest,
    check,
    convert,
    report,
)
from hipport.ruleset.model import RuleSet

if TYPE_CHECKING:  # the tree's modules are imported when a tree is converted
    from hipport.tree.settings import TreeSettings

__all__ = [
    "SOURCE_SUFFIXES",
    "CheckOutcome",
    "CheckRequest",
    "ConvertOutcome",
    "ConvertRequest",
    "FileResult",
    "PortError",
    "ReportOutcome",
    "ReportRequest",
    "RequestError",
    "TreeRun",
    "VerifyRequest",
    "analyze",
    "check",
    "convert",
    "convert_tree",
    "convert_tree_in_place",
    "missing_path_message",
    "port_bytes",
    "port_file",
    "report",
    "report_for",
    "source_files",
]


def convert_tree(
    src: Path, out: Path, rules: RuleSet, options: Options, settings: TreeSettings | None = None
) -> TreeRun:
    """Mirror src into out: sources ported, build files migrated, the rest copied (hipport.tree).

    A source's result lets its source and output bytes go once they are written, unless the run
    renames files: they are in out, and result.changed still answers."""
    from hipport.tree.run import convert_tree as run

    return run(src, out, rules, options, settings)


def convert_tree_in_place(src: Path, rules: RuleSet, options: Options, settings: TreeSettings | None = None) -> TreeRun:
    """Port src's sources and build files in place, atomically, after git-state checks (hipport.tree)."""
    from hipport.tree.run import convert_tree_in_place as run

    return run(src, rules, options, settings)
