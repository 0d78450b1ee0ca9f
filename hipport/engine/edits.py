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
    kept_start = kept_end = -1  # the last edit kept
    # Keyed by plain tuples, which hash and compare in C: Edit's own hash is Python code,
    # and this runs for every edit of every file.
    unique = {(edit.start, edit.end, edit.text): edit for edit in edits}
    for key in sorted(unique):
        start, end, _ = key
        if start < last_end or (start == kept_start and end > start and kept_end > kept_start):
            rejected.append(unique[key])
            continue
        ordered.append(unique[key])
        kept_start, kept_end = start, end
        last_end = max(last_end, end)
    return ordered, rejected


def apply_edits(source: bytes, ordered: list[Edit]) -> bytes:
    """Everything outside the edits is copied byte for byte."""
    if not ordered:
        return source
    pieces = []
    cursor = 0
    for edit in ordered:
        pieces.append(source[cursor : edit.start])
        pieces.append(edit.text)
        cursor = edit.end
    pieces.append(source[cursor:])
    return b"".join(pieces)
