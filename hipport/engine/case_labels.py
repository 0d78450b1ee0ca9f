"""Case labels whose enumerator HIP's library lacks: take the label out of the switch.

A status-string helper switches over every status a CUDA library can return, new ones included
(`case CUFFT_NVSHMEM_FAILURE:`). HIP's library never returns a value it does not declare, so
in a port that label can never match; but its name does not compile, and it stops the whole
file. Removing the label alone keeps the rest of the switch compiling and its meaning intact:
the statements after it stay where they are, reached exactly as before by any case that falls
into them. The label becomes a comment, so the reader sees what was there, and porting the
port again finds nothing to do.
"""

from __future__ import annotations

import re

from hipport.diagnostics import Edit

_CASE_BEFORE = re.compile(rb"(?<![A-Za-z0-9_])case\s+$")
_COLON_AFTER = re.compile(rb"\s*:(?!:)")
_LOOKBACK = 64  # 'case' and the blanks before an enumerator never take more


def case_label_span(source: bytes, start: int, end: int) -> tuple[int, int] | None:
    """The bytes of `case NAME:` when the name at start..end is a case label's whole value."""
    before = _CASE_BEFORE.search(source, max(0, start - _LOOKBACK), start)
    if before is None or before.end() != start:
        return None
    after = _COLON_AFTER.match(source, end)
    if after is None:
        return None
    return before.start(), after.end()


def absent_case_edit(source: bytes, span: tuple[int, int], name: str, library: str) -> tuple[Edit, str]:
    """The edit that comments the label out, and the finding's message."""
    label = source[span[0] : span[1]]
    text = b"/* " + label + b" (hipport: HIP has no counterpart) */"
    if b"*/" in label:  # a comment inside the label: never nest comments, and keep its lines
        text = b"/* hipport: case label removed */" + b"\n" * label.count(b"\n")
    message = (
        f"'{name}' ({library}) has no HIP counterpart, so HIP's library never returns it: its case "
        "label was commented out and the statements after it are reached as before"
    )
    return Edit(span[0], span[1], text), message
