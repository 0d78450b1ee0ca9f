"""Line breaks as compilers read them: LF, CRLF, or a lone CR (old Mac files)."""

from __future__ import annotations

import re
from collections.abc import Iterator

_BREAK = re.compile(rb"\r\n?|\n")


def end_of_line(source: bytes, offset: int) -> int:
    """One past the line break that ends the line holding offset (len(source) on the last line)."""
    m = _BREAK.search(source, offset)
    return len(source) if m is None else m.end()


def newline_of(source: bytes) -> bytes:
    """The line break a line added to source should end with: the first line's, else LF."""
    m = _BREAK.search(source)
    return b"\n" if m is None else m.group()


# Source text that holds no code: comments and string literals, and (COMMENT_STRING_CHAR) character
# literals too. The byte-level fixes that need no syntax tree skip what these match.
COMMENT_STRING = rb'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"'
COMMENT_STRING_CHAR = COMMENT_STRING + rb"|'(?:\\.|[^'\\\n])*'"


def matching_bracket(source: bytes, open_at: int, opener: bytes, closer: bytes) -> int:
    """Where the bracket opened at open_at closes, skipping comments and literals; -1 if never."""
    if open_at < 0:
        return -1
    pattern = re.compile(COMMENT_STRING_CHAR + b"|" + re.escape(opener) + b"|" + re.escape(closer), re.S)
    depth = 0
    for m in pattern.finditer(source, open_at):
        if m.group() == opener:
            depth += 1
        elif m.group() == closer:
            depth -= 1
            if depth == 0:
                return m.start()
    return -1


def matches_in_code(pattern: re.Pattern[bytes], source: bytes, skipped: re.Pattern[bytes]) -> Iterator[re.Match[bytes]]:
    """pattern's matches in source that do not start inside a match of skipped (comments, literals).
    The skipped spans are found only once pattern matches: most files have no match at all."""
    spans: list[tuple[int, int]] | None = None
    for m in pattern.finditer(source):
        if spans is None:
            spans = [s.span() for s in skipped.finditer(source)]
        if not any(start <= m.start() < end for start, end in spans):
            yield m


def enclosing_heads(source: bytes, at: int) -> Iterator[bytes]:
    """What precedes each brace enclosing offset at, innermost first, back to the previous `;` or
    `}`: a function's signature, a class or namespace head. A scan of braces, not a parse."""
    depth, i = 0, at
    while i > 0:
        i -= 1
        c = source[i : i + 1]
        if c == b"}":
            depth += 1
        elif c == b"{":
            if depth == 0:
                head_start = max(source.rfind(b";", 0, i), source.rfind(b"}", 0, i)) + 1
                yield source[head_start:i]
            else:
                depth -= 1
