"""Build each ported program against the HIP CPU Runtime, run it, judge it.

PASS: built, exited 0 within the time limit (and agreed with --compare's
reference). FAIL: did not build, exited non-zero, timed out or disagreed.
NO-RUNTIME: it needs a HIP library the CPU runtime does not have.
The port itself is never touched: everything happens in a temporary copy.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from hipport.run.bridge import bridge_source
from hipport.run.compare import compare_with_reference, output_tail
from hipport.run.invoke import run_program
from hipport.run.programs import Program, find_programs
from hipport.run.result import ProgramResult
from hipport.run.runtime import precompiled_prelude, runtime_headers
from hipport.run.settings import RunSettings, relocate
from hipport.toolchain.compilers import HipCpu

BRIDGED_SUFFIXES = frozenset({".cu", ".cuh", ".hip", ".cpp", ".cc", ".cxx", ".c", ".h", ".hh", ".hpp", ".hxx", ".inl"})
BUILD_TIMEOUT = 600
_MISSING = re.compile(r"fatal error: ([^:\s]+): No such file")


@dataclass
class RunResult(ProgramResult):
    """status: PASS, FAIL or NO-RUNTIME."""

    tail: str = ""  # the end of its output
    build_seconds: float = 0.0
    run_seconds: float = 0.0
    bridged: list[str] = field(default_factory=list)


def run_tree(
    root: Path,
    toolchain: HipCpu,
    rules,
    options,
    settings: RunSettings,
    on_result: Callable[[RunResult], None] | None = None,
) -> list[RunResult]:
    """Build and run every program under root (a ported file or tree); results in program order."""
    programs = find_programs(root, args=settings.args)
    if not programs:
        return []
    with _scratch() as scratch:
        copy = scratch / "tree"
        notes, missing = _bridged_copy(root, copy, rules, options, runtime_headers(toolchain))
        # -I directories inside the port point into the bridged copy; the settings are the run's
        base = root if root.is_dir() else root.parent
        tools = replace(settings.tools, include_dirs=relocate(settings.tools.include_dirs, base, copy), database=None)
        toolchain = replace(toolchain, settings=tools, prelude=precompiled_prelude(toolchain))

        one_run = CpuRun(root, copy, scratch, toolchain, settings, notes, missing)

        def one(program: Program) -> RunResult:
            result = one_run(program)
            if on_result is not None:
                on_result(result)
            return result

        if settings.jobs <= 1 or len(programs) == 1:
            return [one(p) for p in programs]
        with ThreadPoolExecutor(max_workers=settings.jobs) as pool:  # the compilers do the work
            return list(pool.map(one, programs))


@contextmanager
def _scratch() -> Iterator[Path]:
    directory = Path(tempfile.mkdtemp(prefix="hipport-run-"))
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _bridged_copy(
    root: Path, copy: Path, rules, options, available: frozenset[str]
) -> tuple[dict[Path, list[str]], dict[Path, list[str]]]:
    """Copy root to copy with every source bridged; what changed and what is missing, per file."""
    if root.is_file():
        copy.mkdir(parents=True)
        shutil.copyfile(root, copy / root.name)
    else:
        shutil.copytree(root, copy, symlinks=False, ignore=shutil.ignore_patterns(".git"))
    notes: dict[Path, list[str]] = {}
    missing: dict[Path, list[str]] = {}
    for path in sorted(copy.rglob("*")):
        if path.suffix not in BRIDGED_SUFFIXES or not path.is_file():
            continue
        bridged = bridge_source(path.read_bytes(), rules, options, available)
        relative = path.relative_to(copy)
        if bridged.changes:
            path.write_bytes(bridged.source)
            notes[relative] = bridged.changes
        if bridged.missing:
            missing[relative] = bridged.missing
    return notes, missing


@dataclass(frozen=True)
class CpuRun:
    """What each program's build and run on the HIP CPU Runtime shares; called once per program."""

    root: Path  # the port as given
    copy: Path  # its bridged copy, which is built
    scratch: Path
    toolchain: HipCpu
    settings: RunSettings
    notes: dict  # unit -> what bridging changed
    missing: dict  # unit -> headers the runtime lacks

    def __call__(self, program: Program) -> RunResult:
        return _run_one(self, program)


