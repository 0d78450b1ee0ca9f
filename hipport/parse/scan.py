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
from itertools import compress, repeat
from operator import is_

from hipport.parse.lines import newline_of
from hipport.ruleset.lintrules import LintIndex, int_value, literal_start_ok

IDENTIFIER = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
# The optional BOM lets the first line of a UTF-8-with-BOM file match; the
# "line" group starts after it, so deleting that include keeps the BOM.
INCLUDE = re.compile(rb'^(?:\xef\xbb\xbf)?(?P<line>[ \t]*#[ \t]*include[ \t]*([<"])([^>"\r\n]+)[>"])', re.M)
# Classic Mac files end lines with a lone CR, which ^ does not know; the
# lookbehind costs 4x, so only those files pay for it.
INCLUDE_AFTER_CR = re.compile(rb"(?:^|(?<=\r))" + INCLUDE.pattern[1:], re.M)
LAUNCH = re.compile(rb"<<<")

# What the scan runs instead of IDENTIFIER.finditer, with the same results (see _names_in).
_WORD_BYTES = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"
_DIGITS = b"0123456789"
_SPACE_OUT = bytes(c if c in _WORD_BYTES else 32 for c in range(256))  # for bytes.translate
_WORD = bytes(c in _WORD_BYTES for c in range(256))  # byte -> 1 if identifiers hold it
_DIGIT = bytes(c in _DIGITS for c in range(256))
_NOT_WORD = re.compile(rb"[^A-Za-z0-9_]")
# Every include line holds this: a fast search for its '#' finds them, where INCLUDE, anchored
# at line starts, tries every byte.
_INCLUDE_HINT = re.compile(rb"#[ \t]*include")


@dataclass(slots=True)
class Candidates:
    names: list[tuple[int, int, str]]
    includes: list[re.Match[bytes]]
    launches: list[int]
    literals: list[tuple[int, int, int | None]] = field(default_factory=list)  # start, end, value
    lints: LintIndex | None = None  # the lints a backend runs at these candidates

    def __bool__(self) -> bool:
        return bool(self.names or self.includes or self.launches)


# A memo that outgrows this is dropped: a huge tree's identifiers must not pile up in memory.
MEMO_LIMIT = 200_000
# Identifiers are listed this many bytes at a time: a huge file's words are never all in memory.
WINDOW = 1 << 20


def scan(
    source: bytes,
    interesting: Callable[[str], bool],
    lints: LintIndex | None = None,
    memo: dict[bytes, str] | None = None,
) -> Candidates:
    """memo: word -> the name of its identifier if interesting, else ""; a rule set's own memo
    carries the answers over to the next file, where most identifiers come back."""
    if memo is None:
        memo = {}
    elif len(memo) > MEMO_LIMIT:
        memo.clear()
    names: list[tuple[int, int, str]] = []
    start = 0
    while start < len(source):
        end = _window_end(source, start)
        _names_in(source, start, end, interesting, memo, names)
        start = end
    includes = _includes(source, lone_cr=newline_of(source) == b"\r")
    launches = [m.start() for m in LAUNCH.finditer(source)]
    candidates = Candidates(names, includes, launches, lints=lints)
    if candidates and lints is not None and lints.literal_re is not None:
        candidates.literals = [
            (m.start(), m.end(), int_value(m.group()))
            for m in lints.literal_re.finditer(source)
            if literal_start_ok(source, m.start())
        ]
        macro_uses = _macro_uses(source, lints)
        if macro_uses:
            candidates.literals = sorted(candidates.literals + macro_uses)
    return candidates


