"""Compare a program's output with a reference's, numbers within a tolerance.

Both outputs are split into whitespace-separated tokens; a token that reads as
a number on both sides matches when |a - b| <= max(abs_tol, rel_tol * max(|a|, |b|)),
any other token must be equal. Timings differ from run to run by nature: the
reference command should print none, or the user filters them out.
"""

from __future__ import annotations

import math
import re

_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:inf|nan)", re.I)
_TOKEN = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|(?i:[-+]?(?:inf|nan))\b|[^\s\d+\-.]+|\S")


def _tokens(text: str) -> list[str]:
    # numbers are split from the words around them: "count=71," gives count, =, 71, ","
    return [m.group() for m in _TOKEN.finditer(text)]


def _close(a: float, b: float, rel_tol: float, abs_tol: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b or abs(a - b) <= max(abs_tol, rel_tol * max(abs(a), abs(b)))


def difference(actual: str, reference: str, rel_tol: float = 1e-5, abs_tol: float = 1e-8) -> str | None:
    """None when the outputs agree; otherwise where they first differ, in one line."""
    mine, theirs = _tokens(actual), _tokens(reference)
    for index, (a, b) in enumerate(zip(mine, theirs)):
        if a == b:
            continue
        if _NUMBER.fullmatch(a) and _NUMBER.fullmatch(b) and _close(float(a), float(b), rel_tol, abs_tol):
            continue
        return f"token {index + 1}: '{a}' where the reference has '{b}'"
    if len(mine) != len(theirs):
        return f"{len(mine)} tokens where the reference has {len(theirs)}"
    return None
