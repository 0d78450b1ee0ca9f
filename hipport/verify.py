"""Compile ported sources with the real HIP compiler (syntax only, no GPU needed)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

INSTALL_HINT = ("hipcc not found; on Debian/Ubuntu install it with "
                "'apt-get install -y hipcc libamdhip64-dev libhiprand-dev librocrand-dev libhipsparse-dev librocprim-dev'")
COMPILED_SUFFIXES = frozenset({".cu", ".hip", ".cpp", ".cc", ".cxx"})


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


def compile_check(path: Path, offload_arch: str = "gfx90a", include_dirs: tuple[Path, ...] = (),
                  defines: tuple[str, ...] = (), hipcc: str | None = None) -> CompileResult:
    """Run `hipcc -x hip -fsyntax-only` on one file, forcing the AMD platform.

    nvcc is installed beside hipcc on these machines and hipcc would pick it
    without HIP_PLATFORM=amd.
    """
    hipcc = hipcc or find_hipcc()
    if hipcc is None:
        raise FileNotFoundError(INSTALL_HINT)
    env = dict(os.environ, HIP_PLATFORM="amd")
    cmd = [hipcc, "-x", "hip", f"--offload-arch={offload_arch}", "-fsyntax-only",
           "-Wno-unused-command-line-argument"]
    cmd += [f"-I{d}" for d in include_dirs] + [f"-D{d}" for d in defines] + [str(path)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    output = proc.stdout + proc.stderr
    errors = [line for line in output.splitlines() if ": error:" in line or "fatal error" in line]
    return CompileResult(str(path), proc.returncode == 0, errors[0] if errors else "", output)


def compile_bytes(source: bytes, name: str = "snippet.hip", **kwargs) -> CompileResult:
    with tempfile.TemporaryDirectory(prefix="hipport-verify-") as tmp:
        path = Path(tmp) / name
        path.write_bytes(source)
        return compile_check(path, **kwargs)


def translation_units(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    return sorted(p for p in root.rglob("*") if p.suffix in COMPILED_SUFFIXES and p.is_file())


def library_headers(rules) -> frozenset[str]:
    """Every ROCm header a rule can emit: a compile that misses one lacks a library, not a fix."""
    return frozenset(h for r in rules.headers.values() for h in (r.hip, r.roc, r.hip_flat) if h)


def status(result: CompileResult, rocm_headers: frozenset[str]) -> tuple[str, str]:
    """OK, FAIL with the first error, or NO-LIB when a ROCm library is not installed."""
    if result.ok:
        return "OK", ""
    if result.missing_header in rocm_headers:
        return "NO-LIB", f"{result.missing_header} is not installed"
    return "FAIL", result.first_error