# `#define WARP_SIZE 32`, `#define WARP_SIZE (32U)`: an object-like macro of one integer literal; and
# `static constexpr int kWarp = 32;`, `const unsigned LANES = 32u;`: a named integer constant.
_CONSTANT = re.compile(
    rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+\(?[ \t]*([0-9][0-9A-Fa-fxXuUlL']*)[ \t]*\)?[ \t]*$"
    rb"|\b(?:static\s+)?(?:constexpr|const)\s+(?:static\s+)?(?:const\s+)?"
    rb"(?:unsigned\s+int|unsigned|int|uint32_t|int32_t|size_t|long)\s+"
    rb"([A-Za-z_]\w*)\s*=\s*\(?\s*([0-9][0-9A-Fa-fxXuUlL']*)\s*\)?\s*;",
    re.M,
)
# How a use may derive a lint's literal from the constant: M - 1 (a lane mask), M / 2 (a first offset).
MACRO_DERIVED = (lambda v: v, lambda v: v - 1, lambda v: v // 2)


def integer_constants(source: bytes) -> dict[str, tuple[int, str, int]]:
    """name -> (value, spelling, where its definition's name ends) of the file's integer macros and
    constants; a name defined twice with different values is left out (which one a use sees depends
    on scopes and #if branches)."""
    found: dict[str, tuple[int, str, int] | None] = {}
    if b"define" not in source and b"const" not in source:
        return {}
    for m in _CONSTANT.finditer(source):
        group = 1 if m.group(1) is not None else 3
        value = int_value(m.group(group + 1))
        if value is None:
            continue
        name = m.group(group).decode("ascii")
        if name not in found or (found[name] or (None,))[0] == value:
            found[name] = (value, m.group(group + 1).decode("ascii"), m.end(group))
        else:
            found[name] = None
    return {name: known for name, known in found.items() if known is not None}


def _macro_uses(source: bytes, lints: LintIndex) -> list[tuple[int, int, int | None]]:
    """Uses of the file's integer macros and constants whose value (or M - 1, M / 2) a literal lint
    looks for: the matcher judges them as the literal, `threadIdx.x % WARP_SIZE` as `threadIdx.x % 32`."""
    constants = {
        name.encode(): (value, name_end)
        for name, (value, _, name_end) in integer_constants(source).items()
        if any(derive(value) in lints.by_literal for derive in MACRO_DERIVED)
    }
    if not constants:
        return []
    uses = re.compile(rb"\b(" + b"|".join(map(re.escape, constants)) + rb")\b")
    return [
        (m.start(), m.end(), constants[m.group()][0])
        for m in uses.finditer(source)
        if m.end() != constants[m.group()][1]
    ]


def _window_end(source: bytes, start: int) -> int:
    """Where the window from start ends: after a byte no identifier holds, so none is cut."""
    if len(source) - start <= WINDOW:
        return len(source)
    cut = _NOT_WORD.search(source, start + WINDOW)
    return cut.end() if cut else len(source)


def _names_in(
    source: bytes,
    start: int,
    end: int,
    interesting: Callable[[str], bool],
    memo: dict[bytes, str],
    names: list[tuple[int, int, str]],
) -> None:
    """Append to names the interesting identifiers of source[start:end], as IDENTIFIER.finditer
    finds them: a match object for each identifier was most of the scan, and few are interesting.

    So the window's words (runs of identifier bytes) are split out in C, the memo answers for
    each, and only the interesting ones are then located, each by searching its bytes from the
    end of the one before. A word's identifier is the word less its leading digits (12abc).
    """
    window = source if end - start == len(source) else source[start:end]
    words = window.translate(_SPACE_OUT).split()
    known = memo.get
    answers = list(map(known, words))
    if None in answers:
        for i in compress(range(len(answers)), map(is_, answers, repeat(None))):
            word = words[i]
            answer = known(word)  # the word may have come up earlier in the window
            if answer is None:
                name = word.lstrip(_DIGITS).decode("ascii")
                answer = memo[word] = name if name and interesting(name) else ""
            answers[i] = answer
    find = source.find
    cursor = start
    for word, name in zip(compress(words, answers), filter(None, answers)):
        token = word.lstrip(_DIGITS) if _DIGIT[word[0]] else word
        # Its first occurrence as a whole identifier is this one: an identifier in between with
        # the same bytes would be interesting too, and located before it.
        at = find(token, cursor, end)
        after = at + len(token)
        while at >= 0 and (
            (after < end and _WORD[source[after]])
            or (at and _WORD[source[at - 1]] and not _starts_identifier(source, at))
        ):
            at = find(token, at + 1, end)
            after = at + len(token)
        if at < 0:
            raise AssertionError(f"scan lost {token!r} after byte {cursor}")  # cannot happen, see above
        names.append((at, after, name))
        cursor = after


def _starts_identifier(source: bytes, at: int) -> bool:
    """Whether IDENTIFIER.finditer starts a match at `at`: no identifier byte before it but digits (12abc)."""
    before = at
    while before and _DIGIT[source[before - 1]]:
        before -= 1
    return not before or not _WORD[source[before - 1]]


def _includes(source: bytes, lone_cr: bool) -> list[re.Match[bytes]]:
    """INCLUDE.finditer(source), or INCLUDE_AFTER_CR's where lines end with a lone CR, tried only
    at the start of the lines that hold "#include"."""
    include_re = INCLUDE_AFTER_CR if lone_cr else INCLUDE
    found = []
    line = -1
    for hint in _INCLUDE_HINT.finditer(source):
        start = source.rfind(b"\n", 0, hint.start()) + 1
        if lone_cr:
            start = max(start, source.rfind(b"\r", 0, hint.start()) + 1)
        if start != line:  # a line matches once however many hints it holds
            line = start
            match = include_re.match(source, start)
            if match is not None:
                found.append(match)
    return found
