"""Compile ported sources with the real HIP compiler (syntax only, no GPU needed)."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hipport.toolchain import ToolSettings
from hipport.toolchain import database_flags as database_flags  # run/execute.py reads it here
from hipport.toolchain.compilers import HIPCC_HINT, Hipcc

INSTALL_HINT = HIPCC_HINT
COMPILED_SUFFIXES = frozenset({".cu", ".hip", ".cpp", ".cc", ".cxx", ".c"})  # .c: as C (toolchain)
HEADER_OR_SOURCE = COMPILED_SUFFIXES | {".cuh", ".h", ".hh", ".hpp", ".hxx", ".inl", ".inc", ".c"}


# clang's, gcc's (nvcc preprocesses with it) and nvcc's front end's spelling of a missing header
MISSING_HEADER = re.compile(
    r"fatal error: (?:'(?P<clang>[^']+)' file not found|(?P<gcc>[^:\s]+): No such file or directory)"
    r"|cannot open source file \"(?P<edg>[^\"]+)\""
)


@dataclass
class CompileResult:
    path: str
    ok: bool
    first_error: str
    output: str

    @property
    def missing_header(self) -> str | None:
        """The header a failed compile could not find, if that was the failure."""
        m = MISSING_HEADER.search(self.first_error)
        return (m.group("clang") or m.group("gcc") or m.group("edg")) if m else None


def find_hipcc() -> str | None:
    return shutil.which("hipcc")


def compile_check(
    path: Path,
    offload_arch: str = "gfx90a",
    include_dirs: tuple[Path, ...] = (),
    defines: tuple[str, ...] = (),
    hipcc: str | None = None,
    extra_flags: tuple[str, ...] = (),
) -> CompileResult:
    """Run `hipcc -x hip -fsyntax-only` on one file, forcing the AMD platform (the API the tests use;
    verify itself goes through a toolchain and check_unit)."""
    hipcc = hipcc or find_hipcc()
    if hipcc is None:
        raise FileNotFoundError(INSTALL_HINT)
    settings = ToolSettings(offload_arch=offload_arch, include_dirs=tuple(include_dirs), defines=tuple(defines))
    return check_unit(Hipcc(settings, hipcc), path, extra_flags=tuple(extra_flags))


def check_unit(toolchain, path: Path, include_dirs: tuple[Path, ...] = (), extra_flags: tuple[str, ...] = ()):
    """Compile one unit with the toolchain's compile-check command; the first error, clang's or nvcc's."""
    from hipport.verify.diag import first_error

    proc = _with_flags(toolchain.check_command(path, include_dirs), extra_flags).run()
    host_cxx = getattr(toolchain, "host_cxx_command", None)
    fallback = host_cxx(path, include_dirs) if proc.returncode != 0 and host_cxx is not None else None
    if fallback is not None:
        retried = _with_flags(fallback, extra_flags).run()
        if retried.returncode == 0:
            proc = retried
    output = proc.stdout + proc.stderr
    found = first_error(output)
    if found is not None:
        first = found.text
    else:
        # not shaped file:line: error (ptxas: "line 209; error   : Instruction 'vote' without '.sync'")
        errors = [line for line in output.splitlines() if re.search(r"\berror\b|\bfatal\b", line)]
        first = errors[0] if errors else ""
    return CompileResult(str(path), proc.returncode == 0, first, output)


def _with_flags(command, extra_flags: tuple[str, ...]):
    """command with extra_flags before its last argument, the unit."""
    if not extra_flags:
        return command
    return type(command)((*command.argv[:-1], *extra_flags, command.argv[-1]), command.env)


def compile_bytes(source: bytes, name: str = "snippet.hip", **kwargs) -> CompileResult:
    with tempfile.TemporaryDirectory(prefix="hipport-verify-") as tmp:
        path = Path(tmp) / name
        path.write_bytes(source)
        return compile_check(path, **kwargs)


def translation_units(root: Path, include_dirs: tuple[Path, ...] = ()) -> list[Path]:
    """The sources under root that are compiled on their own: not binary data, and not a .cu
    (or .cpp) that another file #includes, which is a header whatever its name."""
    if root.is_file():
        return [root]
    from hipport.verify.includes import IncludeGraph, included_files

    sources = sorted(p for p in root.rglob("*") if p.suffix in COMPILED_SUFFIXES and p.is_file() and not _binary(p))
    graph = IncludeGraph(root, include_dirs)
    texts = [p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in HEADER_OR_SOURCE]
    included = included_files(graph, texts)
    return [p for p in sources if Path(os.path.abspath(p)) not in included]


def _binary(path: Path) -> bool:
    """A data file that only has a source's name (convert copied it unported)."""
    try:
        with open(path, "rb") as f:
            return b"\0" in f.read(8000)
    except OSError:
        return False


def rule_library_headers(rules) -> dict[str, str]:
    """Every ROCm header a rule can emit, named after its library (hipblas): a compile that misses
    one lacks a library, not a fix."""
    found: dict[str, str] = {}
    for rule in rules.headers.values():
        for header in (rule.hip, rule.roc, rule.hip_flat, rule.roc_flat):
            if header:
                found.setdefault(header, header.split("/")[0].removesuffix(".h"))
        if rule.hip and not rule.hip.startswith("hip/"):
            # on NVIDIA a HIP library's header wraps the CUDA library's (hiprand_kernel.h includes
            # curand_kernel.h): without that CUDA library installed, the library is what is missing
            found.setdefault(rule.cuda, rule.hip.split("/")[0].removesuffix(".h"))
    return found


def library_headers(rules) -> frozenset[str]:
    return frozenset(rule_library_headers(rules))


def status(result: CompileResult, rocm_headers: frozenset[str]) -> tuple[str, str]:
    """OK, FAIL with the first error, or NO-LIB when a ROCm library is not installed."""
    if result.ok:
        return "OK", ""
    if result.missing_header in rocm_headers:
        return "NO-LIB", f"{result.missing_header} is not installed"
    return "FAIL", result.first_error


def unit_include_dirs(unit: Path, include_dirs: tuple[Path, ...] = ()) -> tuple[Path, ...]:
    """The -I directories one unit is compiled with: the project's explicit ones, then the unit's own
    folder (where its build runs). Never another unit's folder: a header name two programs of a tree
    share would resolve to the other program's file."""
    return (*include_dirs, Path(unit).parent)


def check_units(
    units: list[Path],
    toolchain,
    include_dirs: tuple[Path, ...] = (),
    jobs: int = 1,
    progress=None,
    own_folder: bool = False,
) -> list[CompileResult]:
    """Compile every unit with the toolchain, jobs at a time; results in the order of units.
    progress(unit), if given, is called as each unit is done (from the worker threads).
    own_folder: each unit also gets -I its own folder (unit_include_dirs)."""
    from concurrent.futures import ThreadPoolExecutor

    def one(unit: Path) -> CompileResult:
        result = check_unit(toolchain, unit, unit_include_dirs(unit, include_dirs) if own_folder else include_dirs)
        if progress is not None:
            progress(unit)
        return result

    if jobs <= 1:
        return [one(u) for u in units]
    with ThreadPoolExecutor(max_workers=jobs) as pool:  # the compiler does the work; threads only wait
        return list(pool.map(one, units))
