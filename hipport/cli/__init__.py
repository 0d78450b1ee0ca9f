"""hipport's command line: argument handling only; the work is in hipport.api."""
from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from hipport import __version__
from hipport.tree.cli_options import tree_options


def _fail(message: str) -> None:
    click.echo(f"hipport: {message}", err=True)
    sys.exit(2)


def _load_rules(user_rules: tuple[str, ...]):
    from hipport.ruleset.loader import load_rules
    from hipport.ruleset.schema import RuleFileError

    try:
        return load_rules([Path(p) for p in user_rules])
    except RuleFileError as exc:
        _fail(str(exc))
    except FileNotFoundError as exc:
        _fail(str(exc))


def _options(hip_version: str | None, launch_syntax: str, roc: bool):
    from hipport.options import Options
    from hipport.versions import parse_version

    try:
        version = parse_version(hip_version) if hip_version else None
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--hip-version") from None
    return Options(hip_version=version, launch_syntax=launch_syntax, roc=roc)


def _parser_options(options, parser: str, compile_commands: Path | None, clang_args: tuple[str, ...],
                    cuda_path: Path | None):
    """options with the parser settings, checked now so that a bad database is one line, not a traceback."""
    import dataclasses

    from hipport.parse import make_backend
    from hipport.parse.clang_env import ClangSetupError
    from hipport.parse.compdb import CompileDatabaseError

    if parser == "treesitter" and (compile_commands or clang_args or cuda_path):
        raise click.UsageError("-p, --clang-arg and --cuda-path need --parser clang or auto")
    options = dataclasses.replace(options, parser=parser, compile_commands=compile_commands,
                                  clang_args=tuple(clang_args), cuda_path=cuda_path)
    try:
        make_backend(options)
    except (CompileDatabaseError, ClangSetupError) as exc:
        _fail(str(exc))
    return options


class _Main(click.Group):
    """Every command: names as they are on disk in text output, and Ctrl-C as one line, not a traceback."""

    def invoke(self, ctx):
        from hipport.launch import INTERRUPTED, print_names_as_bytes

        print_names_as_bytes()
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            click.echo(INTERRUPTED, err=True)
            sys.exit(130)


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hipport")
def main() -> None:
    """Port CUDA C++ sources to HIP, and report what could not be ported.

    \b
    hipport convert kernel.cu -o kernel.hip   port one file
    hipport convert src/ -o src-hip/          mirror a tree, porting every source
    """


@main.command()
@click.argument("src", type=click.Path(path_type=Path))
@click.option("-o", "--output", "out", metavar="OUT",
              help="Output file or directory; '-' writes a single file's port to stdout.")
@click.option("--in-place", is_flag=True, help="Rewrite SRC itself, atomically.")
@click.option("--report", "report_path", type=click.Path(path_type=Path), metavar="FILE",
              help="Write the JSON migration report to FILE ('-' for stdout).")
@click.option("--hip-version", metavar="X.Y",
              help="Target HIP version; names newer than it are reported. Default: newest known.")
@click.option("--launch-syntax", type=click.Choice(["keep", "hip"]),
              help="Keep k<<<...>>>(...) launches (the default), or emit hipLaunchKernelGGL(...).")
@click.option("--roc/--no-roc", default=None,
              help="Use rocBLAS/rocFFT/rocSPARSE/rocRAND/rocSOLVER names where they exist.")
@click.option("--rules", "user_rules", multiple=True, metavar="FILE",
              help="Extra rule file (repeatable); its rules win over the built-in ones.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors.")
