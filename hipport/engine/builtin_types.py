"""CUDA's built-in vector types mark a file as needing the runtime header (nvcc includes it in every
.cu), unless the file declares a type of that name itself (a CPU-only float2, say).

A .cu with an include guard is written to be #included, by C++ files too: what its vector types
mean is the including file's business (nvcc never compiled it alone), as for a .h."""

from __future__ import annotations

import re

_VECTOR_NAME = r"(?:u?(?:char|short|int|long|longlong)|float|double)[1-4]|dim3"
_VECTOR = re.compile(_VECTOR_NAME)
# Where a declaration of a vector type starts (struct, class, union, typedef or using): one pass finds them all.
_NAME = b"(" + _VECTOR_NAME.encode() + b")"
_DECLARED = re.compile(
    rb"\b(?=(?:struct|class|union)\s+" + _NAME + rb"\b|typedef\b[^;]*\b" + _NAME + rb"\s*;|using\s+" + _NAME + rb"\s*=)"
)

# An include guard or #pragma once before any code (comments and blank lines may come first; the
# group is atomic so that a long run of them costs one pass, never a backtracking search).
_GUARDED = re.compile(
    rb"(?>\s|//[^\n]*|/\*.*?\*/)*+#[ \t]*(?:pragma[ \t]+once\b|ifndef[ \t]+(\w+)[^\n]*\n[ \t]*#[ \t]*define[ \t]+\1\b)",
    re.S,
)


class OwnTypes:
    """own_types(name): the marker is a vector type the file declares itself (struct, class, typedef or
    using), or one a file nvcc does not compile as CUDA (.cpp, .h: a CPU project's own float2) uses.

    The file is searched once, at its first vector-type marker, for every such type it declares."""

    __slots__ = ("_declared", "cuda", "source")

    def __init__(self, source: bytes, path: str = "") -> None:
        self.source = source
        lowered = path.lower()
        self.cuda = lowered.endswith((".cuh", "<stdin>")) or (lowered.endswith(".cu") and not _GUARDED.match(source))
        self._declared: frozenset[str] | None = None

    def __call__(self, name: str) -> bool:
        if not _VECTOR.fullmatch(name):
            return False
        if not self.cuda:
            return True
        if self._declared is None:
            self._declared = declared_vector_types(self.source)
        return name in self._declared


def declared_vector_types(source: bytes) -> frozenset[str]:
    """The vector-type names source declares itself."""
    return frozenset(
        name.decode("ascii") for m in _DECLARED.finditer(source) for name in m.groups() if name is not None
    )
