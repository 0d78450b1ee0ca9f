"""`hipport explain NAME` and `hipport rules ...`: what the rule set knows."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from hipport.cli.common import _fail, _load_rules, rule_file_message, rules_option


@click.command()
@click.argument("name")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@rules_option
def explain(name: str, fmt: str, user_rules: tuple[str, ...]) -> None:
    """Show what hipport knows about a CUDA or HIP NAME: mapping, library, versions.

    Unknown names get the closest known names as suggestions (exit status 1).
    """
    import json

    from hipport.explain import explain as explain_name, render_explain

    result = explain_name(name, _load_rules(user_rules))
    click.echo(json.dumps(result, indent=2) if fmt == "json" else render_explain(result))
    if not result["known"]:
        sys.exit(1)


@click.group()
def rules() -> None:
    """Inspect and validate rule files."""


@rules.command("stats")
@click.option(
    "--reference",
    type=click.Path(path_type=Path),
    metavar="CSV",
    help="cuda-hip-mappings.csv to measure coverage against.",
)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def rules_stats(reference: Path | None, fmt: str) -> None:
    """Names, mapped and unsupported per library, and coverage of the reference data."""
    import csv
    import json

    from hipport.explain import stats

    rows = None
    if reference is not None:
        try:
            with open(reference, newline="", encoding="utf-8") as f:
                rows = list(csv.DictReader(f))
        except OSError as exc:
            _fail(f"{reference}: {exc.strerror}")
    table = stats(_load_rules(()), rows)
    if fmt == "json":
        click.echo(json.dumps(table, indent=2))
        return
    header = f"{'library':18} {'names':>6} {'mapped':>7} {'unsupported':>12}" + (
        f" {'coverage':>9} {'ref. mapped':>13} {'ref. unsupported':>16}" if rows is not None else ""
    )
    click.echo(header)
    for row in table:
        line = f"{row['library']:18} {row['names']:6d} {row['mapped']:7d} {row['unsupported']:12d}"
        if rows is not None:
            line += f" {row['coverage']:8.2f}%" if row["coverage"] is not None else "         -"
            # reference rows with a HIP name that a rule maps, and rows without one known as unsupported
            mapped = f"{row['reference_mapped']}/{row['reference_with_target']}"
            unsupported = f"{row['reference_unsupported']}/{row['reference_without_target']}"
            line += f" {mapped:>13} {unsupported:>16}"
        click.echo(line)


@rules.command("list")
@click.option("--library", metavar="LIB", help="Only this library (as in 'rules stats', e.g. CUBLAS).")
@click.option("--kind", metavar="KIND", help="Only this kind: function, type, enum, define, ...")
@click.option("--status", type=click.Choice(["all", "mapped", "unsupported"]), default="all", show_default=True)
@click.option("--newer-than", metavar="X.Y", help="Only mappings whose HIP name arrived after HIP X.Y.")
@rules_option
@click.option("--format", "fmt", type=click.Choice(["text", "json", "csv"]), default="text", show_default=True)
def rules_list(
    library: str | None, kind: str | None, status: str, newer_than: str | None, user_rules: tuple[str, ...], fmt: str
) -> None:
    """List name rules: CUDA name, HIP name, library and versions.

    \b
    hipport rules list --library CUSPARSE --status unsupported
    hipport rules list --newer-than 5.2      # what a HIP 5.2 target lacks
    """
    import csv
    import io
    import json

    from hipport.explain import list_names
    from hipport.versions import parse_version

    try:
        since = parse_version(newer_than) if newer_than else None
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--newer-than") from None
    rows = list_names(_load_rules(user_rules), library, kind, status, since)
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2))
    elif fmt == "csv":
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]) if rows else ["cuda"], lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        click.echo(buffer.getvalue(), nl=False)
    else:
        for row in rows:
            versions = ", ".join(f"{k} {row[k]}" for k in ("added", "deprecated", "removed") if row[k])
            click.echo(
                f"{row['cuda']:44} {row['hip'] or '(unsupported)':44} {row['library']}"
                + (f"  [{versions}]" if versions else "")
            )
    if not rows:
        click.echo("hipport: no rule matches", err=True)


@rules.command("validate")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
def rules_validate(files: tuple[Path, ...]) -> None:
    """Check rule FILES against the schema; errors are printed as file:line: message."""
    from hipport.ruleset.loader import parse_rule_file, read_rule_file
    from hipport.ruleset.schema import RuleFileError

    failed = False
    for path in files:
        try:
            parse_rule_file(path, read_rule_file(path))
            click.echo(f"{path}: ok")
        except OSError as exc:
            click.echo(f"{path}: cannot read: {exc.strerror}", err=True)
            failed = True
        except RuleFileError as exc:
            click.echo(rule_file_message(exc), err=True)
            failed = True
    if failed:
        sys.exit(1)
