"""'binary-operand': `x OP L` or `L OP x` with (OP, L) in OPERATORS and x mentioning an identifier
matching OPERAND, directly or through one assignment in the same function (`threadIdx.x % 32`,
`lane & 31`). In a #define body, which the tree keeps as text, it is judged from the neighbouring
tokens (in_define)."""

from __future__ import annotations

from typing import Any

from hipport.lints.context import Context, SyntaxPath
from hipport.lints.hit import LintHit
from hipport.lints.matcher import LITERAL, Matcher
from hipport.lints.rule import StructuralLint

COMMUTATIVE = {"&", "|", "^", "*", "+"}


def match(ctx: Context, rule: StructuralLint, path: SyntaxPath, depth: int, value: int) -> LintHit | None:
    node, parent = path.at(depth), path.at(depth - 1)
    if path.type_at(depth - 1) != "binary_expression":
        return None
    operator = parent.child_by_field_name("operator")
    op = ctx.text(operator) if operator is not None else ""
    if (op, value) not in rule.operators:
        return None
    left, right = parent.child_by_field_name("left"), parent.child_by_field_name("right")
    if right == node:
        other = left
    elif left == node and op in COMMUTATIVE:
        other = right
    else:
        return None
    assert rule.operand is not None  # the schema requires operand
    if other is None or not ctx.mentions(ctx.text(other), rule.operand, path, depth):
        return None
    return LintHit(rule.index, parent.start_byte, parent.end_byte, ctx.text(parent))


def in_define(ctx: Context, rule: StructuralLint, body: Any, start: int, end: int, value: int) -> LintHit | None:
    """`(threadIdx.x & 31)` inside a #define body, judged from the neighbouring tokens."""
    text = ctx.source[body.start_byte : start]
    left_text = text.rstrip()
    for op, wanted in rule.operators:
        if wanted != value or not left_text.endswith(op.encode()):
            continue
        before = left_text[: -len(op)]
        if before.endswith((b"&", b"|", b">", b"<", b"=", b"!")) and op not in (">>", "<<"):
            continue  # &&, ||, comparisons
        operand_start = _operand_start(before)
        operand = before[operand_start:].decode("utf-8", "replace")
        if rule.operand is not None and ctx.mentions(operand, rule.operand, None):
            hit_start = body.start_byte + operand_start
            return LintHit(
                rule.index, hit_start, end, " ".join(ctx.source[hit_start:end].decode("utf-8", "replace").split())
            )
    return None


def _operand_start(text: bytes) -> int:
    """Where the operand that ends text starts: a name chain such as threadIdx.x, or a bracketed group."""
    i = len(text.rstrip())
    while i > 0:
        c = text[i - 1 : i]
        if c in (b")", b"]"):
            depth, j = 0, i
            while j > 0:
                ch = text[j - 1 : j]
                depth += ch in (b")", b"]")
                depth -= ch in (b"(", b"[")
                j -= 1
                if depth == 0:
                    break
            i = j
        elif c.isalnum() or c in (b"_", b"."):
            i -= 1
        elif text[max(0, i - 2) : i] == b"->":
            i -= 2
        else:
            break
    return i


MATCHER = Matcher("binary-operand", LITERAL, frozenset({"operators", "operand"}), run=match, in_define=in_define)
