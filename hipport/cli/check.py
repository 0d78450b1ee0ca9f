"""`hipport check`: the pre-commit hook's command (hipport.launch runs a plain one without click)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from hipport.cli.common import (
    _codes,
    all_findings_option,
    _fail,
    _load_rules,
    _options,
    _settings,
    config_option,
    hip_version_option,
    platform_option,
    rules_option,
    torch_version_option,
    with_torch_version,
)


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["text", "json", "sarif"]), default="text", show_default=True)
@click.option(
    "--fail-on",
    type=click.Choice(["error", "warning", "info", "never"]),
    help="Lowest severity that makes the exit status 1. Default: error (or fail-on in the config).",
)
@hip_version_option
@click.option("--select", multiple=True, metavar="CODES", help="Report only these codes or prefixes (comma-separated).")
@click.option("--ignore", multiple=True, metavar="CODES", help="Never report these codes or prefixes.")
@rules_option
@platform_option
@click.option(
    "--baseline", type=click.Path(path_type=Path), metavar="FILE", help="Do not report findings recorded in FILE."
)
@click.option(
    "--write-baseline",
    type=click.Path(path_type=Path),
    metavar="FILE",
    help="Record every current finding in FILE and exit 0.",
)
@config_option
@click.option(
    "-q",
    "--quiet",
    is_flag=True,
    help="For a hook: no summary line, and no information findings unless --fail-on info.",
)
@all_findings_option
@click.option(
    "--mode",
    type=click.Choice(["port", "shim"]),
    default="port",
    show_default=True,
    help="shim: the code keeps CUDA names behind a 'hipport shim' header; also flag (HP601) "
    "names and headers that --shim-header does not cover.",
)
@click.option(
    "--shim-header",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="HEADER",
    help="With --mode shim: the generated header to check against.",
)
@torch_version_option
def check(
    paths: tuple[Path, ...],
    fmt: str,
    fail_on: str | None,
    hip_version: str | None,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    user_rules: tuple[str, ...],
    baseline: Path | None,
    write_baseline: Path | None,
    config_path: Path | None,
    quiet: bool,
    mode: str = "port",
    shim_header: Path | None = None,
    platform: str | None = None,
    all_findings: bool = False,
    torch_version: str | None = None,
) -> None:
    """Report CUDA code that will not port to HIP; change nothing.

    Prints 'path:line:col: severity CODE message' for each finding, sorted by
    path and line. Exits 1 when a finding reaches --fail-on, 0 otherwise, and 2
    on usage errors. Silence one finding with '// hipport: ignore[CODE]' on its
    line or the line before, or a whole file with '// hipport: file-ignore[CODE]'.
    """
    from hipport.policy import Policy
    from hipport.requests import CheckRequest

    settings = _settings(
        config_path,
        hip_version=hip_version,
        rules=tuple(Path(r) for r in user_rules),
        select=_codes(select),
        ignore=_codes(ignore),
        fail_on=fail_on,
        baseline=baseline,
        platform=platform,
    )
    options = _options(settings.hip_version, settings.launch_syntax, settings.roc, settings.platform)
    options = with_torch_version(options, torch_version)
    if mode == "shim":
        import dataclasses

        if shim_header is None:
            raise click.UsageError("--mode shim needs --shim-header HEADER")
        options = dataclasses.replace(options, mode="shim")
    request = CheckRequest(
        tuple(paths),
        options,
        Policy(settings.select, settings.ignore, settings.severity),
        settings.rules,
        settings.fail_on,
        fmt,
        settings.baseline,
        write_baseline,
        shim_header,
        quiet,
        all_findings,
    )
    sys.exit(run_check_request(request))


def run_check_request(request) -> int:
    """Carry out a CheckRequest, print what it found, and return the exit status."""
    from hipport.baseline import BaselineError, load_baseline, write_baseline as save_baseline
    from hipport.check import run_check, text_lines

    rules = _load_rules(tuple(str(r) for r in request.rule_files))
    options, policy, write_baseline = request.options, request.policy, request.write_baseline
    known = None
    if request.baseline is not None and write_baseline is None:
        try:
            known = load_baseline(request.baseline)
        except BaselineError as exc:
            _fail(str(exc))
    run = run_check(list(request.paths), rules, options, policy, known)
    if options.mode == "shim":
        from hipport.shim import ShimError, attach_gaps, names_not_covered

        assert request.shim_header is not None  # checked where the request was made
        try:
            attach_gaps(
                run.results,
                names_not_covered(list(request.paths), request.shim_header, rules, target=options.hip_version),
                policy.apply,
            )
        except ShimError as exc:
            _fail(str(exc))
    for message in run.errors:
        click.echo(f"hipport: {message}", err=True)
    if run.nothing_checked:
        return 2  # no summary, report or baseline of nothing: the error line is the whole answer
    if write_baseline is not None:
        try:
            count = save_baseline(write_baseline, run.results)
        except OSError as exc:
            _fail(f"{write_baseline}: cannot write baseline: {exc.strerror}")
        click.echo(f"hipport: recorded {count} finding(s) in {write_baseline}", err=True)
        return 2 if run.errors else 0
    if request.fmt == "text":  # hipport.launch prints the same lines when it runs a plain check without click
        lines, summary = text_lines(run, request.quiet, request.fail_on, request.all_findings)
        for line in lines:
            click.echo(line)
        if summary is not None:
            click.echo(summary, err=True)
    else:
        from hipport.emit.report import dumps
        from hipport.report import report_for

        report = report_for(run.results, rules, options, {"suppressed": run.suppressed, "baselined": run.baselined})
        if request.fmt == "json":
            click.echo(dumps(report), nl=False)
        else:
            from hipport.report.sarif import render_sarif

            click.echo(render_sarif(report, rules), nl=False)
    if run.errors:
        return 2
    return 1 if run.fails(request.fail_on) else 0
