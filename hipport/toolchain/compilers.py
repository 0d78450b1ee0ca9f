"""The toolchains: hipcc (AMD), nvcc with HIP's NVIDIA headers, plain nvcc (the CUDA original),
g++ with the HIP CPU Runtime. Each gives the compile-check and the build command from its settings.

Command lines, in this order: the compiler and its fixed flags, the HIP headers, then for a
compile check the settings' -I and -D, the compile database's flags and the caller's include
directories (the units' folders), for a build the caller's (the program's folder) first; the sources.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from hipport.toolchain import Command, Headers, ToolchainError, ToolSettings, header_version

HIPCC_HINT = (
    "hipcc not found; on Debian/Ubuntu install it with 'apt-get install -y "
    "hipcc libamdhip64-dev libhiprand-dev librocrand-dev libhipsparse-dev librocprim-dev'"
)
NVCC_HINT = "nvcc not found: install the CUDA toolkit or put its bin/ on PATH"
HIP_NVIDIA_HINT = (
    "HIP's NVIDIA headers are needed to compile HIP with nvcc: give --hip-path DIR (a HIP tree with "
    "include/hip/nvidia_detail/), set HIPPORT_HIP_PATH, or set hip-path in [tool.hipport]"
)
AMD_ARCH = "gfx90a"
NVIDIA_ARCH = "sm_90"
# CUDA libraries a program's original links, by the header that names them (the port's would be
# hipBLAS & co., which HIP's NVIDIA headers do not provide).
CUDA_LIBRARIES = {
    "cublas": "cublas",
    "cublas_v2": "cublas",
    "cufft": "cufft",
    "curand": "curand",
    "cusparse": "cusparse",
    "cusolverDn": "cusolver",
    "cusolverSp": "cusolver",
    "nvrtc": "nvrtc",
    "nvJitLink": "nvJitLink",
    "nvjpeg": "nvjpeg",
    "cuda": "cuda",
}
_HIP_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*[<"]hip/', re.M)
_QUOTED_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"]+)\.h[>"]', re.M)


@dataclass(frozen=True)
class Hipcc:
    """AMD: `hipcc -x hip`, HIP_PLATFORM=amd (nvcc is installed beside it and hipcc would pick it)."""

    settings: ToolSettings
    hipcc: str
    platform: str = "amd"

    @classmethod
    def find(cls, settings: ToolSettings) -> Hipcc:
        hipcc = settings.compiler or shutil.which("hipcc")
        if hipcc is None:
            raise ToolchainError(HIPCC_HINT)
        return cls(settings, hipcc)

    def _base(self) -> list[str]:
        arch = self.settings.offload_arch or AMD_ARCH
        cmd = [self.hipcc, "-x", "hip", f"--offload-arch={arch}", "-Wno-unused-command-line-argument"]
        return cmd + self._isystem()

    def _isystem(self) -> list[str]:
        cmd = []
        if self.settings.hip_path is not None:
            cmd += ["-isystem", str(self.settings.hip_path)]  # before hipcc's own HIP headers
        if self.settings.rocm_path is not None:
            cmd += ["-isystem", str(self.settings.rocm_path)]  # before Debian's 5.x hiprand & co.
        return cmd

    def check_command(self, unit: Path, include_dirs: tuple[Path, ...] = ()) -> Command:
        flags = [*self.settings.unit_flags([unit]), *[f"-I{d}" for d in include_dirs]]
        if self.settings.compiles_as_c(unit):
            # nvcc compiles a .c unit as host C (its CUDA calls come from headers with extern "C"
            # declarations); `-x hip` would make it C++ and HIP's runtime header's templates
            # land inside the unit's extern "C" blocks. A C++ -std does not apply to C.
            cmd = [self.hipcc, "-x", "c", "-D__HIP_PLATFORM_AMD__=1", *self._isystem(), "-fsyntax-only"]
            c_flags = [f for f in flags if not f.startswith(("-std=c++", "-std=gnu++"))]
            return Command((*cmd, *c_flags, str(unit)), {"HIP_PLATFORM": "amd"})
        cmd = self._base() + ["-fsyntax-only", *flags]
        return Command((*cmd, str(unit)), {"HIP_PLATFORM": "amd"})

    def build_command(self, units: list[Path], output: Path, include_dirs: tuple[Path, ...] = ()) -> Command:
        cmd = self._base() + ["-O2", *[f"-I{d}" for d in include_dirs], *self.settings.unit_flags(units)]
        return Command((*cmd, *map(str, units), "-o", str(output)), {"HIP_PLATFORM": "amd"})

    def headers(self) -> Headers:
        path = self.settings.hip_path or Path(self.hipcc).resolve().parent.parent / "include"
        return Headers(path, header_version(path))


@dataclass(frozen=True)
class Nvcc:
    """NVIDIA: `nvcc -x cu -I HIP/include` (nvcc defines __HIP_PLATFORM_NVIDIA__ through HIP's headers).

    The compile check is `-c -o /dev/null`: the whole compile, device code generation and the
    host compiler included. `-Xcompiler -fsyntax-only` never checks device code, `-E` only
    preprocesses; `--cuda` stops after the front end for about the same time on real units.
    With hip_headers None it is plain nvcc, for the CUDA original of a port.
    """

    settings: ToolSettings
    nvcc: str
    hip_headers: Path | None
    platform: str = "nvidia"
    _probe: dict = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def find(cls, settings: ToolSettings) -> Nvcc:
        nvcc = settings.compiler or shutil.which("nvcc")
        if nvcc is None:
            raise ToolchainError(NVCC_HINT)
        if settings.hip_path is None:
            raise ToolchainError(HIP_NVIDIA_HINT)
        if not (settings.hip_path / "hip" / "nvidia_detail").is_dir():
            raise ToolchainError(f"{settings.hip_path}: no hip/nvidia_detail/ here: not HIP's NVIDIA headers")
        return cls(settings, nvcc, settings.hip_path)

    def original(self, include_dirs: tuple[Path, ...]) -> Nvcc:
        """Plain nvcc with the same settings, include directories replaced: builds the CUDA original."""
        from dataclasses import replace

        return Nvcc(replace(self.settings, include_dirs=include_dirs, hip_path=None), self.nvcc, None)

    def _base(self) -> list[str]:
        arch = self.settings.offload_arch or NVIDIA_ARCH
        cmd = [self.nvcc, "-x", "cu", f"-arch={arch}", "-w"]
        if self.hip_headers is None:
            return cmd
        cmd += [f"-I{self.hip_headers}"]
        if self.settings.cuda_lib_path is not None:
            cmd += ["-isystem", str(self.settings.cuda_lib_path)]
        if self.settings.rocm_path is not None:
            # after the CUDA toolkit's own headers, so thrust/ and cub/ stay CUDA's (rocThrust and
            # rocPRIM there are AMD's), and before /usr/include, whose hiprand & co. may be Debian's 5.x
            for d in _toolkit_includes(self.nvcc):
                cmd += ["-isystem", d]
            cmd += ["-isystem", str(self.settings.rocm_path)]
        return cmd

    def check_command(self, unit: Path, include_dirs: tuple[Path, ...] = ()) -> Command:
        flags = self.settings.unit_flags([unit])
        base = self._base()
        searched = (*self.settings.include_dirs, *include_dirs)
        if self.settings.compiles_as_c(unit) and (self.hip_headers is None or not _includes_hip(unit, searched)):
            # plain nvcc (the original) compiles a .c file as C with the host compiler; hipcc on
            # the NVIDIA platform passes -x cu for every file, so a port's .c that includes HIP's
            # headers (which are C++ there) is CUDA here, and one the port left without them is C
            base[base.index("-x") + 1] = "c"
            flags = [f for f in flags if not f.startswith(("-std=c++", "-std=gnu++"))]
        cmd = base + ["-c", "-o", "/dev/null", *flags]
        return Command((*cmd, *[f"-I{d}" for d in include_dirs], str(unit)))

    def host_cxx_command(self, unit: Path, include_dirs: tuple[Path, ...] = ()) -> Command | None:
        """The unit as host C++, nvcc's default for a .cpp file: tried where it fails as CUDA (a host
        file that defines its own uchar4, which nvcc's implicit CUDA headers declare). Not for a
        port that includes HIP's headers: hipcc builds every file as CUDA on NVIDIA."""
        searched = (*self.settings.include_dirs, *include_dirs)
        if not self.settings.may_be_host_cxx(unit) or (self.hip_headers is not None and _includes_hip(unit, searched)):
            return None
        argv = list(self.check_command(unit, include_dirs).argv)
        argv[argv.index("-x") + 1] = "c++"
        return Command(tuple(argv))

    def build_command(self, units: list[Path], output: Path, include_dirs: tuple[Path, ...] = ()) -> Command:
        cmd = self._base() + ["-O2", *[f"-I{d}" for d in include_dirs], *self.settings.unit_flags(units)]
        return Command((*cmd, *map(str, units), "-o", str(output), *self.link_flags(units)))

    def link_flags(self, units: list[Path]) -> list[str]:
        """-lcuda (HIP's NVIDIA headers call the driver API inline) and the CUDA libraries the
        sources include, each only when this machine can link it."""
        wanted = ["cuda"]
        for unit in units:
            try:
                text = unit.read_text(errors="replace")
            except OSError:
                continue
            wanted += [CUDA_LIBRARIES[h] for h in _INCLUDE.findall(text) if h in CUDA_LIBRARIES]
        return [f"-l{lib}" for lib in dict.fromkeys(wanted) if self._linkable(lib)]

    def _linkable(self, lib: str) -> bool:
        if lib not in self._probe:
            self._probe[lib] = _links(self.nvcc, lib)
        return self._probe[lib]

    def headers(self) -> Headers:
        if self.hip_headers is None:
            return Headers(None, None)
        return Headers(self.hip_headers, header_version(self.hip_headers))


@functools.cache
def _toolkit_includes(nvcc: str) -> tuple[str, ...]:
    """The include directories nvcc gives its preprocessor (the toolkit's include/ and include/cccl)."""
    try:
        done = subprocess.run(
            [nvcc, "--dryrun", "-x", "cu", "-E", "/dev/null"], capture_output=True, text=True, timeout=60
        )
    except (OSError, subprocess.TimeoutExpired):
        return ()
    found: list[str] = []
    for line in done.stderr.splitlines():
        words = [w.strip('"') for w in line.split()]
        for i, word in enumerate(words):
            if word.startswith("-I") and len(word) > 2:
                found.append(word[2:])
            elif word == "-isystem" and i + 1 < len(words):
                found.append(words[i + 1])
        if found:
            break
    return tuple(dict.fromkeys(found))


@functools.cache
def _links(nvcc: str, lib: str) -> bool:
    with tempfile.TemporaryDirectory(prefix="hipport-link-") as tmp:
        source = Path(tmp) / "probe.cu"
        source.write_text("int main() { return 0; }\n")
        try:
            done = subprocess.run(
                [nvcc, str(source), "-o", str(Path(tmp) / "probe"), f"-l{lib}"], capture_output=True, timeout=120
            )
        except (OSError, subprocess.TimeoutExpired):
            return False
        return done.returncode == 0


# -O1 builds fastest overall with the runtime's templates (measured: -O0 runs kernels
# several times slower for about the same compile time, -O2 compiles slower).
CPU_CXXFLAGS = ("-std=c++17", "-O1", "-w")
CPU_LIBS = ("-ltbb", "-lpthread")


@dataclass(frozen=True)
class HipCpu:
    """g++ with AMD's header-only HIP CPU Runtime: kernels run on the CPU, on 64-lane wavefronts.

    bridge_include and prelude are what verify --run supplies for the runtime's gaps.
    """

    settings: ToolSettings
    runtime: Path  # the runtime's checkout (holding include/hip/hip_runtime.h)
    cxx: str
    bridge_include: Path | None = None
    prelude: Path | None = None  # force-included into every unit
    platform: str = "cpu"

    @property
    def include_dirs(self) -> tuple[Path, ...]:
        return (*([self.bridge_include] if self.bridge_include else []), self.runtime / "include")

    def _base(self) -> list[str]:
        cmd = [self.cxx, *CPU_CXXFLAGS, "-x", "c++"]
        return cmd + (["-include", str(self.prelude)] if self.prelude is not None else [])

    def check_command(self, unit: Path, include_dirs: tuple[Path, ...] = ()) -> Command:
        dirs = [f"-I{d}" for d in (*include_dirs, *self.include_dirs)]
        return Command((*self._base(), "-fsyntax-only", *self.settings.unit_flags([unit]), *dirs, str(unit)))

    def build_command(self, units: list[Path], output: Path, include_dirs: tuple[Path, ...] = ()) -> Command:
        dirs = [f"-I{d}" for d in (*include_dirs, *self.include_dirs)]
        cmd = [*self._base(), *dirs, *self.settings.unit_flags(units), *map(str, units)]
        return Command((*cmd, "-x", "none", "-o", str(output), *CPU_LIBS))

    def headers(self) -> Headers:
        path = self.runtime / "include"
        return Headers(path, header_version(path))


def _includes_hip(unit: Path, include_dirs: tuple[Path, ...] = (), depth: int = 8) -> bool:
    """Whether the unit includes a HIP header, itself or through the project headers it quotes
    (found beside the including file or in include_dirs)."""
    try:
        text = unit.read_bytes()
    except OSError:
        return True
    if _HIP_INCLUDE.search(text):
        return True
    if depth == 0:
        return False
    for quoted in _QUOTED_INCLUDE.findall(text):
        name = quoted.decode("utf-8", "replace")
        found = next((d / name for d in (unit.parent, *include_dirs) if (d / name).is_file()), None)
        if found is not None and _includes_hip(found, include_dirs, depth - 1):
            return True
    return False
