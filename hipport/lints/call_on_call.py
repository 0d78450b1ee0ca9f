"""'call-on-call': argument ARGUMENT of a call to NAMES is a call matching CALLS, or a variable assigned
from one in the same function.

The rule's fix is made for the call itself, and for a variable declared from it with `auto`
(`auto m = __ballot_sync(...)`): such a variable has the call's type on each platform. A variable
with a type of its own, or only assigned from the call, is reported without a fix: a uint32_t has
lost the upper lanes before the call sees them."""

from __future__ import annotations

import re

from hipport.lints.context import IDENT, Context, Site, SyntaxPath, argument_text
from hipport.lints.hit import LintHit
from hipport.lints.matcher import NAME, Matcher
from hipport.lints.rule import StructuralLint


def match(
    ctx: Context, rule: StructuralLint, path: SyntaxPath, depth: int, start: int, end: int, name: str, site: Site | None
) -> LintHit | None:
    if (text := argument_text(ctx, rule, site)) is None:
        return None
    if re.match(rf"[\s(]*(?:{rule.calls})\s*\(", text):
        return LintHit(rule.index, start, end, name)
    variable = text.strip()
    if IDENT.fullmatch(variable):
        scope = ctx.scope_text(path, depth)
        if re.search(rf"\b{variable}\s*=(?!=)\s*[\s(]*(?:{rule.calls})\s*\(", scope):
            declared = re.search(rf"\bauto\s+{variable}\s*=\s*[\s(]*(?:{rule.calls})\s*\(", scope)
            detail = f"('{variable}' holds a ballot)"
            return LintHit(rule.index, start, end, name, fixable=declared is not None, detail=detail)
    return None


MATCHER = Matcher("call-on-call", NAME, frozenset({"names", "argument", "calls"}), run=match, own_name_silences=True)
