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
    """Carry out a CheckRequest (hipport.requests.check), print what it found, and return the exit status."""
    from hipport.requests import RequestError, check as carry_out

    rules = _load_rules(tuple(str(r) for r in request.rule_files))
    try:
        outcome = carry_out(request, rules)
    except RequestError as exc:
        _echo_errors(exc.errors)
        _fail(str(exc))
    _echo_errors(outcome.errors)
    if outcome.recorded is not None:
        click.echo(f"hipport: recorded {outcome.recorded} finding(s) in {request.write_baseline}", err=True)
    for line in outcome.lines:
        click.echo(line)
    if outcome.summary is not None:
        click.echo(outcome.summary, err=True)
    if outcome.text is not None:
        click.echo(outcome.text, nl=False)
    return outcome.status


def _echo_errors(errors: list[str]) -> None:
    for message in errors:
        click.echo(f"hipport: {message}", err=True)