@click.option("--config", "config_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="pyproject.toml to read [tool.hipport] from. Default: the closest one upwards.")
@click.option("--mode", type=click.Choice(["port", "shim"]), default="port", show_default=True,
              help="port: rewrite to HIP names. shim: include the header 'hipport shim' generates "
                   "instead of CUDA headers and keep the CUDA names (generate the header first).")
@click.option("--shim-include", default="gpu_compat.h", show_default=True, metavar="NAME",
              help="With --mode shim: the #include \"NAME\" that replaces CUDA headers.")
@click.option("--parser", type=click.Choice(["auto", "treesitter", "clang"]), default="auto", show_default=True,
              help="treesitter: fast and tolerant. clang: resolves every name with libclang (falls back "
                   "to treesitter per file when a parse fails). auto: clang when -p is given.")
@click.option("-p", "--compile-commands", type=click.Path(path_type=Path), metavar="PATH",
              help="compile_commands.json, or the build directory holding it (flags for --parser clang).")
@click.option("--clang-arg", "clang_args", multiple=True, metavar="ARG",
              help="Extra flag for every clang parse (repeatable), e.g. --clang-arg=-Iinclude.")
@click.option("--cuda-path", type=click.Path(path_type=Path), metavar="DIR",
              help="CUDA installation for --parser clang. Default: CUDA_PATH, CUDA_HOME, /usr/local/cuda.")
@tree_options
def convert(src: Path, out: str | None, in_place: bool, report_path: Path | None, hip_version: str | None,
            launch_syntax: str | None, roc: bool | None, user_rules: tuple[str, ...], quiet: bool,
            config_path: Path | None = None,
            mode: str = "port", shim_include: str = "gpu_compat.h", parser: str = "auto",
            compile_commands: Path | None = None, clang_args: tuple[str, ...] = (),
            cuda_path: Path | None = None, **tree) -> None:
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

    from hipport import api
    from hipport.buildfiles import build_file_kind, port_build_path
    from hipport.emit.report import dumps
    from hipport.emit.writer import write_atomic
    from hipport.tree.cli_options import progress_bar, shows_progress, tree_settings
    from hipport.tree.summary import annotate_report, summary_extra, summary_line

    if out is None and not in_place:
        raise click.UsageError("give -o OUT (or '-o -' for stdout), or --in-place")
    if out is not None and in_place:
        raise click.UsageError("-o and --in-place exclude each other")
    if not src.exists():
        from hipport.api import missing_path_message

        _fail(missing_path_message(src))
    config = _settings(config_path, hip_version=hip_version, launch_syntax=launch_syntax, roc=roc,
                       rules=tuple(Path(r) for r in user_rules))
    options = _options(config.hip_version, config.launch_syntax, config.roc)
    if mode == "shim":
        options = dataclasses.replace(options, mode=mode, shim_include=shim_include)
    options = _parser_options(options, parser, compile_commands, clang_args, cuda_path)
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
                    run = api.convert_tree_in_place(src, rules, options, settings)
                else:
                    run = api.convert_tree(src, Path(out), rules, options, settings)
            results, errors = run.results, run.errors
        else:
            if build_file_kind(src.name):
                result = port_build_path(src, rules, options, str(src), settings.offload_arch, settings.rename)
            else:
                from hipport.project import ProjectHeaders

                result = api.port_file(src, rules, options, display=str(src),
                                       headers=ProjectHeaders(include_dirs=settings.include_dirs))
            if in_place:
                if result.changed:
                    write_atomic(src, result.output, mode_from=src)
            elif out == "-":
                sys.stdout.buffer.write(result.output)
                sys.stdout.flush()
            else:
                target = Path(out)
                if target.is_dir():
                    target = target / src.name
                if target.resolve() == src.resolve():
                    raise api.PortError(f"{target}: output is the input file; use --in-place")
                target.parent.mkdir(parents=True, exist_ok=True)
                write_atomic(target, result.output, mode_from=src)
            results, errors = [result], []
    except api.PortError as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"{exc.filename or src}: {exc.strerror or exc}")

    elapsed = time.perf_counter() - started
    extra = {"seconds": round(elapsed, 3), **(summary_extra(run) if run is not None else {})}
    report = api.report_for(results, rules, options, extra, root=str(src) if src.is_dir() else None)
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
        _print_findings(results, src if run is not None else None)
        if run is not None:
            click.echo(summary_line(run, report["summary"], elapsed), err=True)
        else:
            _print_summary(report["summary"], elapsed)
    if errors:
        sys.exit(2)


def _settings(config_path: Path | None, **flags):
    """Merge [tool.hipport] from pyproject.toml with the flags given (flags win)."""
    from hipport.config import ConfigError, find_config, load_config, merge

    try:
        config = load_config(config_path if config_path is not None else find_config())
    except ConfigError as exc:
        _fail(str(exc))
    return merge(config, **flags)


