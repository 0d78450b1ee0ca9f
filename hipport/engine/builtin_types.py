"""CUDA's built-in vector types mark a file as needing the runtime header (nvcc includes it in every
.cu), unless the file declares a type of that name itself (a CPU-only float2, say)."""

from __future__ import annotations

import re

_VECTOR = re.compile(r"(?:u?(?:char|short|int|long|longlong)|float|double)[1-4]|dim3")


def own_type(name: str, source: bytes, path: str = "") -> bool:
    """The marker is a vector type the file declares itself (struct, class, typedef or using), or
    one a file nvcc does not compile as CUDA (.cpp, .h: a CPU project's own float2) uses."""
    if not _VECTOR.fullmatch(name):
        return False
    if not path.lower().endswith((".cu", ".cuh", "<stdin>")):
        return True
    word = re.escape(name).encode()
    return (
        re.search(
            rb"\b(?:struct|class|union)\s+"
            + word
            + rb"\b|\btypedef\b[^;]*\b"
            + word
            + rb"\s*;|\busing\s+"
            + word
            + rb"\s*=",
            source,
        )
        is not None
    )
