"""The seam between hipport and the compilers: one settings object, one toolchain per platform.

A platform (hipcc for AMD, nvcc with HIP's NVIDIA headers, g++ with the HIP CPU Runtime)
is a Toolchain built from one frozen ToolSettings. `verify` asks it for the compile-check
command of a unit and `verify --run` for the build command of a program, from the same
settings, so every -I, -D, compile-database flag and header path reaches both. Nothing
outside this package asks which platform it is on.

Only the standard library is imported here: the GPU step (bench/gpu_corpus.py run) runs
on machines where hipport's third-party dependencies are not installed.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PLATFORMS = ("amd", "nvidia")
HIP_PATH_ENV = "HIPPORT_HIP_PATH"
ROCM_PATH_ENV = "HIPPORT_ROCM_PATH"
CUDA_LIB_PATH_ENV = "HIPPORT_CUDA_LIB_PATH"
DEFAULT_STD = "c++17"  # Debian's hipcc adds -std=c++11; rocPRIM, hipCUB and rocThrust need C++14
# What marks a directory as ROCm's library headers (6.x layout, <hipblas/hipblas.h>) or CUDA's.
ROCM_MARKERS = (
    "hipblas/hipblas.h",
    "hipfft/hipfft.h",
    "hipsolver/hipsolver.h",
    "hipsparse/hipsparse.h",
    "hiprand/hiprand.h",
    "hipcub/hipcub.hpp",
    "rocprim/rocprim.hpp",
    "thrust/version.h",
)
CUDA_LIB_MARKERS = ("cublas_v2.h", "cufft.h", "curand.h", "cusolverDn.h", "cusparse.h")


class ToolchainError(Exception):
    """A compiler or the headers it needs are missing: one line for the user."""


@dataclass(frozen=True)
class ToolSettings:
    """Everything a compile or a build takes, read once from flags, [tool.hipport] and the environment."""

    platform: str = "amd"
    hip_path: Path | None = None  # HIP headers: put first on AMD, HIP's NVIDIA headers on NVIDIA
    include_dirs: tuple[Path, ...] = ()
    defines: tuple[str, ...] = ()
    database: Mapping[Path, Any] | None = field(default=None, compare=False)  # compile_commands.json entries
    offload_arch: str | None = None  # None: the platform's default (gfx90a, sm_90)
    jobs: int = 1
    compiler: str | None = None  # hipcc or nvcc to use instead of the one on PATH
    hip_cpu: Path | None = None  # the HIP CPU Runtime checkout (verify --run on the CPU)
    rocm_path: Path | None = None  # ROCm library headers' include directory (hipblas/, hipcub/, thrust/...)
    cuda_lib_path: Path | None = None  # CUDA library headers' include directory (cublas_v2.h...), NVIDIA
    std: str = DEFAULT_STD  # the C++ standard where the compile database gives the unit none
    target: str | None = None  # X.Y: the HIP release the port targets (verify's report, else the default)

    def unit_flags(self, units: list[Path] | tuple[Path, ...] = ()) -> list[str]:
        """-std, -I, -D and the compile database's flags for these units, in the order the compilers get them.

        -std comes first and only when the database gives none: the compiler's own default
        (Debian's hipcc adds -std=c++11 ahead of everything) is overridden since the last -std wins.
        """
        flags = [f"-I{d}" for d in self.include_dirs] + [f"-D{d}" for d in self.defines]
        database: list[str] = []
        if self.database:
            # a program's units usually share one database entry: each entry's flags once, whole,
            # since a flag's value may be a word of its own (-I dir) that a word-by-word pass would drop
            seen: set[tuple[str, ...]] = set()
            for unit in units:
                entry = tuple(database_flags(unit, self.database))
                if entry not in seen:
                    seen.add(entry)
                    database += entry
        std = [] if any(f.startswith("-std=") for f in database) else [f"-std={self.std}"]
        return std + flags + database

    def unit_std(self, unit: Path) -> str:
        """The C++ standard a unit compiles with: the compile database's, else the setting."""
        found = [f[5:] for f in self.unit_flags([unit]) if f.startswith("-std=")]
        return found[-1] if found else self.std

    def may_be_host_cxx(self, unit: Path) -> bool:
        """Whether nvcc's own reading of the unit is host C++: a .cpp, .cc or .cxx file whose build
        does not name the language (`nvcc -x cu`). A build may still compile it as CUDA."""
        if unit.suffix not in (".cpp", ".cc", ".cxx"):
            return False
        entry = database_entry(unit, self.database) if self.database else None
        return getattr(entry, "language", None) in (None, "c++")

    def compiles_as_c(self, unit: Path) -> bool:
        """Whether nvcc builds the unit as host C: a .c file, unless its build names the language
        (`nvcc -x cu`, which HeCBench's Makefiles give their .c files)."""
        if unit.suffix != ".c":
            return False
        entry = database_entry(unit, self.database) if self.database else None
        return getattr(entry, "language", None) in (None, "c")


@dataclass(frozen=True)
class Command:
    """A compiler command line and the environment it needs."""

    argv: tuple[str, ...]
    env: Mapping[str, str] | None = None  # added to os.environ

    def run(self, timeout: float | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
        env = dict(os.environ, **self.env) if self.env else None
        return subprocess.run(
            list(self.argv), capture_output=True, text=True, errors="replace", env=env, timeout=timeout, cwd=cwd
        )


@dataclass(frozen=True)
class Headers:
    """The HIP headers a toolchain compiles against: where, and which release they are."""

    path: Path | None
    version: str | None  # "6.3", None when unknown

    def describe(self) -> str:
        return f"HIP {self.version or '(unknown version)'} headers in {self.path or 'the compiler default'}"


def database_flags(unit: Path, entries: Mapping[Path, Any]) -> tuple[str, ...]:
    """The include paths, macros and standard a compile database gives a ported unit."""
    entry = database_entry(unit, entries)
    return tuple(entry.flags) if entry is not None else ()


def database_entry(unit: Path, entries: Mapping[Path, Any]) -> Any:
    """The compile database's entry for a ported unit, or None.

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
    return entry


def _stem_parts(path: Path) -> tuple[str, ...]:
    name = path.name.split(".")[0]
    return (*path.parent.parts, name)


def resolve_hip_path(option: Path | None, configured: Path | None) -> Path | None:
    """The HIP headers' include directory from --hip-path, HIPPORT_HIP_PATH or [tool.hipport] hip-path.

    DIR may be the include directory itself (holding hip/hip_runtime.h) or a HIP tree with include/.
    """
    for origin, value in (
        ("--hip-path", option),
        (HIP_PATH_ENV, os.environ.get(HIP_PATH_ENV)),
        ("[tool.hipport] hip-path", configured),
    ):
        if not value:
            continue
        path = Path(value)
        for candidate in (path / "include", path):
            if (candidate / "hip" / "hip_runtime.h").is_file():
                return candidate.resolve()
        raise ToolchainError(f"{origin}: {path} holds no HIP headers (no include/hip/hip_runtime.h)")
    return None


def resolve_library_path(
    kind: str, option: Path | None, configured: Path | None, flag: str, env: str, key: str
) -> Path | None:
    """The include directory of ROCm's (kind "rocm") or CUDA's ("cuda") library headers.

    From the flag, the environment variable, then the [tool.hipport] key; DIR may be the include
    directory itself or a tree with include/ (/opt/rocm, ../shared/vendor/ROCm-libs).
    """
    markers = ROCM_MARKERS if kind == "rocm" else CUDA_LIB_MARKERS
    for origin, value in ((flag, option), (env, os.environ.get(env)), (f"[tool.hipport] {key}", configured)):
        if not value:
            continue
        path = Path(value)
        for candidate in (path / "include", path):
            if any((candidate / m).is_file() for m in markers):
                return candidate.resolve()
        raise ToolchainError(
            f"{origin}: {path} holds no {kind.upper()} library headers (none of "
            f"{', '.join(markers[:3])}... under it or its include/)"
        )
    return None


_VERSION = re.compile(rb"#define\s+HIP_VERSION_(MAJOR|MINOR)\s+(\d+)")


def header_version(include_dir: Path) -> str | None:
    """X.Y of the HIP headers in include_dir, from hip/hip_version.h."""
    try:
        text = (include_dir / "hip" / "hip_version.h").read_bytes()
    except OSError:
        return None
    found = {k.decode(): v.decode() for k, v in _VERSION.findall(text)}
    return f"{found['MAJOR']}.{found['MINOR']}" if {"MAJOR", "MINOR"} <= found.keys() else None


def make_toolchain(settings: ToolSettings):
    """The toolchain of settings.platform; ToolchainError when its compiler or headers are missing."""
    from hipport.toolchain.compilers import Hipcc, Nvcc

    if settings.platform == "amd":
        return Hipcc.find(settings)
    if settings.platform == "nvidia":
        return Nvcc.find(settings)
    raise ToolchainError(f"unknown platform '{settings.platform}' (known: {', '.join(PLATFORMS)})")
