"""'call-argument': argument ARGUMENT of a call to NAMES is an integer literal (or a file-local #define
of one) whose value is in LITERALS. A literal written at the call can take the rule's fix; one that
comes through a macro is reported naming it."""

from __future__ import annotations

from hipport.lints.context import IDENT, Context, Site, SyntaxPath, argument_span
from hipport.lints.hit import LintHit
from hipport.lints.matcher import NAME, Matcher
from hipport.lints.rule import StructuralLint, int_value


def match(
    ctx: Context, rule: StructuralLint, path: SyntaxPath, depth: int, start: int, end: int, name: str, site: Site | None
) -> LintHit | None:
    span = argument_span(rule, site)
    if span is None or site is None:
        return None
    a, b = span
    text = ctx.source[a:b].decode("utf-8", "replace").strip()
    value, detail, direct = int_value(text) if text[:1].isdigit() else None, "", True
    if value is None and IDENT.fullmatch(text):
        value, spelled = ctx.macro_value(text)
        detail, direct = f"({text} is defined as {spelled})", False
    if value not in rule.literals:
        return None
    return LintHit(rule.index, a, b, text, call=site.start, argument=rule.argument, fixable=direct, detail=detail)


MATCHER = Matcher(
    "call-argument", NAME, frozenset({"names", "argument", "literals"}), run=match, own_name_silences=True
)