def _codes(values: tuple[str, ...]) -> tuple[str, ...]:
    from hipport.check import split_codes

    return split_codes(values)


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["text", "json", "sarif"]), default="text", show_default=True)
@click.option("--fail-on", type=click.Choice(["error", "warning", "info", "never"]),
              help="Lowest severity that makes the exit status 1. Default: error (or fail-on in the config).")
@click.option("--hip-version", metavar="X.Y", help="Target HIP version. Default: newest known.")
@click.option("--select", multiple=True, metavar="CODES", help="Report only these codes or prefixes (comma-separated).")
@click.option("--ignore", multiple=True, metavar="CODES", help="Never report these codes or prefixes.")
@click.option("--rules", "user_rules", multiple=True, metavar="FILE", help="Extra rule file (repeatable).")
@click.option("--baseline", type=click.Path(path_type=Path), metavar="FILE",
              help="Do not report findings recorded in FILE.")
@click.option("--write-baseline", type=click.Path(path_type=Path), metavar="FILE",
              help="Record every current finding in FILE and exit 0.")
@click.option("--config", "config_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="pyproject.toml to read [tool.hipport] from. Default: the closest one upwards.")
@click.option("-q", "--quiet", is_flag=True, help="No summary line.")
@click.option("--mode", type=click.Choice(["port", "shim"]), default="port", show_default=True,
              help="shim: the code keeps CUDA names behind a 'hipport shim' header; also flag (HP601) "
                   "names and headers that --shim-header does not cover.")
@click.option("--shim-header", type=click.Path(dir_okay=False, path_type=Path), metavar="HEADER",
              help="With --mode shim: the generated header to check against.")
def check(paths: tuple[Path, ...], fmt: str, fail_on: str | None, hip_version: str | None,
          select: tuple[str, ...], ignore: tuple[str, ...], user_rules: tuple[str, ...],
          baseline: Path | None, write_baseline: Path | None, config_path: Path | None, quiet: bool,
          mode: str = "port", shim_header: Path | None = None) -> None:
    """Report CUDA code that will not port to HIP; change nothing.

    Prints 'path:line:col: severity CODE message' for each finding, sorted by
    path and line. Exits 1 when a finding reaches --fail-on, 0 otherwise, and 2
    on usage errors. Silence one finding with '// hipport: ignore[CODE]' on its
    line or the line before, or a whole file with '// hipport: file-ignore[CODE]'.
    """
    from hipport.baseline import BaselineError, load_baseline, write_baseline as save_baseline
    from hipport.check import run_check, text_lines
    from hipport.policy import Policy

    settings = _settings(config_path, hip_version=hip_version, rules=tuple(Path(r) for r in user_rules),
                         select=_codes(select), ignore=_codes(ignore), fail_on=fail_on, baseline=baseline)
    options = _options(settings.hip_version, settings.launch_syntax, settings.roc)
    rules = _load_rules(tuple(str(r) for r in settings.rules))
    known = None
    if settings.baseline is not None and write_baseline is None:
        try:
            known = load_baseline(settings.baseline)
        except BaselineError as exc:
            _fail(str(exc))
    policy = Policy(settings.select, settings.ignore, settings.severity)
    if mode == "shim":
        import dataclasses

        if shim_header is None:
            raise click.UsageError("--mode shim needs --shim-header HEADER")
        options = dataclasses.replace(options, mode="shim")
    run = run_check(list(paths), rules, options, policy, known)
    if mode == "shim":
        from hipport.shim import ShimError, attach_gaps, names_not_covered

        try:
            attach_gaps(run.results, names_not_covered(list(paths), shim_header, rules, target=options.hip_version),
                        policy.apply)
        except ShimError as exc:
            _fail(str(exc))
    for message in run.errors:
        click.echo(f"hipport: {message}", err=True)
    if write_baseline is not None:
        try:
            count = save_baseline(write_baseline, run.results)
        except OSError as exc:
            _fail(f"{write_baseline}: cannot write baseline: {exc.strerror}")
        click.echo(f"hipport: recorded {count} finding(s) in {write_baseline}", err=True)
        sys.exit(2 if run.errors else 0)
    if fmt == "text":  # hipport.launch prints the same lines when it runs a plain check without click
        lines, summary = text_lines(run, quiet)
        for line in lines:
            click.echo(line)
        if summary is not None:
            click.echo(summary, err=True)
    else:
        from hipport import api
        from hipport.emit.report import dumps

        report = api.report_for(run.results, rules, options,
                                {"suppressed": run.suppressed, "baselined": run.baselined})
        if fmt == "json":
            click.echo(dumps(report), nl=False)
        else:
            from hipport.report.sarif import render_sarif

            click.echo(render_sarif(report, rules), nl=False)
    if run.errors:
        sys.exit(2)
    sys.exit(1 if run.fails(settings.fail_on) else 0)


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown", "html", "sarif", "csv"]),
              default="text", show_default=True)
