"""Lint matchers for HIP's built-in coordinates, which are objects, not values.

In CUDA, threadIdx, blockIdx, blockDim and gridDim are uint3/dim3 values and
threadIdx.x is an unsigned int. In HIP (amd_hip_runtime.h) each is an empty
__HIP_Coordinates object whose x, y and z are objects that convert to uint32_t.
Arithmetic works, but overload resolution (min, max), template deduction
(std::min, auto) and a uint3 initialised from the whole object do not. The
matchers run at the identifier (a scanner candidate) and read only its parents.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from hipport.parse.sites import LintHit, NameSite
from hipport.parse.treesitter.tree_path import NodePath
from hipport.ruleset.lintrules import StructuralLint

MEMBERS = frozenset({"x", "y", "z"})
_WRAPPERS = frozenset({"parenthesized_expression"})


class CoordinateMatchers:
    """Mixed into LintMatcher: the 'coordinate-member' and 'coordinate-struct' match kinds."""

    source: bytes

    def _scope_text(self, path: NodePath, depth: int) -> str:  # LintMatcher's
        raise NotImplementedError

    def _shadowed(self, path: NodePath, depth: int, name: str) -> bool:
        """The function around the node (or the file) declares its own variable or parameter called name."""
        declaration = re.compile(
            rf"(?<![\w.])(?!(?:return|case|else|throw|sizeof|new|delete)\b)[A-Za-z_][\w:<>]*"
            rf"[\s*&]+{re.escape(name)}\s*[;=(,)\[{{]"
        )
        return declaration.search(self._scope_text(path, depth)) is not None

    def _coordinate_member(
        self, rule: StructuralLint, path: NodePath, depth: int, start, end, name, site: NameSite | None
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
        if field is None or field.text.decode("ascii", "replace") not in MEMBERS or self._shadowed(path, depth, name):
            return None
        at = depth - 2
        while path.type_at(at) in _WRAPPERS:
            at -= 1
        consumer_type = path.type_at(at)
        text = " ".join(self.source[member.start_byte : member.end_byte].decode("utf-8", "replace").split())
        if consumer_type == "argument_list":
            call = path.at(at - 1)
            if call is None or path.type_at(at - 1) != "call_expression":
                return None
            function = call.child_by_field_name("function")
            callee = _callee(function, self.source)
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

    def _coordinate_struct(
        self, rule: StructuralLint, path: NodePath, depth: int, start, end, name, site: NameSite | None
    ) -> LintHit | None:
        """The whole threadIdx initialising a variable of one of TYPES.

        Passed to a function it is left alone: it converts to the dim3 most such functions take.
        """
        if path.type_at(depth) != "identifier" or self._shadowed(path, depth, name):
            return None
        node, at = path.at(depth), depth - 1
        while path.type_at(at) in _WRAPPERS:
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


def _callee(function, source: bytes) -> str | None:
    """The called name as written (min, std::min, ::max), or None for a call through an expression."""
    if function is None:
        return None
    if function.type == "template_function":
        function = function.child_by_field_name("name")
    if function is None or function.type not in ("identifier", "qualified_identifier"):
        return None
    return "".join(source[function.start_byte : function.end_byte].decode("utf-8", "replace").split())


_ARITHMETIC = rb"(?:<<|>>|(?<![&])&(?![&=])|(?<![|])\|(?![|=])|\^(?!=)|%(?!=)|\*(?!=)|/(?![=/*])|\+(?![+=])|-(?![-=>]))"
# Before an operand, * and & may be a declarator or a unary operator (T *p, (void *)&x), and after
# a keyword or a cast any of + - * & is unary: the right-operand form takes the others, after a name
# or a subscript.
_ARITHMETIC_BEFORE = rb"(?:<<|>>|(?<![|])\|(?![|=])|\^(?!=)|%(?!=)|/(?![=/*])|\+(?![+=])|-(?![-=>]))"
_KEYWORDS = frozenset({b"return", b"case", b"sizeof", b"throw", b"else", b"do", b"co_return", b"co_yield"})


class HandleMatchers:
    """Mixed into LintMatcher: the 'handle-arithmetic' match kind.

    CUDA's texture and surface objects and CUdeviceptr are unsigned long long
    handles; HIP's hipTextureObject_t and hipSurfaceObject_t are pointers to
    incomplete structs and hipDeviceptr_t is void*, so integer arithmetic on them
    (packing a handle into two 32-bit halves, a device address plus an offset) does
    not compile, while copies, comparisons with 0 and passing them on still do.
    """

    source: bytes
    not_code: Callable[[int], bool] | None

    def _handle_arithmetic(
        self, rule: StructuralLint, path: NodePath, depth: int, start, end, name, site: NameSite | None
    ) -> LintHit | None:
        at = depth - 1
        if path.type_at(at) == "type_descriptor" and path.type_at(at - 1) == "cast_expression":
            at -= 1
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
                " ".join(self.source[outer.start_byte : outer.end_byte].decode("utf-8", "replace").split()),
                fixable=False,
                detail=f"(a {name} cast to, then used as an integer)",
            )
        declaration = path.at(at)
        if path.type_at(at) not in ("declaration", "parameter_declaration") or declaration.child_by_field_name(
            "type"
        ) != path.at(depth):
            return None
        scope_at = path.nearest(frozenset({"function_definition", "lambda_expression"}), depth)
        scope = path.at(scope_at) if scope_at >= 0 else None
        low, high = (scope.start_byte, scope.end_byte) if scope is not None else (0, len(self.source))
        for declarator in declaration.children_by_field_name("declarator"):
            found = _declared_identifier(declarator)
            if found is None:
                continue
            variable, pointer = found
            spelled = re.escape(variable.text)
            # a handle, or through a pointer to handles: *p, (*p), p[i]
            operand = (
                rb"(?:\*\s*" + spelled + rb"|\(\s*\*\s*" + spelled + rb"\s*\)|" + spelled + rb"\s*\[[^\]]*\])"
                if pointer
                else spelled
            )
            use = re.compile(
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
            for m in use.finditer(self.source, max(low, declaration.end_byte), high):
                if (self.not_code is not None and self.not_code(m.start())) or m.group(1) in _KEYWORDS:
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
