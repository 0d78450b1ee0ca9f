"""'template-type': one of NAMES used as a class template (texture<float, 1>)."""

from __future__ import annotations

from hipport.lints.context import Context, Site, SyntaxPath
from hipport.lints.hit import LintHit
from hipport.lints.matcher import NAME, Matcher
from hipport.lints.rule import StructuralLint


def match(
    ctx: Context, rule: StructuralLint, path: SyntaxPath, depth: int, start: int, end: int, name: str, site: Site | None
) -> LintHit | None:
    node_type = path.type_at(depth)
    if (
        node_type == "type_identifier"
        and path.type_at(depth - 1) == "template_type"
        and path.at(depth - 1).child_by_field_name("name") == path.at(depth)
    ):
        return LintHit(rule.index, start, end, name)
    if node_type in ("ERROR", "preproc_arg") and ctx.source[end : end + 8].lstrip().startswith(b"<"):
        return LintHit(rule.index, start, end, name)
    return None


MATCHER = Matcher("template-type", NAME, frozenset({"names"}), run=match)
