"""`assert` under HIP's NVIDIA headers: nvidia_hip_runtime.h redefines it for device compilation as
`if (!COND) ...`, without parentheses around COND. nvcc's device pass reads the whole unit, so
`assert(NULL != p)` becomes `!NULL != p` (a bool against a pointer: the unit does not compile)
and `assert(i < n)` tests `!i < n` in device code. The port writes the condition in parentheses
wherever it is more than one operand, which every compiler reads as before."""

from __future__ import annotations

import re

from hipport.diagnostics import Edit
from hipport.parse.lines import COMMENT_STRING_CHAR, matches_in_code, matching_bracket

_ASSERT = re.compile(rb"(?<![\w$.>:])assert\s*\(")
_SKIPPED = re.compile(COMMENT_STRING_CHAR + rb"|^[ \t]*#[ \t]*(?:include|define)[^\n]*", re.S | re.M)
_TOKENS = re.compile(COMMENT_STRING_CHAR + rb"|[()\[\]{},]", re.S)  # literals are skipped whole
# one operand: a name, maybe negated, with members, subscripts and calls (no operator between)
_OPERAND = re.compile(rb"!*\s*[A-Za-z_]\w*(?:\s*(?:\.|->|::)\s*[A-Za-z_]\w*|\s*\[[^\[\]]*\]|\s*\([^()]*\))*\s*", re.S)


def assert_paren_edits(source: bytes) -> list[Edit]:
    if b"assert" not in source:
        return []
    edits = []
    for call in matches_in_code(_ASSERT, source, _SKIPPED):
        opened = call.end() - 1
        closed = matching_bracket(source, opened, b"(", b")")
        if closed < 0:
            continue
        condition = source[opened + 1 : closed]
        if not condition.strip() or _OPERAND.fullmatch(condition) or _parenthesized(condition):
            continue
        if _top_level_comma(condition):
            continue  # two arguments: a project's own assert macro, not the standard one
        edits += [Edit(opened + 1, opened + 1, b"("), Edit(closed, closed, b")")]
    return edits


def _parenthesized(condition: bytes) -> bool:
    """The whole condition is one parenthesised expression: `(a != b)`, not `(a) != (b)`."""
    text = condition.strip()
    return text.startswith(b"(") and matching_bracket(text, 0, b"(", b")") == len(text) - 1


def _top_level_comma(condition: bytes) -> bool:
    depth = 0
    for m in _TOKENS.finditer(condition):
        token = m.group()
        if token in (b"(", b"[", b"{"):
            depth += 1
        elif token in (b")", b"]", b"}"):
            depth -= 1
        elif token == b"," and depth == 0:
            return True
    return False
