"""'coordinate-struct': the whole NAMES object (threadIdx, HIP's coordinate object; coordinate_member.py
says why) initialising a variable of one of TYPES. Passed to a function it is left alone: it converts
to the dim3 most such functions take."""

from __future__ import annotations

from hipport.lints.context import Context, Site, SyntaxPath
from hipport.lints.coordinate_member import WRAPPERS, shadowed
from hipport.lints.hit import LintHit
from hipport.lints.matcher import NAME, Matcher
from hipport.lints.rule import StructuralLint


def match(
    ctx: Context, rule: StructuralLint, path: SyntaxPath, depth: int, start: int, end: int, name: str, site: Site | None
) -> LintHit | None:
    if path.type_at(depth) != "identifier" or shadowed(ctx, path, depth, name):
        return None
    node, at = path.at(depth), depth - 1
    while path.type_at(at) in WRAPPERS:
        at -= 1
    if path.type_at(at) == "init_declarator" and path.type_at(at - 1) == "declaration":
        if path.at(at).child_by_field_name("value") is None:
            return None
        type_node = path.at(at - 1).child_by_field_name("type")
        if type_node is None or " ".join(type_node.text.decode("utf-8", "replace").split()) not in rule.types:
            return None
        return LintHit(
            rule.index,
            node.start_byte,
            node.end_byte,
            name,
            detail=f"(it initialises a {type_node.text.decode('utf-8', 'replace')})",
        )
    return None


MATCHER = Matcher("coordinate-struct", NAME, frozenset({"names", "types"}), run=match)
