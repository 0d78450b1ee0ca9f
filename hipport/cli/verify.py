"""`hipport verify`: compile ported sources with hipcc -fsyntax-only."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from hipport.cli.common import _fail, _load_rules


@click.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "--platform",
    type=click.Choice(["amd", "nvidia"]),
    default="amd",
    show_default=True,
    help="The HIP platform to build for, as convert's and check's --platform name it; one per run. "
    "amd: hipcc (HIP_PLATFORM=amd; --run: the HIP CPU Runtime). nvidia: nvcc with HIP's NVIDIA "
    "headers (--hip-path; --run: on the GPU).",
)
@click.option(
    "--hip-path",
    type=click.Path(path_type=Path),
    metavar="DIR",
    help="HIP headers (DIR or DIR/include holding hip/hip_runtime.h): put before hipcc's own on AMD, "
    "HIP's NVIDIA headers with --platform nvidia. Default: HIPPORT_HIP_PATH, then [tool.hipport] hip-path.",
)
@click.option(
    "--rocm-path",
    type=click.Path(path_type=Path),
    metavar="DIR",
    help="ROCm library headers (DIR or DIR/include holding hipblas/, hipcub/, thrust/...: /opt/rocm, "
    "ROCm-libs): hipBLAS, hipCUB, rocThrust & co. compile instead of stopping at NO-LIB; on NVIDIA they "
    "come after the CUDA toolkit's. Default: HIPPORT_ROCM_PATH, then [tool.hipport] rocm-path.",
)
@click.option(
    "--cuda-lib-path",
    type=click.Path(path_type=Path),
    metavar="DIR",
    help="With --platform nvidia: CUDA library headers (DIR or DIR/include holding cublas_v2.h, cufft.h, "
    "curand.h, cusolverDn.h, cusparse.h; `make cuda-lib-headers` extracts them). Default: "
    "HIPPORT_CUDA_LIB_PATH, then [tool.hipport] cuda-lib-path.",
)
@click.option(
    "--std",
    metavar="STD",
    help="C++ standard (c++17) for units the compile database gives none. Default: [tool.hipport] std, then c++17.",
)
@click.option(
    "--offload-arch", metavar="ARCH", help="GPU target to compile for. Default: gfx90a (amd), sm_90 (nvidia)."
)
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
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="The JSON report 'hipport convert --report' wrote for PATH: each failure is "
    "joined to the finding that predicted it, or flagged as a hipport bug.",
)
@click.option(
    "--json",
    "json_path",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="With --report: also write every unit's verdict and the figures as JSON to FILE; with --run, "
    "every program's result.",
)
@click.option(
    "--run",
    "run_programs",
    is_flag=True,
    help="Build each program (a unit with a main) and run it: on AMD against the HIP CPU Runtime, on "
    "64-lane wavefronts (NO-RUNTIME when it needs a library the runtime lacks); on NVIDIA with nvcc, on "
    "the GPU (NO-GPU without one). PASS/FAIL is the exit status only: a program that checks itself and "
    "exits 0 either way needs --compare or --compare-original.",
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
    "--compare-original",
    type=click.Path(file_okay=False, path_type=Path),
    metavar="SRC",
    help="With --run --platform nvidia: also build the CUDA original of each program from SRC (the tree "
    "the port came from) with plain nvcc, run both, compare exit status and output: AGREE or DIFFER. "
    "Each side runs twice; what a program's own runs disagree on (timings) is not compared.",
)
@click.option(
    "--ignore-lines",
    metavar="REGEX",
    help="With --compare or --compare-original: output lines this regular expression finds are not compared (timings).",
)
@click.option(
    "--tolerance",
    type=click.FloatRange(min=0),
    default=1e-5,
    show_default=True,
    metavar="REL",
    help="With --compare: relative tolerance for numbers.",
)
@click.option(
    "--args",
    "program_args",
    metavar="'ARG ...'",
    help="With --run: run every program with these arguments (one shell-quoted string). Without it, "
    "each program runs as its own build runs it: the command lines of its Makefile's run: target "
    "(`$(LAUNCHER) ./$(program) 10000 200` gives 10000 200; several lines run in turn, as make does), "
    "else its CMakeLists.txt's add_test; with --compare-original, the original's build files, and "
    "both sides get the same arguments. A Makefile also gives the program's units (its link rule, "
    "source =) and its -std, -D and -I.",
)
@click.option(
    "--hip-libs",
    type=click.Path(file_okay=False, path_type=Path),
    metavar="DIR",
    help="With --run --platform nvidia: HIP's libraries built for NVIDIA (bench/gpu_libs.py's prefix: "
    "include/ and lib/): the ports build against their headers and link those they include.",
)
@click.option(
    "--once",
    is_flag=True,
    help="With --compare-original: run each side a second time only where the first runs' outputs differ "
    "(what varies between a program's own runs, such as timings, is then not compared); for suites of "
    "long benchmarks.",
)
@click.option("-v", "--verbose", is_flag=True, help="With --run: say what the run step bridged.")
def verify(path: Path, **flags) -> None:
    """Compile ported sources under PATH (no GPU needed): with hipcc -fsyntax-only (AMD, the
    default) or with nvcc against HIP's NVIDIA headers (--platform nvidia).

    Prints OK, FAIL (with the first error) or NO-LIB (a ROCm library header that
    is not installed here) for each translation unit. Exits 1 if any failed.
    HIP_PLATFORM=amd is forced on AMD, so an installed nvcc is never used there. A
    .cu file that another file #includes is a header, not a unit.

    With --report, each failure is explained instead: EXPECTED or SEMANTIC (the
    finding that predicted it, and where), NO-LIB, NO-INC (a project header the
    include path misses), or BUG (nothing in the report predicted it: hipport's
    port is at fault; please send it to us). A table by
    class and the clean-verdict precision follow: of the units whose file and
    project headers have no error or warning finding, the share that compile or
    lack only a library.

    With --run, builds and runs the ported programs instead (see --run).
    """
    from hipport.cli.verify_setup import run_settings, tool_settings
    from hipport.requests import VerifyRequest

    request = VerifyRequest(
        path, **{**flags, "include_dirs": tuple(flags["include_dirs"]), "defines": tuple(flags["defines"])}
    )
    if not path.exists():
        _fail(f"{path}: no such file or directory")
    report_path = request.report_path
    if report_path is not None and not report_path.is_file():
        _fail(f"{report_path}: no such file or directory")
    tools, config = tool_settings(request)
    if request.run_programs:
        from hipport.cli.verify_run import verify_run

        settings = run_settings(tools, request)
        rules = lambda: _load_rules(())  # noqa: E731  (read only if a run needs them)
        sys.exit(verify_run(path, settings, config.hip_cpu, rules, request.verbose, request.json_path))
    sys.exit(_compile(path, tools, report_path, request.json_path))


def _compile(path: Path, tools, report_path: Path | None, json_path: Path | None) -> int:
    from hipport.cli.verify_setup import say_headers
    from hipport.toolchain import ToolchainError, make_toolchain
    from hipport.verify import library_headers, status, translation_units

    try:
        toolchain = make_toolchain(tools)
    except ToolchainError as exc:
        _fail(str(exc))
    if json_path is not None and report_path is None:
        raise click.UsageError("--json needs --report (or --run)")
    report = None
    if report_path is not None:
        from hipport.verify.join import Report, ReportError

        try:
            report = Report.load(report_path)
        except ReportError as exc:
            _fail(str(exc))
    rules = _load_rules(())
    rocm_headers = library_headers(rules)
    units = translation_units(path, tools.include_dirs)
    say_headers(toolchain, report_path, units)
    include_dirs = tuple(tools.include_dirs) + tuple(sorted({u.parent for u in units}))
    results = _compiled(units, toolchain, tools.jobs)
    if report is not None:
        from hipport.cli.verify_join import joined

        assert report_path is not None  # the report was read from it
        return joined(path, units, results, report, report_path, rules, include_dirs, json_path)
    counts = {"OK": 0, "FAIL": 0, "NO-LIB": 0}
    for unit, result in zip(units, results):
        state, detail = status(result, rocm_headers)
        counts[state] += 1
        click.echo(f"{state:6} {unit}" + (f": {detail}" if detail else ""))
    click.echo(
        f"hipport verify: {counts['OK']} ok, {counts['FAIL']} failed, "
        f"{counts['NO-LIB']} need a ROCm library that is not installed"
    )
    return 1 if counts["FAIL"] else 0


def _compiled(units: list[Path], toolchain, jobs: int) -> list:
    """check_units, with a progress line on a terminal: a tree's units take a second each."""
    import threading

    from hipport.console import Progress
    from hipport.verify import check_units

    lock = threading.Lock()
    with Progress("hipport verify", "units") as progress:
        progress.update(0, len(units))

        def done(unit: Path) -> None:
            with lock:  # the compiles finish on jobs threads
                progress.advance(1, str(unit))

        # each unit with -I its own folder only (and the toolchain's explicit -I, -D and database flags)
        return check_units(units, toolchain, (), jobs, done, own_folder=True)
