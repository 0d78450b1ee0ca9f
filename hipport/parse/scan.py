"""The cheap first pass: find candidate bytes before any parsing.

Most of a source file is irrelevant to porting. One regex pass finds the
identifiers the rule set cares about, the #include lines and the launch
chevrons; only those positions are handed to the parser to classify, and a file
with none of them is not parsed at all. Integer literals that lints look at
(the 32 of `threadIdx.x % 32`) are collected too, but never make a file worth
parsing on their own.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from hipport.parse.lines import newline_of
from hipport.rules.lintrules import LintIndex, int_value, literal_start_ok

IDENTIFIER = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
# The optional BOM lets the first line of a UTF-8-with-BOM file match; the
# "line" group starts after it, so deleting that include keeps the BOM.
INCLUDE = re.compile(rb'^(?:\xef\xbb\xbf)?(?P<line>[ \t]*#[ \t]*include[ \t]*([<"])([^>"\r\n]+)[>"])', re.M)
# Classic Mac files end lines with a lone CR, which ^ does not know; the
# lookbehind costs 4x, so only those files pay for it.
INCLUDE_AFTER_CR = re.compile(rb"(?:^|(?<=\r))" + INCLUDE.pattern[1:], re.M)
LAUNCH = re.compile(rb"<<<")


@dataclass(slots=True)
class Candidates:
    names: list[tuple[int, int, str]]
    includes: list[re.Match[bytes]]
    launches: list[int]
    literals: list[tuple[int, int, int]] = field(default_factory=list)  # start, end, value
    lints: LintIndex | None = None  # the lints a backend runs at these candidates

    def __bool__(self) -> bool:
        return bool(self.names or self.includes or self.launches)


# A memo that outgrows this is dropped: a huge tree's identifiers must not pile up in memory.
MEMO_LIMIT = 200_000


def scan(source: bytes, interesting: Callable[[str], bool], lints: LintIndex | None = None,
         memo: dict[bytes, str] | None = None) -> Candidates:
    """memo: token -> its name if interesting, else ""; a rule set's own memo carries the
    answers over to the next file, where most identifiers come back."""
    if memo is None:
        memo = {}
    elif len(memo) > MEMO_LIMIT:
        memo.clear()
    names = []
    known = memo.get
    for m in IDENTIFIER.finditer(source):
        token = m.group()
        name = known(token)
        if name is None:
            name = token.decode("ascii")
            name = memo[token] = name if interesting(name) else ""
        if name:
            names.append((*m.span(), name))
    include_re = INCLUDE_AFTER_CR if newline_of(source) == b"\r" else INCLUDE
    includes = list(include_re.finditer(source))
    launches = [m.start() for m in LAUNCH.finditer(source)]
    candidates = Candidates(names, includes, launches, lints=lints)
    if candidates and lints is not None and lints.literal_re is not None:
        candidates.literals = [(m.start(), m.end(), int_value(m.group())) for m in lints.literal_re.finditer(source)
                               if literal_start_ok(source, m.start())]
    return candidates
