"""'argument-type': argument ARGUMENT of a call to NAMES is a variable its function declares with one of
TYPES: a pointer to one with POINTER (`T *p` passed as p or p + i, `T v` passed as &v), else a value."""

from __future__ import annotations

import re

from hipport.lints.context import Context, Site, SyntaxPath, argument_text, spelled_types
from hipport.lints.hit import LintHit
from hipport.lints.matcher import NAME, Matcher
from hipport.lints.rule import StructuralLint


def match(
    ctx: Context, rule: StructuralLint, path: SyntaxPath, depth: int, start: int, end: int, name: str, site: Site | None
) -> LintHit | None:
    if (written := argument_text(ctx, rule, site)) is None:
        return None
    text = written.strip()
    address = re.fullmatch(r"&\s*([A-Za-z_]\w*)", text)
    # p, p + i, (p) and &p[i] name the pointer p
    variable = re.fullmatch(r"\(?\s*([A-Za-z_]\w*)\s*\)?(?:\s*\+.*)?", text, re.S) or re.fullmatch(
        r"&\s*([A-Za-z_]\w*)\s*\[.*\]", text, re.S
    )
    spelled = spelled_types(rule.types)
    scope = ctx.scope_text(path, depth)
    if rule.pointer and address is not None:
        pattern = rf"(?<![\w*&])(?:const\s+)?({spelled})\s+{address.group(1)}\s*[;=,)\[]"
    elif rule.pointer and variable is not None:
        qualifiers = r"(?:const\s+|__restrict__\s+)*"
        pattern = rf"(?<![\w*&])(?:const\s+)?({spelled})\s*\*\s*{qualifiers}{variable.group(1)}\s*[;=,)]"
    elif not rule.pointer and variable is not None and not re.search(r"[+&\[]", text):
        pattern = rf"(?<![\w*&])(?:const\s+)?({spelled})\s+{variable.group(1)}\s*[;=,)]"
    else:
        return None
    m = re.search(pattern, scope)
    if m is None:
        return None
    declared = " ".join(m.group(1).split())
    shown = f"a {declared} *" if rule.pointer else declared
    return LintHit(rule.index, start, end, name, detail=f"(the argument is {shown})")


MATCHER = Matcher(
    "argument-type",
    NAME,
    frozenset({"names", "argument", "types"}),
    frozenset({"pointer"}),
    run=match,
    own_name_silences=True,
)
