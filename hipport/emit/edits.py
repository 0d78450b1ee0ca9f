"""Apply byte-range edits to the original bytes in one pass."""
from __future__ import annotations

from hipport.diagnostics import Edit


def order_edits(edits: list[Edit]) -> tuple[list[Edit], list[Edit]]:
    """Sort edits and split off those that overlap an earlier one.

    Insertions (start == end) sort before a replacement at the same offset, so
    an include inserted before a rewritten line stays before it. Identical
    edits from two rules collapse into one.
    """
    ordered: list[Edit] = []
    rejected: list[Edit] = []
    last_end = -1
    for edit in sorted(set(edits), key=lambda e: (e.start, e.end, e.text)):
        overlaps = edit.start < last_end or (
            ordered and edit.start == ordered[-1].start and edit.end > edit.start
            and ordered[-1].end > ordered[-1].start
        )
        if overlaps:
            rejected.append(edit)
            continue
        ordered.append(edit)
        last_end = max(last_end, edit.end)
    return ordered, rejected


def apply_edits(source: bytes, ordered: list[Edit]) -> bytes:
    """Everything outside the edits is copied byte for byte."""
    if not ordered:
        return source
    pieces = []
    cursor = 0
    for edit in ordered:
        pieces.append(source[cursor:edit.start])
        pieces.append(edit.text)
        cursor = edit.end
    pieces.append(source[cursor:])
    return b"".join(pieces)
