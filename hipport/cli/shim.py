"""`hipport shim`: generate the header that lets one CUDA source tree build with nvcc and hipcc."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from hipport.cli.common import HIP_VERSION_METAVAR, _fail, _load_rules, _options, rules_option


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output",
    "out",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="HEADER",
    help="The header to write, e.g. src/gpu_compat.h.",
)
@click.option(
    "--hip-version",
    metavar=HIP_VERSION_METAVAR,
    help="Oldest HIP the header must build with; newer names get HIP_VERSION guards. "
    "'installed': what hipconfig --version says. Default: the newest the rules know.",
)
@click.option(
    "--prefix",
    metavar="NAME",
    help="Also define vendor-neutral names on both platforms: --prefix gpu gives gpuMalloc, gpuStream_t, ...",
)
@click.option("--check", "check_only", is_flag=True, help="Write nothing; exit 1 if HEADER is missing or out of date.")
@rules_option
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors.")
def shim(
    paths: tuple[Path, ...],
    out: Path,
    hip_version: str | None,
    prefix: str | None,
    check_only: bool,
    user_rules: tuple[str, ...],
    quiet: bool,
) -> None:
    """Generate one header that lets the same CUDA sources build with nvcc and hipcc.

    \b
    hipport shim src/ -o src/gpu_compat.h --hip-version 5.2
    hipport convert src/ --in-place --mode shim   # sources include it instead of CUDA headers

    The header holds only the CUDA names and headers PATHS use. It is written only
    when its content changes. Exit status: 0, 1 with --check when the header is out
    of date, 2 on usage or I/O errors.
    """
    from hipport.shim import ShimError, generate_shim

    options = _options(hip_version, "keep", False)
    rules = _load_rules(user_rules)
    try:
        result = generate_shim(list(paths), out, rules, options.hip_version, prefix, write=not check_only)
    except ShimError as exc:
        _fail(str(exc))
    for message in result.usage.errors:
        click.echo(f"hipport: {message}", err=True)
    if not quiet:
        for path, f in result.findings:
            click.echo(f"{path}:{f.line}:{f.column}: {f.severity.value} {f.code} {f.message}", err=True)
    if result.usage.errors:
        sys.exit(2)  # nothing was written: a summary would only contradict the error line
    if not quiet:
        entries = result.plan.entries
        state = "written" if result.written else "out of date" if result.changed else "up to date"
        click.echo(
            f"hipport shim: {out}: {state}; {len(entries)} CUDA name(s) and {len(result.plan.headers)} "
            f"header(s) from {len(result.usage.files)} file(s); "
            f"{sum(e.form == 'error' for e in entries)} without a HIP equivalent, "
            f"{sum(e.since is not None or e.until is not None for e in entries)} behind HIP_VERSION guards",
            err=True,
        )
    if check_only and result.changed:
        sys.exit(1)
