"""`hipport report`: what ports and what does not, in every report format."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from hipport.cli.common import (
    _fail,
    _load_rules,
    _options,
    _settings,
    hip_version_option,
    rules_option,
    torch_version_option,
    with_torch_version,
)


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "markdown", "html", "sarif", "csv"]),
    default="text",
    show_default=True,
)
@click.option(
    "-o",
    "--output",
    "out",
    type=click.Path(path_type=Path),
    metavar="FILE",
    help="Write the report to FILE instead of stdout.",
)
@click.option(
    "--from",
    "from_json",
    type=click.Path(path_type=Path),
    metavar="REPORT.json",
    help="Render an existing JSON report (convert --report, report --format json) instead of analyzing.",
)
@hip_version_option
@rules_option
@torch_version_option
def report(
    paths: tuple[Path, ...],
    fmt: str,
    out: Path | None,
    from_json: Path | None,
    hip_version: str | None,
    user_rules: tuple[str, ...],
    torch_version: str | None = None,
) -> None:
    """Report what in PATHS (files or trees) ports to HIP automatically and what does not.

    Analysis only: nothing is written but -o FILE. Counts references ported by
    library, kernel launches, names not ported (with where they are used),
    findings by code and severity, and a manual-effort estimate.
    """
    from hipport.policy import Policy
    from hipport.requests import ReportRequest

    if from_json is not None and (paths or hip_version or torch_version):
        raise click.UsageError(
            "--from renders a finished report; it takes no PATHS, no --hip-version and no --torch-version"
        )
    if from_json is None and not paths:
        raise click.UsageError("give PATHS to analyze, or --from REPORT.json")
    settings = _settings(None, hip_version=hip_version, rules=tuple(Path(r) for r in user_rules))
    options = _options(settings.hip_version, settings.launch_syntax, settings.roc, settings.platform)
    request = ReportRequest(
        tuple(paths),
        from_json,
        fmt,
        out,
        with_torch_version(options, torch_version),
        Policy(settings.select, settings.ignore, settings.severity),
        settings.rules,
    )
    sys.exit(run_report(request))


def run_report(request) -> int:
    """Carry out a ReportRequest (hipport.requests.report): show the report, say what could not be read,
    return the exit status."""
    from hipport.console import Progress
    from hipport.requests import RequestError, report as carry_out

    rules = _load_rules(tuple(str(r) for r in request.rule_files))
    try:
        if request.from_json is not None:
            outcome = carry_out(request, rules)
        else:
            with Progress("hipport report", "files") as progress:
                outcome = carry_out(request, rules, progress.update)
    except RequestError as exc:
        _fail(str(exc))
    if outcome.written is None:
        click.echo(outcome.text, nl=False)
    for message in outcome.errors:
        click.echo(f"hipport: {message}", err=True)
    return outcome.status
