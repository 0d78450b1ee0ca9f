"""A warp mask that names all 32 lanes of a CUDA warp through a macro (#define FULL_MASK 0xffffffff)
or a constant (static const unsigned FULL_MASK = 0xffffffff;).

HIP's masked intrinsics take a 64-bit mask and static_assert its type, and at run time the mask
must name every active lane of the 64-lane wavefront. A call whose mask is such a macro means
"the whole warp", so the port passes the whole wavefront, 0xffffffffffffffffull, at the call; the
macro (or constant) itself stays, since other code may use its 32-bit value. (A literal 0xffffffff at the call
is HP401's fix.)
"""

from __future__ import annotations

import re

from hipport.diagnostics import Edit
from hipport.parse.scan import integer_constants
from hipport.ruleset.lintrules import int_value

FULL_WAVEFRONT = b"0xffffffffffffffffull"
_NAME = re.compile(r"[A-Za-z_]\w*")


def full_mask_edit(text: str, start: int, end: int, source: bytes) -> Edit | None:
    """The edit that widens a macro mask whose value is 0xffffffff (or -1, ~0u) at one call."""
    if _NAME.fullmatch(text.strip()) and _is_full_32(text.strip(), source, 0):
        return Edit(start, end, FULL_WAVEFRONT)
    return None


def is_full_32(text: str, source: bytes) -> bool:
    """The expression is a 32-bit all-lanes mask: 0xffffffff, -1, ~0u, or a macro or constant for one."""
    return _is_full_32(text, source, 0)


def _is_full_32(text: str, source: bytes, depth: int) -> bool:
    text = text.strip().strip("()").strip()
    if depth > 4:
        return False
    if re.fullmatch(r"-\s*1|~\s*0+[uU]?", text):
        return True
    if text[:1].isdigit():
        suffix = text.lstrip("0123456789abcdefABCDEFxX'")
        return int_value(text) == 0xFFFFFFFF and "ll" not in suffix.lower()
    if not _NAME.fullmatch(text):
        return False
    constant = integer_constants(source).get(text)
    if constant is not None:  # a #define or a const/constexpr integer, 32-bit unless spelled long long
        number, spelled, _ = constant
        return number == 0xFFFFFFFF and "ll" not in spelled.lower()
    m = re.search(rb"^[ \t]*#[ \t]*define[ \t]+" + re.escape(text.encode()) + rb"[ \t]+([^\n]*)", source, re.M)
    if m is None:
        return False
    value = m.group(1).split(b"//")[0].decode("utf-8", "replace")
    return _is_full_32(value, source, depth + 1)
