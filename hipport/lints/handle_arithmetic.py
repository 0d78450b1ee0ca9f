"""'handle-arithmetic': a variable or parameter of one of the handle types NAMES (or a cast to one)
used as an operand of a binary operator matching TEXT.

CUDA's texture and surface objects and CUdeviceptr are unsigned long long
handles; HIP's hipTextureObject_t and hipSurfaceObject_t are pointers to
incomplete structs and hipDeviceptr_t is void*, so integer arithmetic on them
(packing a handle into two 32-bit halves, a device address plus an offset) does
not compile, while copies, comparisons with 0 and passing them on still do.
"""

from __future__ import annotations

import re

from hipport.lints.context import FUNCTION_NODES, Context, Site, SyntaxPath
from hipport.lints.hit import LintHit
from hipport.lints.matcher import NAME, Matcher
from hipport.lints.rule import StructuralLint

_ARITHMETIC = rb"(?:<<|>>|(?<![&])&(?![&=])|(?<![|])\|(?![|=])|\^(?!=)|%(?!=)|\*(?!=)|/(?![=/*])|\+(?![+=])|-(?![-=>]))"
# Before an operand, * and & may be a declarator or a unary operator (T *p, (void *)&x), and after
# a keyword or a cast any of + - * & is unary: the right-operand form takes the others, after a name
# or a subscript.
_ARITHMETIC_BEFORE = rb"(?:<<|>>|(?<![|])\|(?![|=])|\^(?!=)|%(?!=)|/(?![=/*])|\+(?![+=])|-(?![-=>]))"
_KEYWORDS = frozenset({b"return", b"case", b"sizeof", b"throw", b"else", b"do", b"co_return", b"co_yield"})


def match(
    ctx: Context, rule: StructuralLint, path: SyntaxPath, depth: int, start: int, end: int, name: str, site: Site | None
) -> LintHit | None:
    at = depth - 1
    if path.type_at(at) == "type_descriptor" and path.type_at(at - 1) == "cast_expression":
        return _cast(ctx, rule, path, at - 1, name)
    declaration = path.at(at)
    if path.type_at(at) not in ("declaration", "parameter_declaration") or declaration.child_by_field_name(
        "type"
    ) != path.at(depth):
        return None
    scope_at = path.nearest(FUNCTION_NODES, depth)
    scope = path.at(scope_at) if scope_at >= 0 else None
    low, high = (scope.start_byte, scope.end_byte) if scope is not None else (0, len(ctx.source))
    for declarator in declaration.children_by_field_name("declarator"):
        found = _declared_identifier(declarator)
        if found is None:
            continue
        variable, pointer = found
        for m in _use(variable.text, pointer).finditer(ctx.source, max(low, declaration.end_byte), high):
            if (ctx.not_code is not None and ctx.not_code(m.start())) or m.group(1) in _KEYWORDS:
                continue
            at = m.start() + m.group().find(variable.text)
            spelled_use = " ".join(m.group().decode("utf-8", "replace").split())
            return LintHit(
                rule.index,
                at,
                at + len(variable.text),
                variable.text.decode("utf-8", "replace"),
                fixable=False,
                detail=f"(it is a {name}, used in '{spelled_use}')",
            )
    return None


def _cast(ctx: Context, rule: StructuralLint, path: SyntaxPath, at: int, name: str) -> LintHit | None:
    """A cast to the handle type (at: the cast) that is an operand of a binary operator matching TEXT."""
    while path.type_at(at - 1) == "parenthesized_expression":
        at -= 1
    outer = path.at(at - 1)
    if outer is None or path.type_at(at - 1) != "binary_expression":
        return None
    operator = outer.child_by_field_name("operator")
    if operator is None or rule.text is None or not re.fullmatch(rule.text, operator.type):
        return None
    return LintHit(
        rule.index,
        outer.start_byte,
        outer.end_byte,
        " ".join(ctx.source[outer.start_byte : outer.end_byte].decode("utf-8", "replace").split()),
        fixable=False,
        detail=f"(a {name} cast to, then used as an integer)",
    )


def _use(variable: bytes, pointer: bool) -> re.Pattern[bytes]:
    """An arithmetic use of the variable: a handle, or through a pointer to handles: *p, (*p), p[i]."""
    spelled = re.escape(variable)
    operand = (
        rb"(?:\*\s*" + spelled + rb"|\(\s*\*\s*" + spelled + rb"\s*\)|" + spelled + rb"\s*\[[^\]]*\])"
        if pointer
        else spelled
    )
    return re.compile(
        rb"(?<![\w.>])"
        + operand
        + rb"\s*"
        + _ARITHMETIC
        + rb"|(\w+|\])\s*"
        + _ARITHMETIC_BEFORE
        + rb"\s*"
        + operand
        + rb"(?![\w(\[])"
    )


def _declared_identifier(declarator):
    """(the declared name, whether it points to or is an array of handles), or None when that is deeper."""
    indirections = 0
    while declarator is not None and declarator.type != "identifier":
        if declarator.type in ("pointer_declarator", "array_declarator"):
            indirections += 1
        elif declarator.type not in ("reference_declarator", "init_declarator"):
            return None
        declarator = declarator.child_by_field_name("declarator") or next(
            (c for c in declarator.named_children if c.type.endswith(("declarator", "identifier"))), None
        )
    if declarator is None or indirections > 1:
        return None
    return declarator, indirections == 1


MATCHER = Matcher("handle-arithmetic", NAME, frozenset({"names", "text"}), run=match)
