"""A launch written with blanks inside its chevrons, `kernel << < grid, block >> > (args)`.

nvcc reads `<< <` and `>> >` as a launch; clang (hipcc) and the parser do not, so the port closes
them up first. The blanks move behind the chevrons (`<<<  grid`, `>>>  (args)`), which keeps every
other byte where it was: the port reads the closed-up copy, and its edits fit the original too.
"""

from __future__ import annotations

import re

from hipport.parse.lines import COMMENT_STRING_CHAR

from hipport.diagnostics import Edit

_SKIP = re.compile(COMMENT_STRING_CHAR, re.S)
# `operator<< <T>(...)` is an explicit template argument list, not a launch.
_OPEN = re.compile(rb"(?<!<)(?<!operator)(?<!operator )<[ \t]*<[ \t]*<(?!<)")
_CLOSE = re.compile(rb">[ \t]*>[ \t]*>(?=\s*\()")


def closed_up(source: bytes) -> tuple[bytes, list[Edit]]:
    """The source with spaced launch chevrons closed up, and the same-length edits that do it."""
    if b"< <" not in source and b"<< " not in source and b"<\t" not in source:
        return source, []
    skipped = [m.span() for m in _SKIP.finditer(source)]
    edits: list[Edit] = []
    for opening in _OPEN.finditer(source):
        if _inside(skipped, opening.start()):
            continue
        closing = _CLOSE.search(source, opening.end(), _statement_end(source, opening.end()))
        if closing is None:
            continue
        for m in (opening, closing):
            if m.end() - m.start() == 3:
                continue  # written together already
            text = m.group()
            edits.append(Edit(m.start(), m.end(), text.replace(b" ", b"").replace(b"\t", b"").ljust(len(text))))
    if not edits:
        return source, []
    out = bytearray(source)
    for edit in edits:
        out[edit.start : edit.end] = edit.text
    return bytes(out), edits


def _statement_end(source: bytes, at: int) -> int:
    end = source.find(b";", at)
    return len(source) if end < 0 else end


def _inside(spans: list[tuple[int, int]], offset: int) -> bool:
    return any(start <= offset < end for start, end in spans)
