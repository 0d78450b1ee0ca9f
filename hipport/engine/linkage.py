"""A CUDA header included inside `extern "C" { ... }`.

CUDA's runtime headers guard themselves against C linkage; HIP's are C++ templates, which fail there
("templates must have C++ linkage"). A ported include inside a linkage block moves out, to just
before the block (before an `#ifdef __cplusplus` that opens it, if one does): the line inside goes.
"""

from __future__ import annotations

import re

from hipport.diagnostics import Edit
from hipport.parse.lines import newline_of
from hipport.parse.sites import IncludeSite, ParsedFile

_SKIP = re.compile(rb'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
_EXTERN_C = re.compile(rb'\bextern\s+"C"\s*\{')
_CPLUSPLUS = re.compile(
    rb"[ \t]*#[ \t]*(?:ifdef[ \t]+__cplusplus|if[ \t]+defined[ \t]*\(?[ \t]*__cplusplus\b)[^\n]*\n\Z"
)


def linkage_blocks(source: bytes) -> list[tuple[int, int]]:
    """(start of the line that opens the block, offset of its closing brace) for each extern "C" block."""
    if b'extern "C"' not in source:
        return []
    skipped = [m.span() for m in _SKIP.finditer(source)]
    blocks = []
    for m in _EXTERN_C.finditer(source):
        if any(a <= m.start() < b for a, b in skipped):
            continue
        close = _closing_brace(source, m.end(), skipped)
        line = source.rfind(b"\n", 0, m.start()) + 1
        before = source.rfind(b"\n", 0, max(line - 1, 0)) + 1
        if line > 0 and _CPLUSPLUS.match(source[before:line]):
            line = before
        blocks.append((line, close))
    return blocks


def _closing_brace(source: bytes, at: int, skipped: list[tuple[int, int]]) -> int:
    depth = 1
    for m in re.finditer(rb"[{}]", source[at:]):
        offset = at + m.start()
        if any(a <= offset < b for a, b in skipped):
            continue
        depth += 1 if m.group() == b"{" else -1
        if depth == 0:
            return offset
    return len(source)


def out_of_linkage(source: bytes, parsed: ParsedFile, edits: list[Edit]) -> None:
    """Move each include the port rewrites out of the extern "C" block around it (edits in place)."""
    blocks = linkage_blocks(source)
    if not blocks:
        return
    sites = {site.path_start: site for site in parsed.includes}
    for i, edit in enumerate(edits):
        if edit.start == edit.end and edit.text.startswith(b"#include <"):  # an include the port inserts
            inside = next((b for b in blocks if b[0] < edit.start <= b[1]), None)
            if inside is not None:
                edits[i] = Edit(inside[0], inside[0], edit.text)
            continue
        site: IncludeSite | None = sites.get(edit.start)
        if site is None or edit.end != site.path_end:
            continue
        block = next((b for b in blocks if b[0] <= site.line_start < b[1]), None)
        rest = source[site.path_end + 1 : site.line_end].strip()
        if block is None or rest:
            continue
        edits[i] = Edit(site.line_start, site.line_end, b"")
        edits.append(Edit(block[0], block[0], b"#include <" + edit.text + b">" + newline_of(source)))
