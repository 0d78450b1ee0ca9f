"""C's allocators in a .c file the port makes HIP. hipcc builds every source as CUDA C++ on the
NVIDIA platform (`nvcc -x cu`: HIP's NVIDIA headers are C++), and C++ does not convert the void*
that malloc, calloc and realloc return to another object pointer as C does. Where the pointer's
type is written in the file (the declaration it initialises, the declaration of the variable it is
assigned to, or of the pointer it is stored through), the port writes the cast both languages
accept; elsewhere (a member, an element) it leaves the call as it is."""

from __future__ import annotations

import re

from hipport.diagnostics import Edit
from hipport.parse.lines import COMMENT_STRING_CHAR, matches_in_code

_ALLOCATOR = re.compile(rb"(?<![\w.>])(?:malloc|calloc|realloc)\s*\(")
_SKIPPED = re.compile(COMMENT_STRING_CHAR + rb"|^[ \t]*#[^\n]*", re.S | re.M)
_COMMENT = re.compile(rb"//[^\n]*|/\*.*?\*/", re.S)
_STORAGE = re.compile(rb"^(?:(?:static|extern|register|auto)\s+)+")
# `const char **name`: the declared type, then the name
_STARS = rb"\*(?:[\s*]|const\b)*"  # `*`, `**`, `* const *`
_DECLARATION = re.compile(rb"(?P<type>(?:[A-Za-z_]\w*\s+)*?[A-Za-z_]\w*\s*" + _STARS + rb")(?P<name>[A-Za-z_]\w*)")
# the target of an assignment: `name` or `*name`
_TARGET = re.compile(rb"(?P<deref>\*\s*)?(?P<name>[A-Za-z_]\w*)")
_QUALIFIERS = rb"(?:(?:const|volatile|unsigned|signed|struct|enum|union|long|short)\s+)*"
_NOT_TYPES = frozenset({b"return", b"sizeof", b"else", b"case", b"do", b"goto", b"typedef"})


def allocation_cast_edits(source: bytes) -> list[Edit]:
    """A `(T *)` before each allocator call whose result initialises or is assigned to a T*."""
    if not _ALLOCATOR.search(source):
        return []
    edits = []
    for call in matches_in_code(_ALLOCATOR, source, _SKIPPED):
        pointer = _pointer_type(source, call.start())
        if pointer is not None:
            edits.append(Edit(call.start(), call.start(), b"(" + pointer + b")"))
    return edits


def _pointer_type(source: bytes, at: int) -> bytes | None:
    """The type the value at offset `at` becomes: what stands before its `=`."""
    before = source[:at].rstrip()
    if not before.endswith(b"=") or before[-2:-1] in (b"=", b"!", b"<", b">"):
        return None  # not an assignment or initialisation (an argument, a cast, a comparison)
    start = max(before.rfind(b";"), before.rfind(b"{"), before.rfind(b"}"), before.rfind(b"("), before.rfind(b",")) + 1
    target = _STORAGE.sub(b"", _COMMENT.sub(b" ", before[start:-1]).strip())
    declared = _DECLARATION.fullmatch(target)
    if declared is not None:
        return _spelled(declared.group("type"))
    assigned = _TARGET.fullmatch(target)
    if assigned is None:
        return None
    found = _declared_pointer(source[:start], assigned.group("name"))
    if found is None:
        return None
    if assigned.group("deref"):
        return found[:-1].rstrip() if found.count(b"*") > 1 else None
    return found


def _declared_pointer(source: bytes, name: bytes) -> bytes | None:
    """The pointer type of the last declaration of name before the use: `T *name` where a
    declaration or a parameter may begin, or `T a, *name` at the start of a line."""
    tail = rb"(?P<stars>" + _STARS + rb")" + re.escape(name) + rb"\s*[;,=)\[]"
    single = rb"(?:^|(?<=[;{}(,]))\s*(?P<base>" + _QUALIFIERS + rb"[A-Za-z_]\w*)\s*" + tail
    listed = rb"^[ \t]*(?P<base>" + _QUALIFIERS + rb"[A-Za-z_]\w*)\s+[^;(){}\n]*,\s*" + tail
    found = [
        m
        for pattern in (single, listed)
        for m in re.finditer(pattern, source, re.M)
        if m.group("base").split()[-1] not in _NOT_TYPES  # `sizeof *p`, `return *p`
    ]
    if not found:
        return None
    last = max(found, key=lambda m: m.start("stars"))
    return _spelled(last.group("base") + b" " + last.group("stars"))


def _spelled(type_text: bytes) -> bytes:
    """`const  char* const*` as `const char *const *`."""
    spaced = b" ".join(re.findall(rb"\*|\w+", type_text))
    return re.sub(rb"\* (?=\*|const\b)", b"*", spaced)
