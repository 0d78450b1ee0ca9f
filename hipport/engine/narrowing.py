"""A floating literal in the braces that initialise an integer: `int counts[4] = {0.0, 0.0, 0.0, 0.0};`.

C++11 calls the conversion narrowing. nvcc warns and converts; clang (hipcc) rejects it. The port
writes the conversion nvcc made, a cast to the declared type, before each such literal: the value
is the same (truncated toward zero), and the literal stays as the author wrote it. Only literals are
cast: an expression's type is not known here, and a variable may already be an integer.
"""

from __future__ import annotations

import re

from hipport.diagnostics import Edit
from hipport.parse.lines import COMMENT_STRING_CHAR, matches_in_code

_INTEGER_TYPE = (
    rb"(?:(?:unsigned|signed)\s+)?(?:long\s+long|long|int|short|char)(?:\s+int)?|unsigned|signed"
    rb"|size_t|u?int(?:8|16|32|64)_t"
)
# `TYPE name[...] = {` or `TYPE name{`, the type not part of a longer name (`float`, `my_int`)
_DECLARATION = re.compile(
    rb"(?<![\w.>:])(" + _INTEGER_TYPE + rb")\s+[A-Za-z_]\w*\s*(?:\[[^\]\n]*\]\s*)*=?\s*\{([^{};]*)\}"
)
_FLOATING = re.compile(rb"\s*([-+]?(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?[fFlL]?|[-+]?\d+[eE][-+]?\d+[fFlL]?)\s*$")
_SKIPPED = re.compile(COMMENT_STRING_CHAR, re.S)


def narrowing_edits(source: bytes) -> list[Edit]:
    if b"{" not in source:
        return []
    edits = []
    for declaration in matches_in_code(_DECLARATION, source, _SKIPPED):
        cast = b"(" + b" ".join(declaration.group(1).split()) + b")"
        at = declaration.start(2)
        for element in declaration.group(2).split(b","):
            literal = _FLOATING.match(element)
            if literal is not None:
                edits.append(Edit(at + literal.start(1), at + literal.start(1), cast))
            at += len(element) + 1
    return edits
