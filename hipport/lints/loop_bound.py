"""'loop-bound': a for loop whose POSITION (initializer or condition) holds a literal in LITERALS and
whose body calls a function matching CALLS (a loop over a warp's 32 lanes)."""

from __future__ import annotations

import re

from hipport.lints.context import Context, SyntaxPath
from hipport.lints.hit import LintHit
from hipport.lints.matcher import LITERAL, Matcher
from hipport.lints.rule import StructuralLint


def match(ctx: Context, rule: StructuralLint, path: SyntaxPath, depth: int, value: int) -> LintHit | None:
    loop = None
    node = path.at(depth)
    if rule.position == "condition":
        if (
            path.type_at(depth - 1) == "binary_expression"
            and path.type_at(depth - 2) == "for_statement"
            and path.at(depth - 2).child_by_field_name("condition") == path.at(depth - 1)
        ):
            loop = path.at(depth - 2)
    else:
        current_type = path.type_at(depth - 1)
        if current_type in ("init_declarator", "assignment_expression"):
            owner_at = depth - 2 if current_type == "init_declarator" else depth - 1
            if (
                owner_at >= 0
                and path.type_at(owner_at - 1) == "for_statement"
                and path.at(owner_at - 1).child_by_field_name("initializer") == path.at(owner_at)
            ):
                loop = path.at(owner_at - 1)
    if loop is None:
        return None
    body = loop.child_by_field_name("body")
    if body is None or not re.search(rf"\b(?:{rule.calls})\s*\(", ctx.text(body)):
        return None
    return LintHit(rule.index, node.start_byte, node.end_byte, ctx.text(node))


MATCHER = Matcher("loop-bound", LITERAL, frozenset({"literals", "position", "calls"}), run=match)
