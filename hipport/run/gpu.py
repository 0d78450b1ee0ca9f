"""`verify --run --platform nvidia`: build each ported program with nvcc against HIP's NVIDIA
headers and run it on the GPU; with --compare-original SRC also build the CUDA original from
SRC with plain nvcc, run both and compare exit status and output.

Statuses: PASS / FAIL (exit status, and --compare's reference), AGREE / DIFFER (port against
original), TIMEOUT (which side ran over), BUILD-FAIL (which side: port or original), NO-LIB (the
port needs a HIP library whose header this machine lacks, hipblas/hipblas.h say), NO-GPU
(built, but this machine has no NVIDIA GPU to run it on). Programs run with their folder as the
working directory (samples read data files beside them) and with argv[0] `./NAME` on both sides,
so that a program printing its own name prints the same.

Imports nothing beyond the standard library and hipport's own toolchain: the GPU machine that
runs bench/gpu_corpus.py has none of hipport's third-party dependencies but click.
"""

from __future__ import annotations

import difflib
import re
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from hipport.run.compare import (
    TAIL_LINES,
    compare_with_reference,
    difference,
    output_tail,
    same_lines_reordered,
)
from hipport.run.invoke import described, run_program
from hipport.run.libraries import available, included_libraries, library_flags
from hipport.run.programs import Program, find_programs
from hipport.run.result import ProgramResult
from hipport.run.settings import RunSettings, relocate
from hipport.toolchain import Command
from hipport.toolchain.compilers import Nvcc

BUILD_TIMEOUT = 600
DIFF_LINES = 24
GPU_RUNS_AT_ONCE = 8  # builds take every job; a single GPU runs a few programs side by side
PORT_SLOWER_ALLOWED = 2.0  # the port's time limit, as a multiple of its original's run time
ORIGINAL_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx", ".hip")  # convert --rename made .cu files .hip


@dataclass
class Side:
    """One build and run: the port's or the original's."""

    built: bool = False
    build_error: str = ""
    build_seconds: float = 0.0
    exit_status: int | None = None  # None: not run, or killed by the time limit
    timed_out: bool = False
    run_seconds: float = 0.0
    limit: float = 0.0  # the run's time limit in seconds
    output: str = ""
    output_again: str | None = None  # a second run: what varies between runs is not compared

    def as_json(self) -> dict:
        data = {k: v for k, v in self.__dict__.items() if k not in ("output", "output_again")}
        data["tail"] = output_tail(self.output)
        return data


@dataclass
class GpuResult(ProgramResult):
    """status: PASS FAIL AGREE DIFFER TIMEOUT BUILD-FAIL NO-LIB NO-GPU."""

    port: Side = field(default_factory=Side)
    original: Side | None = None
    diff: str = ""
    libraries: tuple[str, ...] = ()  # HIP's libraries the port links (--hip-libs)

    def as_json(self) -> dict:
        return {
            "program": self.program.name,
            "runs": described(self.program.runs) if self.program.runs else "",
            "runs_from": self.program.origin,
            "status": self.status,
            "detail": self.detail,
            "port": self.port.as_json(),
            "original": self.original.as_json() if self.original is not None else None,
            "diff": self.diff,
            "libraries": list(self.libraries),
        }


def gpu_present() -> bool:
    """Whether an NVIDIA GPU answers: `nvidia-smi -L` lists one."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return False
    try:
        listed = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return listed.returncode == 0 and "GPU" in listed.stdout


def original_units(program: Program, source: Path) -> list[Path] | None:
    """The CUDA original's units under source: the same relative paths, with the original suffix."""
    found = []
    for unit in program.units:
        stem = unit.with_suffix("")
        candidates = [source / unit, *(source / stem.with_suffix(s) for s in ORIGINAL_SUFFIXES)]
        hit = next((c for c in candidates if c.is_file()), None)
        if hit is None:
            return None
        found.append(hit)
    return found


def run_on_gpu(
    root: Path,
    toolchain: Nvcc,
    run: RunSettings,
    on_result: Callable[[GpuResult], None] | None = None,
    has_gpu: bool | None = None,
) -> list[GpuResult]:
    """Build (and, with a GPU, run) every program under root; results in program order."""
    source = run.compare_original
    programs = find_programs(root, source, run.args)
    base = root if root.is_dir() else root.parent
    gpu = gpu_present() if has_gpu is None else has_gpu
    original = toolchain.original(relocate(toolchain.settings.include_dirs, base, source)) if source else None
    gate = threading.Semaphore(GPU_RUNS_AT_ONCE)
    scratch = Path(tempfile.mkdtemp(prefix="hipport-gpu-"))

    one_run = GpuRun(base, toolchain, original, source, run, gpu, gate, scratch)

    def one(program: Program) -> GpuResult:
        result = one_run(program)
        if on_result is not None:
            on_result(result)
        return result

    try:
        jobs = toolchain.settings.jobs
        if jobs <= 1 or len(programs) <= 1:
            return [one(p) for p in programs]
        with ThreadPoolExecutor(max_workers=jobs) as pool:  # the compilers and the programs do the work
            return list(pool.map(one, programs))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


