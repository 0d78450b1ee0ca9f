"""One frozen request per command, built once at the command line's edge and passed whole.

The CLI builds a request from its flags and [tool.hipport] (hipport.config), as black builds its
Mode; hipport.api callers build one themselves. What a command does with it lives below the CLI,
so it prints nothing: the CLI prints what comes back.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from hipport.options import Options
from hipport.policy import Policy
from hipport.tree.settings import TreeSettings

if TYPE_CHECKING:
    from hipport.check import CheckRun
    from hipport.engine.port import FileResult
    from hipport.porting import TreeRun
    from hipport.ruleset.model import RuleSet


@dataclass(frozen=True)
class ConvertRequest:
    """`hipport convert`: port src to out ('-': stdout) or in place."""

    src: Path
    out: str | None = None
    in_place: bool = False
    options: Options = field(default_factory=Options)
    rule_files: tuple[Path, ...] = ()  # user rule files, [tool.hipport]'s first
    tree: TreeSettings = field(default_factory=TreeSettings)
    report_path: Path | None = None  # the JSON report's file, '-' for stdout
    quiet: bool = False
    all_findings: bool = False

    def problem(self) -> str | None:
        """Why the flags cannot go together, or None."""
        if self.out is None and not self.in_place:
            return "give -o OUT (or '-o -' for stdout), or --in-place"
        if self.out is not None and self.in_place:
            return "-o and --in-place exclude each other"
        if self.options.mode == "shim":
            # The shim keeps one source tree building with nvcc and hipcc; a .hip
            # name or a hipLaunchKernelGGL call would break the nvcc side.
            if self.tree.rename:
                return "--rename does not apply to --mode shim, which keeps CUDA file names"
            if self.options.launch_syntax == "hip":
                return "--launch-syntax hip does not apply to --mode shim, which keeps <<<>>> launches"
        if self.src.is_dir() and self.out == "-":
            return "a directory cannot be written to stdout"
        return None


@dataclass(frozen=True)
class CheckRequest:
    """`hipport check`: report what in paths will not port; change nothing."""

    paths: tuple[Path, ...]
    options: Options = field(default_factory=Options)  # options.mode "shim": check against shim_header
    policy: Policy = field(default_factory=Policy)
    rule_files: tuple[Path, ...] = ()
    fail_on: str = "error"
    fmt: str = "text"  # text, json or sarif
    baseline: Path | None = None  # the findings it records are not reported
    write_baseline: Path | None = None  # record the findings here instead of reporting them
    shim_header: Path | None = None
    quiet: bool = False
    all_findings: bool = False


@dataclass(frozen=True)
class ReportRequest:
    """`hipport report`: analyze paths, or render the finished report from_json, as fmt into out."""

    paths: tuple[Path, ...] = ()
    from_json: Path | None = None
    fmt: str = "text"
    out: Path | None = None  # None or '-': stdout
    options: Options = field(default_factory=Options)
    policy: Policy = field(default_factory=Policy)
    rule_files: tuple[Path, ...] = ()


@dataclass(frozen=True)
class VerifyRequest:
    """`hipport verify`: compile (or with run_programs, build and run) the ported code under path.

    platform is the HIP platform to build for, as convert's and check's --platform name it: one per run."""

    path: Path
    platform: str = "amd"
    hip_path: Path | None = None
    rocm_path: Path | None = None
    cuda_lib_path: Path | None = None
    std: str | None = None
    offload_arch: str | None = None
    include_dirs: tuple[Path, ...] = ()
    defines: tuple[str, ...] = ()
    compile_commands: Path | None = None
    jobs: int = 1
    report_path: Path | None = None
    json_path: Path | None = None
    run_programs: bool = False
    hip_cpu: Path | None = None
    timeout: float = 60
    compare: str | None = None
    compare_original: Path | None = None
    ignore_lines: str | None = None
    tolerance: float = 1e-5
    program_args: str | None = None
    hip_libs: Path | None = None
    once: bool = False
    verbose: bool = False


@dataclass
class ConvertOutcome:
    results: list[FileResult]
    errors: list[str]
    run: TreeRun | None  # a tree's run; None for one file
    seconds: float
    report: dict


def convert(request: ConvertRequest, rules: RuleSet, progress=None) -> ConvertOutcome:
    """Port the request's file or tree and build its report; raises PortError or OSError."""
    from hipport.report import report_for
    from hipport.tree.run import convert_tree, convert_tree_in_place
    from hipport.tree.summary import annotate_report, summary_extra

    src, started = request.src, time.perf_counter()
    run = None
    if src.is_dir():
        settings = replace(request.tree, progress=progress)
        if request.in_place:
            run = convert_tree_in_place(src, rules, request.options, settings)
        else:
            assert request.out is not None  # -o or --in-place: ConvertRequest.problem
            run = convert_tree(src, Path(request.out), rules, request.options, settings)
        results, errors = run.results, run.errors
    else:
        results, errors = [_convert_file(request, rules)], []
    seconds = time.perf_counter() - started
    extra = {"seconds": round(seconds, 3), **(summary_extra(run) if run is not None else {})}
    report = report_for(results, rules, request.options, extra, root=str(src) if src.is_dir() else None)
    if run is not None:
        annotate_report(report, run)
    return ConvertOutcome(results, errors, run, seconds, report)


