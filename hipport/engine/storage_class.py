"""The `register` storage class: C++17 removed it, and clang (hipcc) rejects it where nvcc only
warns. It asks nothing of a compiler today, so the port deletes the keyword and the blanks after it."""

from __future__ import annotations

import re

from hipport.parse.lines import COMMENT_STRING_CHAR

from hipport.diagnostics import Edit

# Comments, string and character literals, and #include lines are skipped; `register` anywhere
# else is the keyword (it cannot name anything in C++).
_SKIP = re.compile(COMMENT_STRING_CHAR + rb"|^[ \t]*#[ \t]*include[^\n]*", re.S | re.M)
_REGISTER = re.compile(rb"(?<![\w$])register\b[ \t]*")


def register_edits(source: bytes) -> list[Edit]:
    if b"register" not in source:
        return []
    edits: list[Edit] = []
    at = 0
    for skipped in _SKIP.finditer(source):
        edits.extend(_in(source, at, skipped.start()))
        at = skipped.end()
    edits.extend(_in(source, at, len(source)))
    return edits


def _in(source: bytes, start: int, end: int) -> list[Edit]:
    return [Edit(m.start(), m.end(), b"") for m in _REGISTER.finditer(source, start, end)]
