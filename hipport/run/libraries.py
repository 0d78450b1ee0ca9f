"""Which of HIP's libraries a ported program links, on NVIDIA: those in --hip-libs's lib/ whose
headers its sources include (`#include <hipblas/hipblas.h>` links libhipblas). Each library's
header folder is named after it, as ROCm installs them; the CUDA library under it (cuBLAS) comes
with the HIP library's own link. Only the standard library (the GPU step imports it)."""

from __future__ import annotations

import re
from pathlib import Path

from hipport.run.programs import Program

_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*[<"]([\w.+-]+)[/.]', re.M)
_HEADER_SUFFIXES = (".h", ".hpp", ".cuh", ".hh", ".inl")


def available(hip_libs: Path | None) -> frozenset[str]:
    """The libraries built in hip_libs/lib (libhipblas.so gives hipblas)."""
    if hip_libs is None:
        return frozenset()
    return frozenset(p.name[3:].split(".so")[0] for p in (hip_libs / "lib").glob("lib*.so*"))


def included_libraries(tree: Path, program: Program, names: frozenset[str]) -> list[str]:
    """Of names, those whose headers the program's units, or the headers beside them, include."""
    folder = tree / program.directory
    files = [tree / u for u in program.units]
    try:
        files += [p for p in folder.iterdir() if p.suffix in _HEADER_SUFFIXES and p.is_file()]
    except OSError:
        pass
    found: dict[str, None] = {}
    for path in files:
        try:
            text = path.read_bytes()
        except OSError:
            continue
        for word in _INCLUDE.findall(text):
            name = word.decode("ascii", "replace").split("_")[0]  # hiprand_kernel.h is hipRAND's
            if name in names:
                found[name] = None
    return list(found)


def library_flags(hip_libs: Path | None, names: list[str]) -> tuple[str, ...]:
    """nvcc's link flags for these HIP libraries, found at run time through an rpath."""
    if not names or hip_libs is None:
        return ()
    lib = (hip_libs / "lib").resolve()
    # the CUDA libraries a HIP library needs (libcublas.so.13) are the loader's to find, as for the
    # original: the link does not look for them where nvcc's -L does not reach
    return (f"-L{lib}", f"-Xlinker=-rpath,{lib}", "-Xlinker=--allow-shlib-undefined", *(f"-l{n}" for n in names))
