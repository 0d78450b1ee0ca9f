"""`x = {};` where x is a half-precision pair or scalar.

CUDA's __half2 has one assignment operator that an empty brace list fits; HIP's has several
(from __half2, __half2_raw, and its native vector type), so `res = {};` is "use of overloaded
operator '=' is ambiguous". `res = decltype(res){};` names the type (whatever the port renamed
it to) and value-initialises it, which is what `= {}` did.
"""

from __future__ import annotations

import re

from hipport.parse.lines import COMMENT_STRING

from hipport.diagnostics import Edit

_TYPES = rb"(?:__)?half2?|(?:__)?nv_bfloat162?|__hip_bfloat162?|hip_bfloat16"
_ASSIGN = re.compile(rb"(?<![\w.>:])([A-Za-z_]\w*)(\s*=\s*)\{\s*\}")
_SKIP = re.compile(COMMENT_STRING, re.S)


def brace_assign_edits(source: bytes) -> list[Edit]:
    if b"{}" not in source and b"{ }" not in source:
        return []
    skipped = [m.span() for m in _SKIP.finditer(source)]
    edits = []
    for m in _ASSIGN.finditer(source):
        if any(a <= m.start() < b for a, b in skipped) or _is_declaration(source, m.start()):
            continue
        name = m.group(1)
        declared = re.search(rb"\b(?:" + _TYPES + rb")\s+(?:[\w\s,=]*,\s*)?" + re.escape(name) + rb"\s*[;,=)]", source)
        if declared is None:
            continue
        brace = source.index(b"{", m.end(2) - 1)
        edits.append(Edit(brace, brace, b"decltype(" + name + b")"))
    return edits


def _is_declaration(source: bytes, at: int) -> bool:
    """`half2 x = {}` (a declaration, which compiles) rather than `x = {}`."""
    before = source[max(0, at - 40) : at].rstrip()
    typed = re.search(rb"(?:" + _TYPES + rb"|auto|[\w>*&])\Z", before) is not None
    return typed and not before.endswith((b";", b"{", b"}", b")"))