def _convert_file(request: ConvertRequest, rules: RuleSet) -> FileResult:
    from hipport.buildfiles import build_file_kind
    from hipport.emit.writer import write_atomic
    from hipport.porting import PortError, port_file

    src, options, tree = request.src, request.options, request.tree
    if build_file_kind(src.name):
        result = port_build_path(src, rules, options, str(src), tree.offload_arch, tree.rename)
    else:
        from hipport.project import ProjectHeaders, own_names

        headers = ProjectHeaders(tree.include_dirs, own_names(rules), root=Path.cwd())
        result = port_file(src, rules, options, display=str(src), headers=headers)
    if request.in_place:
        if result.changed:
            write_atomic(src, result.output, mode_from=src)
    elif request.out == "-":
        sys.stdout.buffer.write(result.output)
        sys.stdout.flush()
    else:
        assert request.out is not None  # -o or --in-place: ConvertRequest.problem
        target = Path(request.out)
        if target.is_dir():
            target = target / src.name
        if target.resolve() == src.resolve():
            raise PortError(f"{target}: output is the input file; use --in-place")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(target, result.output, mode_from=src)
        except OSError as exc:  # name the output, not the temporary file beside it
            raise PortError(f"{target}: cannot write: {exc.strerror or exc}") from None
    return result


def port_build_path(path, rules, options, display: str, offload_arch: tuple[str, ...] = (), rename: bool = False):
    """Port one build file on its own (no tree): every .cu path it names counts as renamed with --rename."""
    from hipport.buildfiles import BuildSettings, port_build_file
    from hipport.tree.rename import DEFAULT_SUFFIXES, renamed_suffix

    settings = BuildSettings(
        offload_arch=offload_arch or rules.build.default_arches(options.hip_version),
        rename=(lambda text: renamed_suffix(text, DEFAULT_SUFFIXES)) if rename else None,
    )
    return port_build_file(Path(path).read_bytes(), rules, settings, path=display)


class RequestError(Exception):
    """What stops a command, in one line (a baseline or report that cannot be read or written, a shim
    header that cannot be read); errors: the per-file errors found before it, which are still said first."""

    def __init__(self, message: str, errors: list[str] | None = None):
        super().__init__(message)
        self.errors = errors or []


@dataclass
class CheckOutcome:
    """What `hipport check` found: stdout's lines (the text format) or text (json, sarif), the summary
    line for stderr, the per-file errors, how many findings a baseline recorded, and the exit status."""

    run: CheckRun
    status: int
    lines: list[str] = field(default_factory=list)
    text: str | None = None
    summary: str | None = None
    recorded: int | None = None  # with write_baseline: the findings recorded there

    @property
    def errors(self) -> list[str]:
        return self.run.errors


