"""A string literal written against a macro name: `"%"PRIu64`, `"node ("FMT")"`.

C++11 reads the name as a literal suffix. nvcc (EDG and gcc) warns and expands the macro, as
C and C++03 did; clang rejects a suffix that does not begin with `_` unless the standard
library declares it. The port puts a blank between the two, which is what the code meant
everywhere it compiled.
"""

from __future__ import annotations

import re

from hipport.diagnostics import Edit
from hipport.parse.lines import COMMENT_STRING_CHAR

_LITERALS = re.compile(COMMENT_STRING_CHAR, re.S)
_SUFFIX = re.compile(rb"[A-Za-z][A-Za-z0-9_]*")
# A raw string's text is not tokenised like other literals: a file with one is left as written.
_RAW_STRING = re.compile(rb'(?<![A-Za-z0-9_])(?:u8|u|U|L)?R"')
# The suffixes the standard library declares (std::literals): `"abc"s` is a std::string.
_STANDARD = frozenset({b"s", b"sv", b"h", b"min", b"ms", b"us", b"ns", b"y", b"d", b"i", b"il", b"if"})


def literal_suffix_edits(source: bytes) -> list[Edit]:
    if b'"' not in source or _RAW_STRING.search(source):
        return []
    edits = []
    for literal in _LITERALS.finditer(source):
        if literal.group().startswith(b'"'):
            suffix = _SUFFIX.match(source, literal.end())
            if suffix is not None and suffix.group() not in _STANDARD:
                edits.append(Edit(literal.end(), literal.end(), b" "))
    return edits
