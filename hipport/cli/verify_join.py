"""`hipport verify --report`: print each unit's verdict, the table by class, and the JSON."""
from __future__ import annotations

import json
from pathlib import Path

import click

from hipport.verify import CompileResult
from hipport.verify_join import Report, ReportError, join, library_table
from hipport.verify_summary import as_json, summarize, table_lines, unit_line


def joined(root: Path, units: list[Path], results: list[CompileResult], report_path: Path, rules,
           include_dirs: tuple[Path, ...], json_path: Path | None) -> int:
    """Print the verdicts and figures; the exit status: 1 if any unit failed for a reason
    other than a missing library, else 0 (2 when the report cannot be read)."""
    try:
        report = Report.load(report_path)
    except ReportError as exc:
        click.echo(f"hipport: {exc}", err=True)
        return 2
    base = root if root.is_dir() else root.parent
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