def check(request: CheckRequest, rules: RuleSet) -> CheckOutcome:
    """Check the request's paths against its policy and baseline, or record them in write_baseline;
    raises RequestError. Prints nothing: the CLI prints the outcome."""
    from hipport.baseline import BaselineError, load_baseline, write_baseline as save_baseline
    from hipport.check import run_check, text_lines

    options, policy, write_baseline = request.options, request.policy, request.write_baseline
    known = None
    if request.baseline is not None and write_baseline is None:
        try:
            known = load_baseline(request.baseline)
        except BaselineError as exc:
            raise RequestError(str(exc)) from None
    run = run_check(list(request.paths), rules, options, policy, known)
    if options.mode == "shim":
        _attach_shim_gaps(request, rules, run)
    if run.nothing_checked:  # no summary, report or baseline of nothing: the error lines are the whole answer
        return CheckOutcome(run, 2)
    if write_baseline is not None:
        try:
            count = save_baseline(write_baseline, run.results)
        except OSError as exc:
            raise RequestError(f"{write_baseline}: cannot write baseline: {exc.strerror}", run.errors) from None
        return CheckOutcome(run, 2 if run.errors else 0, recorded=count)
    status = 2 if run.errors else 1 if run.fails(request.fail_on) else 0
    if request.fmt == "text":  # hipport.launch prints the same lines when it runs a plain check without click
        lines, summary = text_lines(run, request.quiet, request.fail_on, request.all_findings)
        return CheckOutcome(run, status, lines, summary=summary)
    from hipport.emit.report import dumps
    from hipport.report import report_for
    from hipport.report.sarif import render_sarif

    report = report_for(run.results, rules, options, {"suppressed": run.suppressed, "baselined": run.baselined})
    return CheckOutcome(run, status, text=dumps(report) if request.fmt == "json" else render_sarif(report, rules))


def _attach_shim_gaps(request: CheckRequest, rules: RuleSet, run: CheckRun) -> None:
    """With options.mode "shim": the names and headers request.shim_header does not cover (HP601)."""
    from hipport.shim import ShimError, attach_gaps, names_not_covered

    if request.shim_header is None:
        raise RequestError("--mode shim needs --shim-header HEADER")
    try:
        target = request.options.hip_version
        gaps = names_not_covered(list(request.paths), request.shim_header, rules, target=target)
        attach_gaps(run.results, gaps, request.policy.apply)
    except ShimError as exc:
        raise RequestError(str(exc)) from None


@dataclass
class ReportOutcome:
    """The rendered report (also when it was written to request.out) and the files that could not be read."""

    text: str
    errors: list[str]
    written: Path | None = None  # the file the report went to; None: the caller shows text

    @property
    def status(self) -> int:
        return 2 if self.errors else 0


def report(request: ReportRequest, rules: RuleSet, progress=None) -> ReportOutcome:
    """Analyze the request's paths (or read its from_json report) and render it as request.fmt, written to
    request.out when that names a file; raises RequestError. progress(done, total, path) follows the analysis."""
    from hipport.report import ReportError, analyze_paths, disk_sources, load_report, render

    errors: list[str] = []
    if request.from_json is not None:
        try:
            data = load_report(request.from_json)
        except ReportError as exc:
            raise RequestError(str(exc)) from None
        sources = disk_sources(data)
    else:
        for path in request.paths:
            if not path.exists():
                from hipport.analysis import missing_path_message

                raise RequestError(missing_path_message(path))
        data, sources, errors = analyze_paths(list(request.paths), rules, request.options, request.policy, progress)
    fmt, out = request.fmt, request.out
    text = render(data, fmt, rules, sources)
    if out is None or str(out) == "-":
        return ReportOutcome(text, errors)
    from click import unstyle

    from hipport.emit.writer import write_atomic

    try:
        # surrogateescape: a file name that is not UTF-8 keeps its bytes, as on stdout
        write_atomic(out, (unstyle(text) if fmt == "text" else text).encode("utf-8", "surrogateescape"))
    except OSError as exc:
        raise RequestError(f"{out}: cannot write report: {exc.strerror}") from None
    return ReportOutcome(text, errors, out)
