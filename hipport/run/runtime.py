"""Where the HIP CPU Runtime is, and how a program is compiled against it.

The runtime (github.com/ROCm/HIP-CPU) is header-only: g++ compiles HIP
source with it and the program runs its kernels on the CPU, on 64-lane
wavefronts. What real HIP has and the runtime lacks is bridged by a prelude
force-included into every unit (prelude.h beside this module) and by the
rewrites in bridge.py, both applied to a temporary copy of the port.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

from hipport.toolchain import ToolSettings
from hipport.toolchain.compilers import CPU_CXXFLAGS, HipCpu
from hipport.tree.cache import cache_root

ENV_VAR = "HIPPORT_HIP_CPU"
PRELUDE = Path(__file__).with_name("prelude.h")
BRIDGE_INCLUDE = Path(__file__).with_name("include")  # headers the runtime lacks and the bridge supplies
CLONE_HINT = (
    "clone it with 'git clone https://github.com/ROCm/HIP-CPU' and pass --hip-cpu DIR, "
    f"set {ENV_VAR}, or set hip-cpu in [tool.hipport]"
)
CXXFLAGS = CPU_CXXFLAGS


class RunSetupError(Exception):
    """The runtime or the compiler is missing: one line for the user."""


def find_runtime(option: Path | None, configured: Path | None) -> Path:
    """The runtime's directory from --hip-cpu, HIPPORT_HIP_CPU or [tool.hipport] hip-cpu, in that order."""
    for origin, value in (
        ("--hip-cpu", option),
        (ENV_VAR, os.environ.get(ENV_VAR)),
        ("[tool.hipport] hip-cpu", configured),
    ):
        if not value:
            continue
        path = Path(value)
        if not (path / "include" / "hip" / "hip_runtime.h").is_file():
            raise RunSetupError(f"{origin}: {path} is not a HIP CPU Runtime checkout (no include/hip/hip_runtime.h)")
        return path
    raise RunSetupError(f"the HIP CPU Runtime is needed to run ported programs: {CLONE_HINT}")


def find_toolchain(runtime: Path, settings: ToolSettings | None = None) -> HipCpu:
    """g++ with the runtime (and the bridge's headers), from the one settings object verify built."""
    cxx = os.environ.get("CXX") or shutil.which("g++")
    if not cxx:
        raise RunSetupError("g++ not found; on Debian/Ubuntu: apt-get install -y g++ libtbb-dev")
    return HipCpu(settings or ToolSettings(), runtime.resolve(), cxx, BRIDGE_INCLUDE)


def precompiled_prelude(toolchain: HipCpu, directory: Path | None = None) -> Path:
    """The prelude, precompiled: each program then skips parsing the runtime's headers (about 40% of a build).

    Kept in hipport's cache, keyed on the compiler, flags, prelude and runtime
    headers, so only the first run pays for it. Falls back to the plain
    prelude when precompiling fails (g++ skips a .gch it cannot use).
    """
    directory = directory or cache_root().parent / "run"
    headers = sorted(
        (p.as_posix(), p.stat().st_mtime_ns, p.stat().st_size)
        for root in toolchain.include_dirs
        for p in root.rglob("*")
        if p.is_file()
    )
    salt = f"{toolchain.runtime}|{toolchain.cxx}|{CXXFLAGS}|{PRELUDE.read_bytes()!r}|{headers}"
    salt += f"|{_compiler_version(toolchain.cxx)}"
    key = hashlib.sha256(salt.encode()).hexdigest()[:16]
    header = directory / f"prelude-{key}.h"
    if Path(str(header) + ".gch").is_file():
        return header
    try:
        directory.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(PRELUDE, header)
        partial = Path(f"{header}.{os.getpid()}.tmp")
        cmd = [
            toolchain.cxx,
            *CXXFLAGS,
            "-x",
            "c++-header",
            *[f"-I{d}" for d in toolchain.include_dirs],
            str(header),
            "-o",
            str(partial),
        ]
        if subprocess.run(cmd, capture_output=True).returncode == 0:
            os.replace(partial, str(header) + ".gch")  # whole or not at all, for runs side by side
        partial.unlink(missing_ok=True)
    except OSError:
        return PRELUDE
    return header


def _compiler_version(cxx: str) -> str:
    try:
        return subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    except OSError:
        return ""


def runtime_headers(toolchain: HipCpu) -> frozenset[str]:
    """Every header the runtime and the bridge provide, as #include spells it (hip/hip_runtime.h)."""
    found: set[str] = set()
    for root in toolchain.include_dirs:
        found.update(p.relative_to(root).as_posix() for p in root.rglob("*.h*") if p.is_file())
    return frozenset(found)
