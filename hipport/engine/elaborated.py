"""`struct cudaGraphicsResource *r`: the elaborated keyword before a type the port renames.

In CUDA a struct's tag and its type name are one name. Some HIP types are typedefs of a struct
with another tag (`typedef struct _hipGraphicsResource hipGraphicsResource;`), and
`struct hipGraphicsResource` does not compile; without the keyword the type means the same.
rules/hip-typedefs.toml lists those types (tools/hip_typedefs.py reads them from the installed
HIP headers).
"""

from __future__ import annotations

import re

_KEYWORD = re.compile(rb"(?:^|(?<=[^A-Za-z0-9_]))(?:struct|union|enum|class)[ \t]+\Z")
_DECLARES_TAG = re.compile(rb"[ \t\r\n]*[;{:]")


def elaborated_keyword(source: bytes, start: int, end: int) -> int | None:
    """Where the struct/union/enum keyword right before the name at start..end begins, if one is
    there and the code uses the type; None for none, or for a declaration of the tag itself
    (`struct X;`, `struct X {`), which is left as written."""
    window_start = max(0, start - 16)
    match = _KEYWORD.search(source, window_start, start)
    if match is None or (
        match.start() == window_start
        and window_start > 0
        and re.match(rb"[A-Za-z0-9_]", source[window_start - 1 : window_start])
    ):
        return None
    if _DECLARES_TAG.match(source, end):
        return None
    return match.start()
