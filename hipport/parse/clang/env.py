"""Where libclang finds CUDA, and the flags that let clang 18 read CUDA 13 headers.

The `libclang` wheel is a bare libclang.so: it has no resource directory, and
clang's CUDA mode cannot start without one (it force-includes
__clang_cuda_runtime_wrapper.h from there, and needs stddef.h and friends). The
resource directory of a Debian clang is used instead: the one with the same
major version as libclang if installed, else the newest older one.

Combinations tried with libclang 18.1.1 on CUDA 13.0 (nvcc V13.0.88) and a file
that includes cuda_runtime.h, defines a __global__ kernel and launches it:

  resource dir      extra flags                                   result
  none              -                                             fatal: __clang_cuda_runtime_wrapper.h not found
  clang 15          -                                             fatal: texture_fetch_functions.h not found
  clang 15          shims/ (see below)                            2 errors in clang's own texture header
                                                                  ("no template named 'texture'"), AST complete
  clang 16          -                                             fatal: texture_fetch_functions.h not found
  clang 16          shims/                                        clean
  clang 19          shims/                                        error: undeclared __nvvm_activemask (headers
                                                                  newer than the front end)
  clang 16          shims/, --cuda-host-only                      clean (host pass)
  clang 16          shims/, --cuda-device-only, default arch      error: sm_35 needs CUDA <= 11.8
  clang 16          shims/, --cuda-device-only --cuda-gpu-arch=sm_75..sm_90
                                                                  clean
  clang 16          shims/, device pass, -nocudalib               error: cudaConfigureCall undeclared (without
                                                                  libdevice the driver passes no SDK version, so
                                                                  clang lowers <<<>>> the pre-9.2 way)
  any               --cuda-path=/nonexistent                      fatal: cuda_runtime.h not found, after
                                                                  "cannot find CUDA installation"

Without -Wno-unknown-cuda-version clang 18 warns "CUDA version is newer than the
latest supported version 12.3" on every file; it is harmless. CUDA 12 removed
texture references and CUDA 13 here ships no cuRAND, but the wrappers of
clang < 19 still include texture_fetch_functions.h and curand_mtgp32_kernel.h:
shims/ holds stand-ins that include the real header when one exists. CUDA 13
moved CUB, Thrust and libcu++ to include/cccl, which nvcc adds by itself.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

SHIMS = Path(__file__).with_name("shims")
DEFAULT_CUDA = Path("/usr/local/cuda")
# The oldest architecture CUDA 13 compiles for; device passes need some architecture.
DEFAULT_GPU_ARCH = "sm_75"
_RESOURCE_GLOBS = ("/usr/lib/llvm-*/lib/clang/*", "/usr/lib/clang/*", "/usr/local/lib/clang/*")


class ClangSetupError(Exception):
    """A setting the user gave that cannot work: reported in one line."""


@dataclass(frozen=True)
class ClangEnvironment:
    cuda_path: Path | None  # None: no CUDA found; parses then fail and fall back
    resource_dir: Path | None

    def base_args(self) -> list[str]:
        # -ferror-limit=0: past 20 errors clang stops with a fatal error, and
        # code with errors still has names worth resolving.
        args = ["-Wno-unknown-cuda-version", "-w", "-ferror-limit=0"]
        if self.resource_dir is not None:
            args += ["-resource-dir", str(self.resource_dir)]
        args += ["-isystem", str(SHIMS)]
        if self.cuda_path is not None:
            args.append(f"--cuda-path={self.cuda_path}")
            cccl = self.cuda_path / "include" / "cccl"
            if cccl.is_dir():
                args += ["-isystem", str(cccl)]
        return args

    def toolkit_dirs(self) -> tuple[str, ...]:
        """Directories whose declarations are CUDA's (or clang's stand-ins for CUDA's)."""
        dirs = [str(SHIMS)]
        if self.cuda_path is not None:
            dirs.append(str(self.cuda_path))
            dirs.append(os.path.realpath(self.cuda_path))
        if self.resource_dir is not None:
            dirs.append(str(self.resource_dir))
            dirs.append(os.path.realpath(self.resource_dir))
        return tuple(dict.fromkeys(d.rstrip("/") + "/" for d in dirs))


def find_cuda(explicit: Path | None = None) -> Path | None:
    """--cuda-path, then CUDA_PATH, CUDA_HOME, then /usr/local/cuda."""
    if explicit is not None:
        if not (Path(explicit) / "include" / "cuda_runtime.h").is_file():
            raise ClangSetupError(f"--cuda-path {explicit}: no include/cuda_runtime.h there")
        return Path(explicit)
    for candidate in (os.environ.get("CUDA_PATH"), os.environ.get("CUDA_HOME"), str(DEFAULT_CUDA)):
        if candidate and (Path(candidate) / "include" / "cuda_runtime.h").is_file():
            return Path(candidate)
    return None


def libclang_major() -> int | None:
    from clang.cindex import conf

    version = conf.lib.clang_getClangVersion()
    text = version.decode() if isinstance(version, bytes) else str(version)
    m = re.search(r"version (\d+)", text)
    return int(m.group(1)) if m else None


@lru_cache(maxsize=1)
def find_resource_dir() -> Path | None:
    """The installed clang resource directory that suits libclang best."""
    import glob

    found: dict[int, Path] = {}
    for pattern in _RESOURCE_GLOBS:
        for directory in sorted(glob.glob(pattern)):
            path = Path(directory)
            m = re.match(r"(\d+)", path.name)
            if m and (path / "include" / "__clang_cuda_runtime_wrapper.h").is_file():
                found.setdefault(int(m.group(1)), path)
    if not found:
        return None
    major = libclang_major() or max(found)
    older = [v for v in found if v <= major]
    return found[max(older)] if older else found[min(found)]


def environment(cuda_path: Path | None = None) -> ClangEnvironment:
    return ClangEnvironment(find_cuda(cuda_path), find_resource_dir())


def libclang_problem() -> str | None:
    """Why libclang cannot be used here, or None when it can."""
    try:
        from clang import cindex

        cindex.Index.create()
    except Exception as exc:  # ImportError, or the shared library failing to load
        return f"libclang is not usable: {exc}"
    return None
