"""Whether an argument is a variable this file declares with one of some types: a cast a rule adds
for overload resolution is left out where the argument already has a type that resolves."""

from __future__ import annotations

import re

_BASE = re.compile(rb"\s*\(*\s*([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*\)*\s*\Z")


def declared_with(argument: bytes, source: bytes, types: tuple[str, ...]) -> bool:
    """argument is `name` or `name[i]...`, and a declaration `TYPE name` of one of types is in source."""
    if not types:
        return False
    m = _BASE.match(argument)
    if m is None:
        return False
    name = re.escape(m.group(1))
    spellings = b"|".join(rb"\s+".join(re.escape(w.encode()) for w in t.split()) for t in types)
    declaration = (
        rb"(?<![\w])(?:const\s+)?(?:" + spellings + rb")\s+(?:const\s+)?(?:[\w\s,*=\[\]]*,\s*)?\*?\s*" + name + rb"\b"
    )
    return re.search(declaration, source) is not None


_NAME = re.compile(rb"\s*([A-Za-z_]\w*)\s*\Z")


def declared_value(argument: bytes, source: bytes, type_name: str) -> bool:
    """argument is a plain name, and source declares it a `[struct] TYPE` value (`TYPE a, name`;
    not a pointer): an expression with no side effects, whose members the port may read."""
    m = _NAME.match(argument)
    if m is None:
        return False
    spelled = re.escape(type_name.encode())
    declaration = rb"\b(?:struct\s+)?" + spelled + rb"\s+(?:\w+\s*(?:=[^;,]*)?,\s*)*" + re.escape(m.group(1)) + rb"\b"
    return re.search(declaration, source) is not None
