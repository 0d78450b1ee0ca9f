"""A uint3 used where a dim3 is wanted.

CUDA's dim3 has a constructor from uint3, so `dim3 grid = make_uint3(n, 1, 1);`, `grid = make_uint3(...)`
on a dim3 and a launch configured with a uint3 (`k<<<blocks, threads>>>` where both are uint3) all
compile. HIP's dim3 has only the constructor from three uint32_t, and its uint3 is a vector type that
does not convert ("no viable conversion from 'uint3' to 'dim3'"). The port builds the dim3 from the
same components:
- a `make_uint3(a, b, c)` call in such a place becomes `dim3(a, b, c)` (the same three values, each
  evaluated once, as make_uint3 did);
- a variable the file declares uint3 becomes `dim3(v.x, v.y, v.z)` (a name has no side effects to repeat).
Such places are: the initialiser of a dim3 declaration, the right side of `x = ...` where x is a variable
the file declares dim3 (and not uint3), and the first two arguments of a launch's configuration.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from hipport.diagnostics import Edit
from hipport.parse.lines import COMMENT_STRING

_SKIP = re.compile(COMMENT_STRING, re.S)
_MAKE = re.compile(rb"\bmake_uint3\s*\(")
_NAME = rb"[A-Za-z_]\w*"
# `dim3 g = X`, `dim3 g(X)`, `dim3 g{X}`, and `g = X` (checked against dim3 declarations below)
_DECLARED_INIT = re.compile(rb"\bdim3\s+" + _NAME + rb"\s*(?:=\s*|\(\s*|\{\s*)\Z")
_ASSIGNED = re.compile(rb"(?<![\w.>:])(" + _NAME + rb")\s*=\s*\Z")


def dim3_edits(source: bytes, launch_configs: Iterable[tuple[int, int]]) -> list[Edit]:
    """Edits that build a dim3 where the file gives a uint3 (see the module's docstring).

    launch_configs: the spans of the launches' grid and block arguments.
    """
    if b"uint3" not in source:
        return []
    skipped = [m.span() for m in _SKIP.finditer(source)]

    def wants_dim3(at: int) -> bool:
        if any(a <= at < b for a, b in skipped):
            return False
        before = source[max(0, at - 80) : at]
        assigned = _ASSIGNED.search(before)
        return bool(_DECLARED_INIT.search(before)) or (
            assigned is not None and _type_before(source, assigned.group(1), at) == b"dim3"
        )

    edits: list[Edit] = []
    for m in _MAKE.finditer(source):
        if wants_dim3(m.start()):
            edits.append(Edit(m.start(), m.start() + len(b"make_uint3"), b"dim3"))
    for start, end in launch_configs:
        text = source[start:end].strip()
        at = start + source[start:end].index(text[:1]) if text else start
        if _MAKE.match(text) and _closes_at_end(text):
            edits.append(Edit(at, at + len(b"make_uint3"), b"dim3"))
        elif re.fullmatch(_NAME, text) and _type_before(source, text, at) == b"uint3":
            edits.append(Edit(at, at + len(text), _components(text)))
    names = {m.group(1) for m in re.finditer(rb"\buint3\s+(" + _NAME + rb")", source)}
    for name in names:  # `dim3 g = v;`, `dim3 g(v);`, `g = v;` with g a dim3
        for m in re.finditer(rb"(?<![\w.>:])" + re.escape(name) + rb"(?=\s*[;)}])", source):
            if wants_dim3(m.start()) and _type_before(source, name, m.start()) == b"uint3":
                edits.append(Edit(m.start(), m.end(), _components(name)))
    return edits


def _components(name: bytes) -> bytes:
    return b"dim3(" + name + b".x, " + name + b".y, " + name + b".z)"


_NOT_TYPES = {b"return", b"else", b"case", b"goto", b"new", b"delete", b"sizeof", b"throw", b"co_return"}


def _type_before(source: bytes, name: bytes, at: int) -> bytes | None:
    """The type word of the last declaration of name before offset at (`T name;`, `T name = `,
    `T name(`, `T name,`, `T name)` as a parameter), by a simple scan: the nearest one wins."""
    found = None
    for m in re.finditer(rb"\b(" + _NAME + rb")\s+" + re.escape(name) + rb"\s*[;=(,{)\[]", source[:at]):
        if m.group(1) not in _NOT_TYPES:
            found = m.group(1)
    return found


def _closes_at_end(text: bytes) -> bool:
    """`make_uint3(...)` is the whole argument: its parenthesis closes at the end."""
    depth = 0
    for i, c in enumerate(text):
        if c == ord("("):
            depth += 1
        elif c == ord(")"):
            depth -= 1
            if depth == 0:
                return i == len(text) - 1
    return False
