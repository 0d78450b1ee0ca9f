"""`hipport convert`: port a file or mirror a tree."""

from __future__ import annotations

import sys
import time
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

    from hipport.buildfiles import build_file_kind
    from hipport.cli.tree_flags import progress_bar, shows_progress, tree_settings
    from hipport.emit.report import dumps
    from hipport.emit.writer import write_atomic
    from hipport.porting import PortError, port_file
    from hipport.report import report_for
    from hipport.tree.run import convert_tree, convert_tree_in_place
    from hipport.tree.summary import annotate_report, summary_extra, summary_line

    if out is None and not in_place:
        raise click.UsageError("give -o OUT (or '-o -' for stdout), or --in-place")
    if out is not None and in_place:
        raise click.UsageError("-o and --in-place exclude each other")
    if not src.exists():
        from hipport.analysis import missing_path_message

        _fail(missing_path_message(src))
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
    )
    options = with_torch_version(options, torch_version)
    if mode == "shim":
        options = dataclasses.replace(options, mode=mode, shim_include=shim_include)
    options = _parser_options(options, parser, compile_commands, clang_args, cuda_path)
    if fix_warp_size:
        options = dataclasses.replace(options, fix_warp_size=True)
    rules = _load_rules(tuple(str(r) for r in config.rules))
    settings = tree_settings(tree)
    if mode == "shim":
        # The shim keeps one source tree building with nvcc and hipcc; a .hip
        # name or a hipLaunchKernelGGL call would break the nvcc side.
        if settings.rename:
            raise click.UsageError("--rename does not apply to --mode shim, which keeps CUDA file names")
        if config.launch_syntax == "hip":
            raise click.UsageError("--launch-syntax hip does not apply to --mode shim, which keeps <<<>>> launches")
    started = time.perf_counter()
    run = None
    try:
        if src.is_dir():
            if out == "-":
                raise click.UsageError("a directory cannot be written to stdout")
            with progress_bar(shows_progress(quiet)) as progress:
                settings = dataclasses.replace(settings, progress=progress)
                if in_place:
                    run = convert_tree_in_place(src, rules, options, settings)
                else:
                    assert out is not None  # -o or --in-place, checked above
                    run = convert_tree(src, Path(out), rules, options, settings)
            results, errors = run.results, run.errors
        else:
            if build_file_kind(src.name):
                result = port_build_path(src, rules, options, str(src), settings.offload_arch, settings.rename)
            else:
                from hipport.project import ProjectHeaders, own_names

                headers = ProjectHeaders(settings.include_dirs, own_names(rules), root=Path.cwd())
                result = port_file(src, rules, options, display=str(src), headers=headers)
            if in_place:
                if result.changed:
                    write_atomic(src, result.output, mode_from=src)
            elif out == "-":
                sys.stdout.buffer.write(result.output)
                sys.stdout.flush()
            else:
                assert out is not None  # -o or --in-place, checked above
                target = Path(out)
                if target.is_dir():
                    target = target / src.name
                if target.resolve() == src.resolve():
                    raise PortError(f"{target}: output is the input file; use --in-place")
                try:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    write_atomic(target, result.output, mode_from=src)
                except OSError as exc:  # name the output, not the temporary file beside it
                    raise PortError(f"{target}: cannot write: {exc.strerror or exc}") from None
            results, errors = [result], []
    except PortError as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"{exc.filename or src}: {exc.strerror or exc}")

    elapsed = time.perf_counter() - started
    extra = {"seconds": round(elapsed, 3), **(summary_extra(run) if run is not None else {})}
    report = report_for(results, rules, options, extra, root=str(src) if src.is_dir() else None)
    if run is not None:
        annotate_report(report, run)
    if report_path is not None:
        text = dumps(report)
        if str(report_path) == "-":
            click.echo(text, nl=False)
        else:
            try:
                write_atomic(report_path, text.encode("utf-8"))
            except OSError as exc:
                _fail(f"{report_path}: cannot write report: {exc.strerror}")
    for message in errors:
        click.echo(f"hipport: {message}", err=True)
    for message in run.notices if run is not None else ():
        click.echo(f"hipport: {message}", err=True)
    if not quiet:
        _print_findings(results, src if run is not None else None, all_findings)
        if run is not None:
            click.echo(summary_line(run, report["summary"], elapsed), err=True)
        else:
            _print_summary(report["summary"], elapsed)
    if errors:
        sys.exit(2)


def port_build_path(path, rules, options, display: str, offload_arch: tuple[str, ...] = (), rename: bool = False):
    """Port one build file on its own (no tree): every .cu path it names counts as renamed with --rename."""
    from hipport.buildfiles import BuildSettings, port_build_file
    from hipport.tree.rename import DEFAULT_SUFFIXES, renamed_suffix

    settings = BuildSettings(
        offload_arch=offload_arch or rules.build.default_arches(options.hip_version),
        rename=(lambda text: renamed_suffix(text, DEFAULT_SUFFIXES)) if rename else None,
    )
    return port_build_file(Path(path).read_bytes(), rules, settings, path=display)
