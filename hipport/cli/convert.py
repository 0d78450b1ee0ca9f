"""`hipport convert`: port a file or mirror a tree."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from hipport.cli.common import (
    _fail,
    all_findings_option,
    _load_rules,
    _options,
    _parser_options,
    _print_findings,
    _print_summary,
    _settings,
    config_option,
    hip_version_option,
    platform_option,
    torch_version_option,
    with_torch_version,
    rules_option,
)
from hipport.cli.tree_flags import tree_options


@click.command()
@click.argument("src", type=click.Path(path_type=Path))
@click.option(
    "-o", "--output", "out", metavar="OUT", help="Output file or directory; '-' writes a single file's port to stdout."
)
@click.option("--in-place", is_flag=True, help="Rewrite SRC itself, atomically.")
@click.option(
    "--report",
    "report_path",
    type=click.Path(path_type=Path),
    metavar="FILE",
    help="Write the JSON migration report to FILE ('-' for stdout).",
)
@hip_version_option
@click.option(
    "--launch-syntax",
    type=click.Choice(["keep", "hip"]),
    help="Keep k<<<...>>>(...) launches (the default), or emit hipLaunchKernelGGL(...).",
)
@click.option(
    "--roc/--no-roc", default=None, help="Use rocBLAS/rocFFT/rocSPARSE/rocRAND/rocSOLVER names where they exist."
)
@rules_option
@platform_option
@torch_version_option
@click.option(
    "--port-strings/--no-port-strings",
    default=None,
    help='Also rename CUDA API names inside string literals ("cudaMalloc failed"). '
    "Names passed to dlsym/cuGetProcAddress are never renamed.",
)
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors.")
@all_findings_option
@config_option
@click.option(
    "--mode",
    type=click.Choice(["port", "shim"]),
    default="port",
    show_default=True,
    help="port: rewrite to HIP names. shim: include the header 'hipport shim' generates "
    "instead of CUDA headers and keep the CUDA names (generate the header first).",
)
@click.option(
    "--shim-include",
    default="gpu_compat.h",
    show_default=True,
    metavar="NAME",
    help='With --mode shim: the #include "NAME" that replaces CUDA headers.',
)
@click.option(
    "--parser",
    type=click.Choice(["auto", "treesitter", "clang"]),
    default="auto",
    show_default=True,
    help="treesitter: fast and tolerant. clang: resolves every name with libclang (falls back "
    "to treesitter per file when a parse fails). auto: clang when -p is given.",
)
@click.option(
    "-p",
    "--compile-commands",
    type=click.Path(path_type=Path),
    metavar="PATH",
    help="compile_commands.json, or the build directory holding it (flags for --parser clang).",
)
@click.option(
    "--clang-arg",
    "clang_args",
    multiple=True,
    metavar="ARG",
    help="Extra flag for every clang parse (repeatable), e.g. --clang-arg=-Iinclude.",
)
@click.option(
    "--cuda-path",
    type=click.Path(path_type=Path),
    metavar="DIR",
    help="CUDA installation for --parser clang. Default: CUDA_PATH, CUDA_HOME, /usr/local/cuda.",
)
@click.option(
    "--fix-warp-size",
    is_flag=True,
    help="Apply the warp-size lints' fixes where they are provably safe (64-bit ballot masks, "
    "__popcll, lanes and warps from warpSize, shuffle loops from warpSize / 2); each "
    "finding says what it changed or why it did not.",
)
@tree_options
def convert(
    src: Path,
    out: str | None,
    in_place: bool,
    report_path: Path | None,
    hip_version: str | None,
    launch_syntax: str | None,
    roc: bool | None,
    user_rules: tuple[str, ...],
    quiet: bool,
    config_path: Path | None = None,
    mode: str = "port",
    shim_include: str = "gpu_compat.h",
    parser: str = "auto",
    compile_commands: Path | None = None,
    clang_args: tuple[str, ...] = (),
    cuda_path: Path | None = None,
    fix_warp_size: bool = False,
    port_strings: bool | None = None,
    platform: str | None = None,
    all_findings: bool = False,
    torch_version: str | None = None,
    **tree,
) -> None:
    """Port SRC (a file or a directory) to HIP.

    Every byte outside an edit is kept as it was: encoding, line endings, comments
    and strings. Exit status is 0 when the output was written, even with findings,
    and 2 on usage or I/O errors.

    A directory is mirrored: sources are ported, CMakeLists.txt and Makefiles
    migrated, other files copied, and what .gitignore ignores left out. Unchanged
    files come from a cache on the next run, and --in-place refuses to touch
    files with uncommitted changes.
    """
    import dataclasses

    from hipport.cli.tree_flags import tree_settings
    from hipport.requests import ConvertRequest

    config = _settings(
        config_path,
        hip_version=hip_version,
        launch_syntax=launch_syntax,
        roc=roc,
        rules=tuple(Path(r) for r in user_rules),
        port_strings=port_strings,
        platform=platform,
    )
    options = dataclasses.replace(
        _options(config.hip_version, config.launch_syntax, config.roc, config.platform),
        port_strings=config.port_strings,
        mode=mode,
        shim_include=shim_include,
        fix_warp_size=fix_warp_size,
    )
    options = _parser_options(
        with_torch_version(options, torch_version), parser, compile_commands, clang_args, cuda_path
    )
    request = ConvertRequest(
        src, out, in_place, options, config.rules, tree_settings(tree), report_path, quiet, all_findings
    )
    problem = request.problem()
    if problem is not None:
        raise click.UsageError(problem)
    if not src.exists():
        from hipport.analysis import missing_path_message

        _fail(missing_path_message(src))
    run_convert(request)


def run_convert(request) -> None:
    """Carry out a ConvertRequest and say what happened: the report, errors, findings and a summary."""
    from hipport.cli.tree_flags import progress_bar, shows_progress
    from hipport.porting import PortError
    from hipport.requests import convert as carry_out
    from hipport.tree.summary import summary_line

    rules = _load_rules(tuple(str(r) for r in request.rule_files))
    try:
        with progress_bar(request.src.is_dir() and shows_progress(request.quiet)) as progress:
            outcome = carry_out(request, rules, progress)
    except PortError as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"{exc.filename or request.src}: {exc.strerror or exc}")
    if request.report_path is not None:
        _write_report(request.report_path, outcome.report)
    for message in outcome.errors:
        click.echo(f"hipport: {message}", err=True)
    run = outcome.run
    for message in run.notices if run is not None else ():
        click.echo(f"hipport: {message}", err=True)
    if not request.quiet:
        _print_findings(outcome.results, request.src if run is not None else None, request.all_findings)
        if run is not None:
            click.echo(summary_line(run, outcome.report["summary"], outcome.seconds), err=True)
        else:
            _print_summary(outcome.report["summary"], outcome.seconds)
    if outcome.errors:
        sys.exit(2)


def _write_report(path: Path, report: dict) -> None:
    from hipport.emit.report import dumps
    from hipport.emit.writer import write_atomic

    text = dumps(report)
    if str(path) == "-":
        click.echo(text, nl=False)
    else:
        try:
            write_atomic(path, text.encode("utf-8"))
        except OSError as exc:
            _fail(f"{path}: cannot write report: {exc.strerror}")
