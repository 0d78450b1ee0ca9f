"""`cudaArray *a` -> `hipArray_t a`: a pointer to a CUDA struct, spelled with the HIP typedef both platforms have.

AMD's HIP headers declare `struct hipArray` and `typedef struct hipArray* hipArray_t`; HIP's NVIDIA
headers have only `typedef struct cudaArray* hipArray_t`. Renaming the struct gives code that builds on
AMD alone, so where the CUDA name is the pointee of one `*` the port writes the pointer typedef
instead (rules/platforms.toml, `pointer_type`). `const cudaArray *` takes the pointer-to-const typedef
where the rule has one. Anything else (the struct by value, sizeof, `cudaArray *a, *b;`) keeps the
renamed struct and, unless the port is for AMD only, an HP441 finding.
"""

from __future__ import annotations

import re

from hipport.engine.elaborated import elaborated_keyword

_STAR = re.compile(rb"[ \t]*\*[ \t]*")
_CONST_AFTER = re.compile(rb"[ \t]+const[ \t]*\*[ \t]*")
_CONST_BEFORE = re.compile(rb"(?:^|(?<=[^A-Za-z0-9_]))const[ \t]+\Z")
# after the declarator's name: `, *` declares another pointer, which the typedef would make a double one
_NEXT_POINTER = re.compile(rb"[ \t]*(?:const[ \t]+)?[A-Za-z_]\w*[ \t]*,[ \t\r\n]*\*")


def pointer_type_edit(
    source: bytes, start: int, end: int, hip: str, hip_const: str | None
) -> tuple[int, int, bytes] | None:
    """The edit that writes the typedef for the name at start..end, or None where it cannot."""
    begin = elaborated_keyword(source, start, end)
    begin = start if begin is None else begin
    window_start = max(0, begin - 16)
    const_before = _CONST_BEFORE.search(source, window_start, begin)
    const_after = _CONST_AFTER.match(source, end)
    star = const_after or _STAR.match(source, end)
    if star is None or source[star.end() : star.end() + 1] in (b"*", b"&"):
        return None if star is None or const_before or const_after else _edit(source, begin, star, hip)
    if _NEXT_POINTER.match(source, star.end()):
        return None
    if const_before is not None or const_after is not None:
        if hip_const is None:
            return None
        begin = const_before.start() if const_before is not None else begin
        return _edit(source, begin, star, hip_const)
    return _edit(source, begin, star, hip)


def _edit(source: bytes, begin: int, star: re.Match, target: str) -> tuple[int, int, bytes]:
    follows = source[star.end() : star.end() + 1]
    space = b" " if follows[:1].isalnum() or follows == b"_" else b""
    return begin, star.end(), target.encode("ascii") + space