@dataclass(frozen=True)
class GpuRun:
    """What each program's build and run on the GPU shares; called once per program."""

    base: Path  # the ported tree (a file's folder)
    toolchain: Nvcc
    original: Nvcc | None  # builds the CUDA original, with --compare-original
    source: Path | None  # the CUDA original's tree
    run: RunSettings
    gpu: bool  # whether a GPU is here to run on
    gate: threading.Semaphore  # how many programs run at once
    scratch: Path

    def __call__(self, program: Program) -> GpuResult:
        return _one(self, program)


def _one(one_run: GpuRun, program: Program) -> GpuResult:
    base, toolchain, original = one_run.base, one_run.toolchain, one_run.original
    source = cast(Path, one_run.source)  # set whenever original is (run_on_gpu), and only read then
    run, gpu, gate, scratch = one_run.run, one_run.gpu, one_run.gate, one_run.scratch
    binary_name = program.binary_name
    folder = scratch / re.sub(r"[^\w.-]", "_", program.name)
    result = GpuResult(program, "BUILD-FAIL")
    units = [base / u for u in program.units]
    libraries = (run.hip_libs / "include",) if run.hip_libs is not None else ()
    dirs = (base / program.directory, base, *libraries)
    port = toolchain.build_command(units, folder / "port" / binary_name, dirs)
    result.libraries = tuple(included_libraries(base, program, available(run.hip_libs)))
    extra = _program_flags(program, base) + library_flags(run.hip_libs, list(result.libraries))
    result.port = _build(Command((*port.argv, *extra), port.env))
    if original is not None:  # built and run even when the port fails: the benchmark counts the originals
        found = original_units(program, source)
        if found is None:
            result.detail = f"original: no CUDA source for {program.name} under {source}"
            return result
        odirs = (source / program.directory, source)
        built = original.build_command(found, folder / "original" / binary_name, odirs)
        result.original = _build(Command((*built.argv, *_program_flags(program, source)), built.env))
    sides = [("port", result.port, base)] + ([("original", result.original, source)] if result.original else [])
    unbuilt = [f"{name}: {side.build_error}" for name, side, _ in sides if not side.built]
    if gpu:
        with gate:
            _run_sides(result, sides, folder, program, run, base)
    if unbuilt:
        result.detail = "; ".join(unbuilt)
        library = _missing_library(result.port)
        if library is not None and (result.original is None or result.original.built):
            result.status, result.detail = "NO-LIB", f"port: {library} is not installed here"
    elif not gpu:
        result.status, result.detail = "NO-GPU", "built; no NVIDIA GPU here to run it on (nvidia-smi -L lists none)"
    else:
        _judge(result, program, base, run)
    return result


def _run_sides(result: GpuResult, sides: list, folder: Path, program: Program, run, base: Path) -> None:
    """Run each built side, the original first: the port may take PORT_SLOWER_ALLOWED times the
    original's time, since on a shared GPU a program close to the limit crosses it now and then.
    Each side runs again where their outputs differ (always, without --once): what varies between
    a program's own runs (a timing) is not compared."""
    for name, side, tree in reversed(sides):
        if side.built:
            limit = _limit(result, name, run)
            _execute(side, folder / name / program.binary_name, tree / program.directory, limit, program)
    if run.once and not _first_runs_differ(result, base, run):
        return
    for name, side, tree in sides:
        if side.built and not side.timed_out:
            again = Side(built=True)
            _execute(again, folder / name / program.binary_name, tree / program.directory, side.limit, program)
            side.output_again = again.output if again.exit_status == side.exit_status else None


def _limit(result: GpuResult, name: str, run) -> float:
    original = result.original
    if name != "port" or original is None or not original.built or original.timed_out:
        return run.timeout
    return max(run.timeout, PORT_SLOWER_ALLOWED * original.run_seconds)


def _first_runs_differ(result: GpuResult, base: Path, run) -> bool:
    port, original = result.port, result.original
    if original is None or not (port.built and original.built) or port.timed_out or original.timed_out:
        return False
    if port.exit_status != original.exit_status:
        return False  # a verdict by exit status: a second run would not change it
    output = _as_if_built_from(port.output, base, run.compare_original)
    return difference(output, original.output, run.rel_tol, run.abs_tol, run.ignore) is not None


