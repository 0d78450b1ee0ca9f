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
    """Carry out a ReportRequest: write the report, say what could not be read, return the exit status."""
    from hipport.emit.writer import write_atomic
    from hipport.report import ReportError, analyze_paths, disk_sources, load_report, render

    rules = _load_rules(tuple(str(r) for r in request.rule_files))
    errors: list[str] = []
    if request.from_json is not None:
        try:
            data = load_report(request.from_json)
        except ReportError as exc:
            _fail(str(exc))
        sources = disk_sources(data)
    else:
        for path in request.paths:
            if not path.exists():
                from hipport.analysis import missing_path_message

                _fail(missing_path_message(path))
        from hipport.console import Progress

        with Progress("hipport report", "files") as progress:
            data, sources, errors = analyze_paths(
                list(request.paths), rules, request.options, request.policy, progress.update
            )
    fmt, out = request.fmt, request.out
    text = render(data, fmt, rules, sources)
    if out is None or str(out) == "-":
        click.echo(text, nl=False)
    else:
        try:
            # surrogateescape: a file name that is not UTF-8 keeps its bytes, as on stdout
            write_atomic(out, (click.unstyle(text) if fmt == "text" else text).encode("utf-8", "surrogateescape"))
        except OSError as exc:
            _fail(f"{out}: cannot write report: {exc.strerror}")
    for message in errors:
        click.echo(f"hipport: {message}", err=True)
    return 2 if errors else 0
