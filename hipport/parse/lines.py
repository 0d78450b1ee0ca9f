"""Line breaks as compilers read them: LF, CRLF, or a lone CR (old Mac files)."""

from __future__ import annotations

import re

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