def _build(command: Command) -> Side:
    side = Side()
    Path(command.argv[command.argv.index("-o") + 1]).parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    try:
        done = command.run(timeout=BUILD_TIMEOUT)
    except subprocess.TimeoutExpired:
        side.build_error = f"the build took over {BUILD_TIMEOUT} s"
        return side
    side.build_seconds = round(time.perf_counter() - started, 2)
    if done.returncode != 0:
        output = done.stdout + done.stderr
        errors = [line for line in output.splitlines() if "error" in line]
        side.build_error = errors[0] if errors else f"nvcc exit status {done.returncode}"
        side.output = output
        return side
    side.built = True
    return side


def _program_flags(program: Program, tree: Path) -> tuple[str, ...]:
    """What the program's build file adds: its flags (a relative -I from its folder in tree) and nvcc's."""
    folder = tree / program.directory
    relative = [f.startswith("-I") and not Path(f[2:]).is_absolute() for f in program.flags]
    flags = [f"-I{folder / f[2:]}" if near else f for f, near in zip(program.flags, relative)]
    return (*flags, *program.nvcc_flags)


def _execute(side: Side, binary: Path, cwd: Path, timeout: float, program: Program) -> None:
    side.limit = timeout
    ran = run_program(binary, cwd, program.runs, timeout)
    side.exit_status, side.timed_out, side.output = ran.exit_status, ran.timed_out, ran.output
    side.run_seconds = ran.seconds


def _judge(result: GpuResult, program: Program, base: Path, run) -> None:
    port, original = result.port, result.original
    if original is None:
        if port.timed_out:
            result.status, result.detail = "TIMEOUT", f"port: still running after {run.timeout:g} s"
        elif port.exit_status != 0:
            result.status, result.detail = "FAIL", _exit(port.exit_status)
        else:
            found = compare_with_reference(program, base, port.output, run) if run.compare else None
            result.status, result.detail = ("FAIL", found) if found else ("PASS", "")
        return
    late = [name for name, side in (("port", port), ("original", original)) if side.timed_out]
    if late:
        seconds = max(side.limit for side in (port, original) if side.timed_out)
        result.status, result.detail = "TIMEOUT", f"{' and '.join(late)}: still running after {seconds:g} s"
        return
    output = _as_if_built_from(port.output, base, run.compare_original)
    again = _as_if_built_from(port.output_again, base, run.compare_original) if port.output_again is not None else None
    found = difference(output, original.output, run.rel_tol, run.abs_tol, run.ignore, original.output_again, again)
    reordered = found is not None and same_lines_reordered(output, original.output, run.ignore)
    if port.exit_status != original.exit_status:
        found, reordered = f"port {_exit(port.exit_status)}, original {_exit(original.exit_status)}", False
    if found is None or reordered:
        result.status = "AGREE"
        result.detail = "" if original.exit_status == 0 else f"both {_exit(original.exit_status)}"
        if reordered:
            result.detail = "the same lines in another order (GPU threads' output order is unspecified)"
        return
    result.status, result.detail = "DIFFER", found
    tail = -4 * TAIL_LINES
    diff = difflib.unified_diff(
        original.output.splitlines()[tail:], port.output.splitlines()[tail:], "original", "port", lineterm="", n=1
    )
    result.diff = "\n".join(list(diff)[:DIFF_LINES])


_MISSING_HEADER = re.compile(r"fatal error: ([^:\s]+): No such file or directory")


def _missing_library(side: Side) -> str | None:
    """The HIP library header (hipblas/hipblas.h) whose absence stopped the port's build: the port
    needs a library this machine lacks, which says nothing of the port. HIP's own headers (hip/...)
    are not a library."""
    found = _MISSING_HEADER.search(side.build_error)
    if found is None or found.group(1).startswith("hip/") or "/" not in found.group(1):
        return None
    return found.group(1)


def _as_if_built_from(output: str, port_tree: Path, original_tree: Path) -> str:
    """The port's output with its tree's path written as the original's: a program that prints
    __FILE__ (an assert's message, say) names the tree it was built from, which is not part of
    what it computes."""
    for mine, theirs in ((port_tree.resolve(), original_tree.resolve()), (port_tree, original_tree)):
        if str(mine) != ".":
            output = output.replace(str(mine), str(theirs))
    return output


def _exit(status: int | None) -> str:
    if status is None:
        return "not run"
    return f"exit status {status}" if status >= 0 else f"killed by signal {-status}"
