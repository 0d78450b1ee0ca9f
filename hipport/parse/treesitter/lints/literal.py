"""Lint matchers triggered by an integer literal (a warp size of 32, a mask of 31): the operand it
meets, the loop it bounds, the __shared__ array it sizes, or the #define body it sits in."""

from __future__ import annotations

import re

from hipport.parse.treesitter.lints.context import ContextReader
from hipport.parse.sites import LintHit
from hipport.parse.treesitter.tree_path import NodePath
from hipport.ruleset.lintrules import StructuralLint

COMMUTATIVE = {"&", "|", "^", "*", "+"}
DECLARATIONS = frozenset({"declaration", "field_declaration"})


class LiteralMatchers(ContextReader):
    """Mixed into LintMatcher: the 'binary-operand', 'loop-bound' and 'shared-array' match kinds."""

    def _binary_operand(self, rule: StructuralLint, path: NodePath, depth: int, value: int) -> LintHit | None:
        node, parent = path.at(depth), path.at(depth - 1)
        if path.type_at(depth - 1) != "binary_expression":
            return None
        operator = parent.child_by_field_name("operator")
        op = self._text(operator) if operator is not None else ""
        if (op, value) not in rule.operators:
            return None
        left, right = parent.child_by_field_name("left"), parent.child_by_field_name("right")
        if right == node:
            other = left
        elif left == node and op in COMMUTATIVE:
            other = right
        else:
            return None
        assert rule.operand is not None  # validate_lint requires operand for binary-operand
        if other is None or not self._mentions(self._text(other), rule.operand, path, depth):
            return None
        return LintHit(rule.index, parent.start_byte, parent.end_byte, self._text(parent))

    def _loop_bound(self, rule: StructuralLint, path: NodePath, depth: int, value: int) -> LintHit | None:
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
        if body is None or not re.search(rf"\b(?:{rule.calls})\s*\(", self._text(body)):
            return None
        return LintHit(rule.index, node.start_byte, node.end_byte, self._text(node))

    def _shared_array(self, rule: StructuralLint, path: NodePath, depth: int, value: int) -> LintHit | None:
        node, array = path.at(depth), path.at(depth - 1)
        if path.type_at(depth - 1) != "array_declarator" or array.child_by_field_name("size") != node:
            return None
        inner = array.child_by_field_name("declarator")
        if inner is None or inner.type != "identifier" or path.type_at(depth - 2) == "array_declarator":
            return None  # a multi-dimensional tile, not one slot per warp
        declaration = path.at(path.nearest(DECLARATIONS, depth - 2))
        if declaration is None or b"__shared__" not in self.source[declaration.start_byte : array.start_byte]:
            return None
        array_name = self._text(inner)
        scope = self._scope_text(path, depth)
        assert rule.subscript is not None  # validate_lint requires subscript for shared-array
        for m in re.finditer(rf"\b{array_name}\s*\[([^\]]*)\]", scope):
            if re.search(rule.subscript, m.group(1)):
                return LintHit(rule.index, node.start_byte, node.end_byte, self._text(node))
        return None

    def _lexical_binary(self, rule: StructuralLint, body, start: int, end: int, value: int) -> LintHit | None:
        """`(threadIdx.x & 31)` inside a #define body, judged from the neighbouring tokens."""
        if rule.match != "binary-operand":
            return None
        text = self.source[body.start_byte : start]
        left_text = text.rstrip()
        for op, wanted in rule.operators:
            if wanted != value or not left_text.endswith(op.encode()):
                continue
            before = left_text[: -len(op)]
            if before.endswith((b"&", b"|", b">", b"<", b"=", b"!")) and op not in (">>", "<<"):
                continue  # &&, ||, comparisons
            operand_start = _operand_start(before)
            operand = before[operand_start:].decode("utf-8", "replace")
            if rule.operand is not None and self._mentions(operand, rule.operand, None):
                hit_start = body.start_byte + operand_start
                return LintHit(
                    rule.index, hit_start, end, " ".join(self.source[hit_start:end].decode("utf-8", "replace").split())
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
