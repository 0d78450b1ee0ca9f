"""`hipport verify --report`: print each unit's verdict, the table by class, and the JSON."""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from hipport.verify import CompileResult
from hipport.verify.join import Report, join
from hipport.verify.libraries import library_table
from hipport.verify.summary import as_json, summarize, table_lines, unit_line


def tree_root(path: Path, units: list[Path], report: Report) -> Path:
    """The ported tree's root as the report sees it: PATH, or the ancestor of PATH whose
    relative paths are the report's (verify may be given one directory of the port)."""
    base = Path(os.path.abspath(path if path.is_dir() else path.parent))
    if not units:
        return base
    unit = Path(os.path.abspath(units[0]))
    for candidate in (base, *base.parents):
        if unit.relative_to(candidate).as_posix() in report.sources:
            return candidate
    return base


def joined(
    root: Path,
    units: list[Path],
    results: list[CompileResult],
    report: Report,
    report_path: Path,
    rules,
    include_dirs: tuple[Path, ...],
    json_path: Path | None,
) -> int:
    """Print the verdicts and figures; the exit status: 1 if any unit failed for a reason
    other than a missing library, else 0 (2 when the report does not describe this tree)."""
    base = tree_root(root, units, report)
    if units and not any(Path(os.path.abspath(u)).relative_to(base).as_posix() in report.sources for u in units):
        click.echo(
            f"hipport: {report_path}: the report lists none of the units under {root}; "
            f"give the report 'hipport convert' wrote for this output",
            err=True,
        )
        return 2
    verdicts = join(base, units, results, report, library_table(rules), include_dirs)
    for verdict in verdicts:
        click.echo(unit_line(verdict))
    summary = summarize(verdicts)
    for line in table_lines(summary):
        click.echo(line)
    if summary["port_fault_errors"]:
        click.echo("commonest first errors of the port faults:")
        for row in summary["port_fault_errors"]:
            click.echo(f"  {row['units']:4}  {row['error']}")
    if json_path is not None:
        try:
            json_path.write_text(json.dumps(as_json(verdicts, summary), indent=1) + "\n", encoding="utf-8")
        except OSError as exc:
            click.echo(f"hipport: {json_path}: cannot write: {exc.strerror}", err=True)
            return 2
    failed = summary["units"] - summary["compiled"] - summary["by_class"]["no-lib"]
    return 1 if failed else 0
