"""'coordinate-member': NAMES.x/.y/.z (HIP's built-in coordinates) as an argument of a call matching
CALLS, or as the whole initialiser of an auto variable.

In CUDA, threadIdx, blockIdx, blockDim and gridDim are uint3/dim3 values and
threadIdx.x is an unsigned int. In HIP (amd_hip_runtime.h) each is an empty
__HIP_Coordinates object whose x, y and z are objects that convert to uint32_t.
Arithmetic works, but overload resolution (min, max), template deduction
(std::min, auto) and a uint3 initialised from the whole object (coordinate_struct.py)
do not. The matchers run at the identifier (a scanner candidate) and read only its parents.
"""

from __future__ import annotations

import re

from hipport.lints.context import Context, Site, SyntaxPath
from hipport.lints.hit import LintHit
from hipport.lints.matcher import NAME, Matcher
from hipport.lints.rule import StructuralLint

MEMBERS = frozenset({"x", "y", "z"})
WRAPPERS = frozenset({"parenthesized_expression"})


def shadowed(ctx: Context, path: SyntaxPath, depth: int, name: str) -> bool:
    """The function around the node (or the file) declares its own variable or parameter called name."""
    declaration = re.compile(
        rf"(?<![\w.])(?!(?:return|case|else|throw|sizeof|new|delete)\b)[A-Za-z_][\w:<>]*"
        rf"[\s*&]+{re.escape(name)}\s*[;=(,)\[{{]"
    )
    return declaration.search(ctx.scope_text(path, depth)) is not None


def match(
    ctx: Context, rule: StructuralLint, path: SyntaxPath, depth: int, start: int, end: int, name: str, site: Site | None
) -> LintHit | None:
    """threadIdx.x as an argument of a call matching CALLS, or as the whole initialiser of an auto."""
    node, member = path.at(depth), path.at(depth - 1)
    if (
        member is None
        or path.type_at(depth - 1) != "field_expression"
        or member.child_by_field_name("argument") != node
    ):
        return None
    field = member.child_by_field_name("field")
    if field is None or field.text.decode("ascii", "replace") not in MEMBERS or shadowed(ctx, path, depth, name):
        return None
    at = depth - 2
    while path.type_at(at) in WRAPPERS:
        at -= 1
    consumer_type = path.type_at(at)
    text = " ".join(ctx.source[member.start_byte : member.end_byte].decode("utf-8", "replace").split())
    if consumer_type == "argument_list":
        call = path.at(at - 1)
        if call is None or path.type_at(at - 1) != "call_expression":
            return None
        function = call.child_by_field_name("function")
        callee = _callee(function, ctx.source)
        if callee is None or rule.calls is None or not re.fullmatch(rule.calls, callee):
            return None
        return LintHit(rule.index, member.start_byte, member.end_byte, text, detail=f"(an argument of {callee})")
    if consumer_type == "init_declarator" and path.type_at(at - 1) == "declaration":
        declaration = path.at(at - 1)
        type_node = declaration.child_by_field_name("type")
        if type_node is not None and (type_node.type == "placeholder_type_specifier" or type_node.text == b"auto"):
            return LintHit(
                rule.index, member.start_byte, member.end_byte, text, detail="(the initialiser of an auto variable)"
            )
    return None


def _callee(function, source: bytes) -> str | None:
    """The called name as written (min, std::min, ::max), or None for a call through an expression."""
    if function is None:
        return None
    if function.type == "template_function":
        function = function.child_by_field_name("name")
    if function is None or function.type not in ("identifier", "qualified_identifier"):
        return None
    return "".join(source[function.start_byte : function.end_byte].decode("utf-8", "replace").split())


MATCHER = Matcher("coordinate-member", NAME, frozenset({"names", "calls"}), run=match)
