"""'shared-array': a one-dimensional __shared__ array sized by a literal in LITERALS and subscripted, in
the same function, by an index matching SUBSCRIPT (one slot per warp)."""

from __future__ import annotations

import re

from hipport.lints.context import Context, SyntaxPath
from hipport.lints.hit import LintHit
from hipport.lints.matcher import LITERAL, Matcher
from hipport.lints.rule import StructuralLint

DECLARATIONS = frozenset({"declaration", "field_declaration"})


def match(ctx: Context, rule: StructuralLint, path: SyntaxPath, depth: int, value: int) -> LintHit | None:
    node, array = path.at(depth), path.at(depth - 1)
    if path.type_at(depth - 1) != "array_declarator" or array.child_by_field_name("size") != node:
        return None
    inner = array.child_by_field_name("declarator")
    if inner is None or inner.type != "identifier" or path.type_at(depth - 2) == "array_declarator":
        return None  # a multi-dimensional tile, not one slot per warp
    declaration = path.at(path.nearest(DECLARATIONS, depth - 2))
    if declaration is None or b"__shared__" not in ctx.source[declaration.start_byte : array.start_byte]:
        return None
    array_name = ctx.text(inner)
    scope = ctx.scope_text(path, depth)
    assert rule.subscript is not None  # the schema requires subscript
    for m in re.finditer(rf"\b{array_name}\s*\[([^\]]*)\]", scope):
        if re.search(rule.subscript, m.group(1)):
            return LintHit(rule.index, node.start_byte, node.end_byte, ctx.text(node))
    return None


MATCHER = Matcher("shared-array", LITERAL, frozenset({"literals", "subscript"}), run=match)