def _run_one(one_run: CpuRun, program: Program) -> RunResult:
    root, copy, scratch, toolchain = one_run.root, one_run.copy, one_run.scratch, one_run.toolchain
    settings, notes, missing = one_run.settings, one_run.notes, one_run.missing
    result = RunResult(program, "FAIL", bridged=[f"{u}: {n}" for u in program.units for n in notes.get(u, [])])
    lacking = sorted({h for u in _with_local_headers(program, copy) for h in missing.get(u, [])})
    if lacking:
        result.status, result.detail = "NO-RUNTIME", f"the HIP CPU Runtime has no {', '.join(lacking)}"
        return result
    binary = scratch / "bin" / re.sub(r"[^\w.-]", "_", program.name)
    binary.parent.mkdir(parents=True, exist_ok=True)
    include_dirs = (copy / program.directory, copy)
    cmd = list(toolchain.build_command([copy / u for u in program.units], binary, include_dirs).argv)
    if settings.tools.database:
        cmd[1:1] = _database_flags(program, root, copy, settings.tools.database)
    started = time.perf_counter()
    try:
        build = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=BUILD_TIMEOUT)
    except subprocess.TimeoutExpired:
        result.detail = f"the build took over {BUILD_TIMEOUT} s"
        return result
    result.build_seconds = time.perf_counter() - started
    if build.returncode != 0:
        output = build.stdout + build.stderr
        absent = _MISSING.search(output)
        if absent and re.match(r"(?:hip|roc)", absent.group(1)):
            result.status, result.detail = "NO-RUNTIME", f"the HIP CPU Runtime has no {absent.group(1)}"
        else:
            errors = [line for line in output.splitlines() if "error" in line]
            first = errors[0] if errors else f"exit status {build.returncode}"
            result.detail = "build failed: " + first.replace(str(copy) + "/", "")
            result.tail = output_tail(output.replace(str(copy) + "/", ""))
        return result
    ran = run_program(binary, copy / program.directory, program.runs, settings.timeout)
    result.run_seconds = ran.seconds
    result.tail = output_tail(ran.output)
    if ran.timed_out:
        result.detail = f"still running after {settings.timeout:g} s"
        return result
    if ran.exit_status != 0:
        status = ran.exit_status or 0
        result.detail = f"exit status {status}" if status > 0 else f"killed by signal {-status}"
        return result
    if settings.compare:
        detail = _compare(program, root, ran.output, settings)
        if detail:
            result.detail = detail
            return result
    result.status = "PASS"
    return result


def _compare(program: Program, root: Path, output: str, settings: RunSettings) -> str | None:
    return compare_with_reference(program, root, output, settings)


def _database_flags(program: Program, root: Path, copy: Path, entries) -> list[str]:
    """The macros a compile database gives the program's units, and its include paths inside the port.

    Include paths outside the ported tree stay out: they may hold the unported CUDA headers.
    """
    from hipport.verify import database_flags

    base = (root if root.is_dir() else root.parent).resolve()
    found: list[str] = []
    for unit in program.units:
        flags = list(database_flags(base / unit, entries))
        for index, flag in enumerate(flags):
            if flag.startswith(("-D", "-U")):
                value = flag if len(flag) > 2 else flag + (flags[index + 1] if index + 1 < len(flags) else "")
                found.append(value)
            elif flag.startswith("-I"):
                path = Path(flag[2:] or (flags[index + 1] if index + 1 < len(flags) else ""))
                if path.is_absolute() and path.resolve().is_relative_to(base):
                    found.append(f"-I{copy / path.resolve().relative_to(base)}")
    return list(dict.fromkeys(found))


def _with_local_headers(program: Program, copy: Path) -> set[Path]:
    """The program's units and the headers of the tree they include directly."""
    found = set(program.units)
    for unit in program.units:
        try:
            text = (copy / unit).read_text(errors="replace")
        except OSError:
            continue
        for name in re.findall(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', text, re.M):
            found.add(Path(unit.parent, name))
    return found
