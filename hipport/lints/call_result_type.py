"""'call-result-type': the result of a call to NAMES initialises, or is assigned to, a variable of one
of TYPES."""

from __future__ import annotations

from hipport.lints.context import Context, Site, SyntaxPath
from hipport.lints.hit import LintHit
from hipport.lints.matcher import NAME, Matcher
from hipport.lints.rule import StructuralLint

# Nodes that may stand between a call and the declaration or assignment it feeds.
CALL_WRAPPERS = {"parenthesized_expression", "cast_expression"}


def match(
    ctx: Context, rule: StructuralLint, path: SyntaxPath, depth: int, start: int, end: int, name: str, site: Site | None
) -> LintHit | None:
    node, call = path.at(depth), path.at(depth - 1)
    if call is None or path.type_at(depth - 1) != "call_expression" or call.child_by_field_name("function") != node:
        return None
    expression_at, consumer_at = depth - 1, depth - 2
    while path.type_at(consumer_at) in CALL_WRAPPERS:
        expression_at, consumer_at = consumer_at, consumer_at - 1
    if consumer_at < 0:
        return None
    expression, consumer = path.at(expression_at), path.at(consumer_at)
    consumer_type = path.type_at(consumer_at)
    if consumer_type == "init_declarator" and consumer.child_by_field_name("value") == expression:
        declaration = path.at(consumer_at - 1)
        type_node = declaration.child_by_field_name("type") if declaration is not None else None
        if type_node is None or ctx.text(type_node) not in rule.types:
            return None
        return LintHit(
            rule.index,
            type_node.start_byte,
            type_node.end_byte,
            ctx.text(type_node),
            fixable=ctx.declarator_count(declaration) == 1,
        )
    if consumer_type == "assignment_expression" and consumer.child_by_field_name("right") == expression:
        left = consumer.child_by_field_name("left")
        operator = consumer.child_by_field_name("operator")
        if left is None or left.type != "identifier" or operator is None or ctx.text(operator) != "=":
            return None
        declared = ctx.declared_type(ctx.text(left), rule.types, ctx.scope_text(path, depth))
        if declared is None:
            return None
        return LintHit(
            rule.index,
            left.start_byte,
            left.end_byte,
            declared,
            fixable=False,
            detail=f"('{ctx.text(left)}' is declared '{declared}')",
        )
    return None


MATCHER = Matcher("call-result-type", NAME, frozenset({"names", "types"}), run=match, own_name_silences=True)
