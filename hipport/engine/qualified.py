"""A dialect's qualified names rewritten whole (hipify 1.x: at::cuda::getCurrentCUDAStream ->
at::hip::getCurrentHIPStreamMasqueradingAsCUDA, c10::cuda -> c10::hip).

A rule `A::b -> C::d` (RuleSet.qualified) applies where the source spells A::b from a name site
of A on, spaces around :: allowed; the longest rule that matches there wins, and the names inside
the rewritten span are not ported again.
"""

from __future__ import annotations

import re
from functools import cache

from hipport.ruleset.model import NameRule


@cache
def _pattern(cuda: str) -> re.Pattern[bytes]:
    parts = [re.escape(part.encode("ascii")) for part in cuda.split("::")]
    return re.compile(rb"\s*::\s*".join(parts) + rb"(?![\w])")


def by_first_name(qualified: dict[str, NameRule]) -> dict[str, tuple[NameRule, ...]]:
    """First identifier -> its rules, longest first."""
    index: dict[str, list[NameRule]] = {}
    for rule in qualified.values():
        index.setdefault(rule.cuda.split("::", 1)[0], []).append(rule)
    return {name: tuple(sorted(rules, key=lambda r: -len(r.cuda))) for name, rules in index.items()}


def qualified_match(source: bytes, start: int, rules: tuple[NameRule, ...]) -> tuple[int, NameRule] | None:
    """(end, rule) of the longest rule spelled at start, or None."""
    if start and (source[start - 1 : start].isalnum() or source[start - 1 : start] == b"_"):
        return None
    for rule in rules:
        match = _pattern(rule.cuda).match(source, start)
        if match is not None:
            return match.end(), rule
    return None