@click.option("-o", "--output", "out", type=click.Path(path_type=Path), metavar="FILE",
              help="Write the report to FILE instead of stdout.")
@click.option("--from", "from_json", type=click.Path(path_type=Path), metavar="REPORT.json",
              help="Render an existing JSON report (convert --report, report --format json) instead of analyzing.")
@click.option("--hip-version", metavar="X.Y",
              help="Target HIP version; names newer than it are reported. Default: newest known.")
@click.option("--rules", "user_rules", multiple=True, metavar="FILE",
              help="Extra rule file (repeatable); its rules win over the built-in ones.")
def report(paths: tuple[Path, ...], fmt: str, out: Path | None, from_json: Path | None,
           hip_version: str | None, user_rules: tuple[str, ...]) -> None:
    """Report what in PATHS (files or trees) ports to HIP automatically and what does not.

    Analysis only: nothing is written but -o FILE. Counts references ported by
    library, kernel launches, names not ported (with where they are used),
    findings by code and severity, and a manual-effort estimate.
    """
    from hipport.emit.writer import write_atomic
    from hipport.report import ReportError, analyze_paths, disk_sources, load_report, render

    if from_json is not None and (paths or hip_version):
        raise click.UsageError("--from renders a finished report; it takes no PATHS and no --hip-version")
    if from_json is None and not paths:
        raise click.UsageError("give PATHS to analyze, or --from REPORT.json")
    from hipport.policy import Policy

    settings = _settings(None, hip_version=hip_version, rules=tuple(Path(r) for r in user_rules))
    rules = _load_rules(tuple(str(r) for r in settings.rules))
    errors: list[str] = []
    if from_json is not None:
        try:
            data = load_report(from_json)
        except ReportError as exc:
            _fail(str(exc))
        sources = disk_sources(data)
    else:
        for path in paths:
            if not path.exists():
                from hipport.api import missing_path_message

                _fail(missing_path_message(path))
        data, sources, errors = analyze_paths(
            list(paths), rules, _options(settings.hip_version, settings.launch_syntax, settings.roc),
            Policy(settings.select, settings.ignore, settings.severity))
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
    if errors:
        sys.exit(2)


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-o", "--output", "out", required=True, type=click.Path(dir_okay=False, path_type=Path),
              metavar="HEADER", help="The header to write, e.g. src/gpu_compat.h.")
@click.option("--hip-version", metavar="X.Y",
              help="Oldest HIP the header must build with; newer names get HIP_VERSION guards. Default: newest known.")
@click.option("--prefix", metavar="NAME",
              help="Also define vendor-neutral names on both platforms: --prefix gpu gives gpuMalloc, gpuStream_t, ...")
@click.option("--check", "check_only", is_flag=True, help="Write nothing; exit 1 if HEADER is missing or out of date.")
@click.option("--rules", "user_rules", multiple=True, metavar="FILE", help="Extra rule file (repeatable).")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors.")
def shim(paths: tuple[Path, ...], out: Path, hip_version: str | None, prefix: str | None, check_only: bool,
         user_rules: tuple[str, ...], quiet: bool) -> None:
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
        entries = result.plan.entries
        state = "written" if result.written else "out of date" if result.changed else "up to date"
        click.echo(f"hipport shim: {out}: {state}; {len(entries)} CUDA name(s) and {len(result.plan.headers)} "
                   f"header(s) from {len(result.usage.files)} file(s); "
                   f"{sum(e.form == 'error' for e in entries)} without a HIP equivalent, "
                   f"{sum(e.since is not None or e.until is not None for e in entries)} behind HIP_VERSION guards", err=True)
    if result.usage.errors:
        sys.exit(2)
    if check_only and result.changed:
        sys.exit(1)


