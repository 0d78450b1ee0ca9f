"""Encodings hipport cannot port byte for byte.

hipport edits bytes and treats identifiers as ASCII, which is right for UTF-8,
Latin-1 and every other ASCII-compatible encoding. In UTF-16 and UTF-32 each
character spans several bytes, so `cudaFree` is not the byte string b"cudaFree"
and an edit could split a character: such a file is left alone and reported.
"""

from __future__ import annotations

_BOMS = (
    (b"\x00\x00\xfe\xff", "UTF-32 (big-endian)"),
    (b"\xff\xfe\x00\x00", "UTF-32 (little-endian)"),
    (b"\xfe\xff", "UTF-16 (big-endian)"),
    (b"\xff\xfe", "UTF-16 (little-endian)"),
)
_SNIFF = 512  # bytes of a file without a BOM looked at


def wide_encoding(source: bytes) -> str | None:
    """The name of the UTF-16/32 encoding source is in, or None for an ASCII-compatible one."""
    for bom, name in _BOMS:
        if source.startswith(bom):
            return name
    head = source[:_SNIFF]
    # ASCII text in UTF-16 has a NUL in every other byte; text in a byte encoding has none.
    if len(head) >= 4 and head[1::2].count(0) == len(head) // 2 and head[0::2].count(0) == 0:
        return "UTF-16 (little-endian, no byte-order mark)"
    if len(head) >= 4 and head[0::2].count(0) == (len(head) + 1) // 2 and head[1::2].count(0) == 0:
        return "UTF-16 (big-endian, no byte-order mark)"
    return None
