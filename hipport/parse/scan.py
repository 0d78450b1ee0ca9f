"""The cheap first pass: find candidate bytes before any parsing.

Most of a source file is irrelevant to porting. One regex pass finds the
identifiers the rule set cares about, the #include lines and the launch
chevrons; only those positions are handed to the parser to classify, and a file
with none of them is not parsed at all.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

IDENTIFIER = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
# The optional BOM lets the first line of a UTF-8-with-BOM file match; the
# "line" group starts after it, so deleting that include keeps the BOM.
INCLUDE = re.compile(rb'^(?:\xef\xbb\xbf)?(?P<line>[ \t]*#[ \t]*include[ \t]*([<"])([^>"\r\n]+)[>"])', re.M)
LAUNCH = re.compile(rb"<<<")


@dataclass(slots=True)
class Candidates:
    names: list[tuple[int, int, str]]
    includes: list[re.Match[bytes]]
    launches: list[int]

    def __bool__(self) -> bool:
        return bool(self.names or self.includes or self.launches)


def scan(source: bytes, interesting: Callable[[str], bool]) -> Candidates:
    names = []
    seen: dict[bytes, bool] = {}
    for m in IDENTIFIER.finditer(source):
        token = m.group()
        hit = seen.get(token)
        if hit is None:
            hit = seen[token] = interesting(token.decode("ascii"))
        if hit:
            names.append((m.start(), m.end(), token.decode("ascii")))
    includes = list(INCLUDE.finditer(source))
    launches = [m.start() for m in LAUNCH.finditer(source)]
    return Candidates(names, includes, launches)
