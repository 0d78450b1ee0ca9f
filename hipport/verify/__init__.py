"""Compile ported sources with the real HIP compiler (syntax only, no GPU needed)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

INSTALL_HINT = (
    "hipcc not found; on Debian/Ubuntu install it with 'apt-get install -y "
    "hipcc libamdhip64-dev libhiprand-dev librocrand-dev libhipsparse-dev librocprim-dev'"
)
COMPILED_SUFFIXES = frozenset({".cu", ".hip", ".cpp", ".cc", ".cxx"})
HEADER_OR_SOURCE = COMPILED_SUFFIXES | {".cuh", ".h", ".hh", ".hpp", ".hxx", ".inl", ".inc", ".c"}


MISSING_HEADER = re.compile(r"fatal error: '([^']+)' file not found")


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
        return m.group(1) if m else None


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
    """Run `hipcc -x hip -fsyntax-only` on one file, forcing the AMD platform.

    nvcc is installed beside hipcc on these machines and hipcc would pick it
    without HIP_PLATFORM=amd.
    """
    hipcc = hipcc or find_hipcc()
    if hipcc is None:
        raise FileNotFoundError(INSTALL_HINT)
    env = dict(os.environ, HIP_PLATFORM="amd")
    cmd = [hipcc, "-x", "hip", f"--offload-arch={offload_arch}", "-fsyntax-only", "-Wno-unused-command-line-argument"]
    cmd += [f"-I{d}" for d in include_dirs] + [f"-D{d}" for d in defines] + list(extra_flags) + [str(path)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    output = proc.stdout + proc.stderr
    errors = [line for line in output.splitlines() if ": error:" in line or "fatal error" in line]
    return CompileResult(str(path), proc.returncode == 0, errors[0] if errors else "", output)


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


def library_headers(rules) -> frozenset[str]:
    """Every ROCm header a rule can emit: a compile that misses one lacks a library, not a fix."""
    return frozenset(h for r in rules.headers.values() for h in (r.hip, r.roc, r.hip_flat, r.roc_flat) if h)


def status(result: CompileResult, rocm_headers: frozenset[str]) -> tuple[str, str]:
    """OK, FAIL with the first error, or NO-LIB when a ROCm library is not installed."""
    if result.ok:
        return "OK", ""
    if result.missing_header in rocm_headers:
        return "NO-LIB", f"{result.missing_header} is not installed"
    return "FAIL", result.first_error


def database_flags(unit: Path, entries: dict) -> tuple[str, ...]:
    """The include paths, macros and standard a compile database gives a ported unit.

    The database may come from the ported build (same paths) or from the CUDA
    build (src/a.cu for a port at out/src/a.hip): then the entry whose path
    shares the longest tail with the unit, suffixes aside, is the one.
    """
    unit = unit.resolve()
    entry = entries.get(unit)
    if entry is None:

        def tail(path: Path) -> int:
            a, b = _stem_parts(path), _stem_parts(unit)
            n = 0
            while n < min(len(a), len(b)) and a[-1 - n] == b[-1 - n]:
                n += 1
            return n

        best = max(entries, key=tail, default=None)
        entry = entries[best] if best is not None and tail(best) > 0 else None
    return entry.flags if entry is not None else ()


def _stem_parts(path: Path) -> tuple[str, ...]:
    name = path.name.split(".")[0]
    return (*path.parent.parts, name)


def check_units(
    units: list[Path],
    offload_arch: str,
    include_dirs: tuple[Path, ...],
    defines: tuple[str, ...],
    hipcc: str,
    entries: dict | None = None,
    jobs: int = 1,
) -> list[CompileResult]:
    """Compile every unit, jobs at a time; results in the order of units."""
    from concurrent.futures import ThreadPoolExecutor

    def one(unit: Path) -> CompileResult:
        flags = database_flags(unit, entries) if entries else ()
        return compile_check(unit, offload_arch, include_dirs, defines, hipcc=hipcc, extra_flags=flags)

    if jobs <= 1:
        return [one(u) for u in units]
    with ThreadPoolExecutor(max_workers=jobs) as pool:  # hipcc does the work; threads only wait
        return list(pool.map(one, units))
