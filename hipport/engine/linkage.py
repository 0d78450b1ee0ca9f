"""A CUDA header included inside `extern "C" { ... }`.

CUDA's runtime headers guard themselves against C linkage; HIP's are C++ templates, which fail there
("templates must have C++ linkage"). A ported include inside a linkage block moves out, to just
before the block (before an `#ifdef __cplusplus` that opens it, if one does): the line inside goes.

A project header included inside the block fails the same way once its own port includes HIP's
runtime (`extern "C" { #include "cu.h" }`, cu.h with __device__ macros): nvcc included CUDA's runtime
before the whole file, HIP's comes in inside the block. hipport.project marks each such include
(runtime_via: the header, or one it includes, has device code, CUDA runtime names or a CUDA or HIP
runtime include), and the including file includes the runtime before the block, so that the
header's own include of it, guarded, adds nothing there.
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


# What makes a header's port include HIP's runtime (hipport.engine.includes), besides device code
# (hipport.engine.warp.enable.DEVICE_CODE): a CUDA runtime name, a CUDA header, or HIP's runtime itself.
RUNTIME_USE = re.compile(
    rb"\bcuda[A-Z]\w*|^[ \t]*#[ \t]*include[ \t]*[<\"](?:cuda\w*\.h|hip/hip_runtime(?:_api)?\.h)[>\"]", re.M
)


def runtime_via(include: str) -> str:
    """The mark hipport.project adds to the names a file sees when the header it includes as
    `include` ("x.h" as x.h, <x.h> as <x.h>) gets HIP's runtime, itself or through its includes."""
    return f"<runtime-via:{include}>"


def own_header(include: str) -> str:
    """The mark hipport.project adds to the names a file sees when its "quoted" include names a
    file beside it: the compiler takes that one, even where its name is a CUDA header's ("cuda.h")."""
    return f"<own-header:{include}>"


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


def runtime_before_linkage(
    source: bytes, parsed: ParsedFile, edits: list[Edit], runtime: str, declared_elsewhere: frozenset[str]
) -> None:
    """Include the runtime before the first extern "C" block that includes a project header which
    gets it (runtime_via), unless the file (as ported, edits) includes it before that block already."""
    if b'extern "C"' not in source or not any(name.startswith("<runtime-via:") for name in declared_elsewhere):
        return
    blocks = linkage_blocks(source)
    marked = [
        site.line_start
        for site in parsed.includes
        if runtime_via(site.path if source[site.path_start - 1 : site.path_start] == b'"' else f"<{site.path}>")
        in declared_elsewhere
    ]
    at = min((b[0] for b in blocks if any(b[0] <= line < b[1] for line in marked)), default=None)
    if at is None:
        return
    wanted = runtime.encode("ascii")
    if any(site.path == runtime and site.line_start < at for site in parsed.includes):
        return
    if any(edit.start <= at and wanted in edit.text and b"#include" in edit.text for edit in edits):
        return  # inserted (or moved out of a block) by the port
    if any(edit.start < at and edit.text == wanted for edit in edits):
        return  # a CUDA include before the block, ported to the runtime
    edits.append(Edit(at, at, b"#include <" + wanted + b">" + newline_of(source)))