@main.command()
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option("--offload-arch", default="gfx90a", show_default=True, help="AMD GPU target to compile for.")
@click.option("-I", "include_dirs", multiple=True, type=click.Path(path_type=Path), help="Extra include directory.")
@click.option("-D", "defines", multiple=True, help="Extra preprocessor define.")
@click.option("-p", "--compile-commands", type=click.Path(path_type=Path), metavar="PATH",
              help="compile_commands.json (or its build directory): include paths and macros for each unit; "
                   "nvcc's flags are translated.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True, metavar="N",
              help="Run N compiles at a time.")
def verify(path: Path, offload_arch: str, include_dirs: tuple[Path, ...], defines: tuple[str, ...],
           compile_commands: Path | None = None, jobs: int = 1) -> None:
    """Compile ported sources under PATH with hipcc -fsyntax-only (no GPU needed).

    Prints OK, FAIL (with the first error) or NO-LIB (a ROCm library header that
    is not installed here) for each translation unit. Exits 1 if any failed.
    HIP_PLATFORM=amd is forced, so an installed nvcc is never used.
    """
    from hipport.verify import INSTALL_HINT, check_units, find_hipcc, library_headers, status, translation_units

    hipcc = find_hipcc()
    if hipcc is None:
        _fail(INSTALL_HINT)
    entries = None
    if compile_commands is not None:
        from hipport.parse.compdb import CompileDatabaseError, load

        try:
            entries = load(compile_commands)
        except CompileDatabaseError as exc:
            _fail(str(exc))
    rocm_headers = library_headers(_load_rules(()))
    units = translation_units(path)
    include_dirs = tuple(include_dirs) + tuple(sorted({u.parent for u in units}))
    counts = {"OK": 0, "FAIL": 0, "NO-LIB": 0}
    results = check_units(units, offload_arch, include_dirs, defines, hipcc, entries, jobs)
    for unit, result in zip(units, results):
        state, detail = status(result, rocm_headers)
        counts[state] += 1
        click.echo(f"{state:6} {unit}" + (f": {detail}" if detail else ""))
    click.echo(f"hipport verify: {counts['OK']} ok, {counts['FAIL']} failed, "
               f"{counts['NO-LIB']} need a ROCm library that is not installed")
    if counts["FAIL"]:
        sys.exit(1)


@main.command()
@click.argument("name")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--rules", "user_rules", multiple=True, metavar="FILE", help="Extra rule file (repeatable).")
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


@main.group()
def rules() -> None:
    """Inspect and validate rule files."""


@rules.command("stats")
@click.option("--reference", type=click.Path(path_type=Path), metavar="CSV",
              help="cuda-hip-mappings.csv to measure coverage against.")
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
        f" {'coverage':>9} {'ref. mapped':>13} {'ref. unsupported':>16}" if rows is not None else "")
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
@click.option("--rules", "user_rules", multiple=True, metavar="FILE", help="Extra rule file (repeatable).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "csv"]), default="text", show_default=True)
def rules_list(library: str | None, kind: str | None, status: str, newer_than: str | None,
               user_rules: tuple[str, ...], fmt: str) -> None:
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
            click.echo(f"{row['cuda']:44} {row['hip'] or '(unsupported)':44} {row['library']}"
                       + (f"  [{versions}]" if versions else ""))
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
            click.echo(f"{path}:0: cannot read: {exc.strerror}", err=True)
            failed = True
        except RuleFileError as exc:
            click.echo(str(exc), err=True)
            failed = True
    if failed:
        sys.exit(1)


def _print_findings(results, base: Path | None = None) -> None:
    """path:line:col lines; a tree's paths are joined to the tree, so an editor can open them."""
    for result in sorted(results, key=lambda r: r.path):
        path = (base / result.path).as_posix() if base is not None else result.path
        for f in result.findings:
            click.echo(f"{path}:{f.line}:{f.column}: {f.severity.value} {f.code} {f.message}", err=True)


def _print_summary(summary: dict, elapsed: float) -> None:
    sev = summary["findings_by_severity"]
    click.echo(
        f"hipport: {summary['files']} file(s), {summary['changed']} changed, {summary['edits']} edit(s), "
        f"{summary['converted']} reference(s) ported, {summary['unmapped']} unmapped; "
        f"{sev['error']} error(s), {sev['warning']} warning(s), {sev['info']} info; {elapsed:.2f}s",
        err=True,
    )
