"""'member': member NAMES of a variable this file declares with one of RECEIVERS as its type."""

from __future__ import annotations

from hipport.lints.context import Context, Site, SyntaxPath
from hipport.lints.hit import LintHit
from hipport.lints.matcher import NAME, Matcher
from hipport.lints.rule import StructuralLint

_THROUGH = ("subscript_expression", "parenthesized_expression", "pointer_expression")


def match(
    ctx: Context, rule: StructuralLint, path: SyntaxPath, depth: int, start: int, end: int, name: str, site: Site | None
) -> LintHit | None:
    if path.type_at(depth) != "field_identifier" or path.type_at(depth - 1) != "field_expression":
        return None
    receiver = path.at(depth - 1).child_by_field_name("argument")
    while receiver is not None and receiver.type in _THROUGH:
        receiver = receiver.child_by_field_name("argument") or (
            receiver.named_children[0] if receiver.named_children else None
        )
    if receiver is None or receiver.type != "identifier":
        return None
    if not ctx.declared_with(ctx.text(receiver), rule.receivers):
        return None
    return LintHit(rule.index, start, end, name)


MATCHER = Matcher("member", NAME, frozenset({"names", "receivers"}), frozenset({"hip"}), run=match)
