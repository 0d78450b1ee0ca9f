"""`cudaArray *a` -> `hipArray_t a`: a pointer to a CUDA struct, spelled with the HIP typedef both platforms have.

AMD's HIP headers declare `struct hipArray` and `typedef struct hipArray* hipArray_t`; HIP's NVIDIA
headers have only `typedef struct cudaArray* hipArray_t`. Renaming the struct gives code that builds on
AMD alone, so where the CUDA name is the pointee of one `*` the port writes the pointer typedef
instead (rules/platforms.toml, `pointer_type`). `const cudaArray *` takes the pointer-to-const typedef
where the rule has one. A declaration list whose every declarator is one `*` and a name
(`cudaArray *a, *b = nullptr;`) becomes `hipArray_t a, b = nullptr;`: each star goes. Anything else
(the struct by value, sizeof, `cudaArray *a, b;`, `cudaArray *a, **b;`) keeps the renamed struct
and, unless the port is for AMD only, an HP441 finding.
"""

from __future__ import annotations

import re

from hipport.engine.elaborated import elaborated_keyword

_STAR = re.compile(rb"[ \t]*\*[ \t]*")
_CONST_AFTER = re.compile(rb"[ \t]+const[ \t]*\*[ \t]*")
_CONST_BEFORE = re.compile(rb"(?:^|(?<=[^A-Za-z0-9_]))const[ \t]+\Z")
# a declarator's name after the star (`cudaArray *a`), not the end of a type (`vector<cudaArray *>`)
_NAME = re.compile(rb"(?:const[ \t]+)?[A-Za-z_]\w*")


def pointer_type_edit(
    source: bytes, start: int, end: int, hip: str, hip_const: str | None
) -> list[tuple[int, int, bytes]] | None:
    """The edits that write the typedef for the name at start..end, or None where they cannot."""
    begin = elaborated_keyword(source, start, end)
    begin = start if begin is None else begin
    window_start = max(0, begin - 16)
    const_before = _CONST_BEFORE.search(source, window_start, begin)
    const_after = _CONST_AFTER.match(source, end)
    star = const_after or _STAR.match(source, end)
    if star is None or source[star.end() : star.end() + 1] in (b"*", b"&"):
        return None if star is None or const_before or const_after else [_edit(source, begin, star, hip)]
    others: list[tuple[int, int, bytes]] = []
    if _NAME.match(source, star.end()):  # `cudaArray *name`: a declarator, maybe the first of a list
        more = _other_stars(source, star.end())
        if more is None:
            return None
        others = [(a, b, b"") for a, b in more]
    if const_before is not None or const_after is not None:
        if hip_const is None:
            return None
        begin = const_before.start() if const_before is not None else begin
        return [_edit(source, begin, star, hip_const), *others]
    return [_edit(source, begin, star, hip), *others]


_DECLARATOR = re.compile(rb"[ \t\r\n]*(\*[ \t]*)(?![*&])(?:const[ \t]+)?[A-Za-z_]\w*")
_CLOSERS = {ord(")"): ord("("), ord("]"): ord("["), ord("}"): ord("{")}


def _other_stars(source: bytes, at: int) -> list[tuple[int, int]] | None:
    """For the declarator whose name starts at `at`: the spans of the `*` (and the blanks after it) of
    the later declarators of its declaration statement, for the typedef makes each a pointer already;
    [] when it is no statement's (a parameter); None when a later one is not `* name [= init]`."""
    stars: list[tuple[int, int]] = []
    plain = True  # every later declarator is `* name ...`
    depth: list[int] = []
    position = at
    while position < len(source):
        byte = source[position]
        if byte in b"([{":
            depth.append(byte)
        elif byte in _CLOSERS:
            if not depth:
                return []  # the end of a parameter list or condition around it: one declarator alone
            if depth.pop() != _CLOSERS[byte]:
                return None
        elif not depth and byte == ord(";"):
            return stars if plain else None
        elif not depth and byte == ord(","):
            declarator = _DECLARATOR.match(source, position + 1)
            if declarator is None:
                plain = False
            else:
                stars.append(declarator.span(1))
        elif byte in b"\"'#":
            return None  # strings, characters and directives inside: not a plain declaration list
        position += 1
    return None


def _edit(source: bytes, begin: int, star: re.Match, target: str) -> tuple[int, int, bytes]:
    follows = source[star.end() : star.end() + 1]
    space = b" " if follows[:1].isalnum() or follows == b"_" else b""
    return begin, star.end(), target.encode("ascii") + space
