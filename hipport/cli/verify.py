"""`hipport verify`: compile ported sources with hipcc -fsyntax-only."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from hipport.cli.common import _fail, _load_rules


@click.command()
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option("--offload-arch", default="gfx90a", show_default=True, help="AMD GPU target to compile for.")
@click.option("-I", "include_dirs", multiple=True, type=click.Path(path_type=Path), help="Extra include directory.")
@click.option("-D", "defines", multiple=True, help="Extra preprocessor define.")
@click.option(
    "-p",
    "--compile-commands",
    type=click.Path(path_type=Path),
    metavar="PATH",
    help="compile_commands.json (or its build directory): include paths and macros for each unit; "
    "nvcc's flags are translated.",
)
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    metavar="N",
    help="Run N compiles at a time.",
)
@click.option(
    "--report",
    "report_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    metavar="FILE",
    help="The JSON report 'hipport convert --report' wrote for PATH: each failure is "
    "joined to the finding that predicted it, or flagged as a hipport bug.",
)
@click.option(
    "--json",
    "json_path",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="With --report: also write every unit's verdict and the figures as JSON to FILE.",
)
@click.option(
    "--run",
    "run_programs",
    is_flag=True,
    help="Build each program (a unit with a main) against the HIP CPU Runtime and run it on "
    "64-lane wavefronts: PASS/FAIL on its exit status, NO-RUNTIME when it needs a library "
    "the runtime lacks.",
)
@click.option(
    "--hip-cpu",
    type=click.Path(path_type=Path),
    metavar="DIR",
    help="With --run: the HIP CPU Runtime checkout. Default: HIPPORT_HIP_CPU, then [tool.hipport] hip-cpu.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=60,
    show_default=True,
    metavar="SECONDS",
    help="With --run: how long each program may run.",
)
@click.option(
    "--compare",
    metavar="CMD",
    help="With --run: a reference command whose output each "
    "program's must match ({stem}, {name} and {dir} name the program), e.g. the CUDA "
    "original on a GPU machine or 'cat expected/{stem}.txt'.",
)
@click.option(
    "--tolerance",
    type=click.FloatRange(min=0),
    default=1e-5,
    show_default=True,
    metavar="REL",
    help="With --compare: relative tolerance for numbers.",
)
@click.option("-v", "--verbose", is_flag=True, help="With --run: say what the run step bridged.")
def verify(
    path: Path,
    offload_arch: str,
    include_dirs: tuple[Path, ...],
    defines: tuple[str, ...],
    compile_commands: Path | None = None,
    jobs: int = 1,
    run_programs: bool = False,
    hip_cpu: Path | None = None,
    timeout: float = 60,
    compare: str | None = None,
    tolerance: float = 1e-5,
    verbose: bool = False,
    report_path: Path | None = None,
    json_path: Path | None = None,
) -> None:
    """Compile ported sources under PATH with hipcc -fsyntax-only (no GPU needed).

    Prints OK, FAIL (with the first error) or NO-LIB (a ROCm library header that
    is not installed here) for each translation unit. Exits 1 if any failed.
    HIP_PLATFORM=amd is forced, so an installed nvcc is never used. A .cu file
    that another file #includes is a header, not a unit.

    With --report, each failure is explained instead: EXPECTED or SEMANTIC (the
    finding that predicted it, and where), NO-LIB, NO-INC (a project header the
    include path misses), or BUG (nothing in the report predicted it: hipport's
    port is at fault; please send it to us). A table by
    class and the clean-verdict precision follow: of the units whose file and
    project headers have no error or warning finding, the share that compile or
    lack only a library.

    With --run, builds and runs the ported programs instead, on the CPU (see --run).
    """
    if run_programs:
        _verify_run(path, hip_cpu, compile_commands, jobs, timeout, compare, tolerance, verbose)
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
    if json_path is not None and report_path is None:
        raise click.UsageError("--json needs --report")
    report = None
    if report_path is not None:
        from hipport.verify.join import Report, ReportError

        try:
            report = Report.load(report_path)
        except ReportError as exc:
            _fail(str(exc))
    rules = _load_rules(())
    rocm_headers = library_headers(rules)
    units = translation_units(path, tuple(include_dirs))
    include_dirs = tuple(include_dirs) + tuple(sorted({u.parent for u in units}))
    counts = {"OK": 0, "FAIL": 0, "NO-LIB": 0}
    results = check_units(units, offload_arch, include_dirs, defines, hipcc, entries, jobs)
    if report is not None:
        from hipport.cli.verify_join import joined

        assert report_path is not None  # the report was read from it

        sys.exit(joined(path, units, results, report, report_path, rules, include_dirs, json_path))
    for unit, result in zip(units, results):
        state, detail = status(result, rocm_headers)
        counts[state] += 1
        click.echo(f"{state:6} {unit}" + (f": {detail}" if detail else ""))
    click.echo(
        f"hipport verify: {counts['OK']} ok, {counts['FAIL']} failed, "
        f"{counts['NO-LIB']} need a ROCm library that is not installed"
    )
    if counts["FAIL"]:
        sys.exit(1)


def _verify_run(
    path: Path,
    hip_cpu: Path | None,
    compile_commands: Path | None,
    jobs: int,
    timeout: float,
    compare: str | None,
    tolerance: float,
    verbose: bool,
) -> None:
    from hipport.config import ConfigError, find_config, load_config
    from hipport.run.command import verify_run
    from hipport.run.execute import RunSettings

    try:
        configured = load_config(find_config()).hip_cpu
    except ConfigError as exc:
        _fail(str(exc))
    database = None
    if compile_commands is not None:
        from hipport.parse.compdb import CompileDatabaseError, load

        try:
            database = load(compile_commands)
        except CompileDatabaseError as exc:
            _fail(str(exc))
    settings = RunSettings(timeout=timeout, compare=compare, rel_tol=tolerance, jobs=jobs, database=database)
    sys.exit(verify_run(path, hip_cpu, configured, settings, _load_rules(()), verbose))
