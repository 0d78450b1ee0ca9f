"""The `template` keyword before a member template of a dependent scope, which nvcc lets code omit.

`vec_cast<T, S>::cast<N>(dst, src)` inside a template, with T or S a template parameter, names a
member template of a dependent type: C++ asks for `vec_cast<T, S>::template cast<N>(...)`. nvcc's
front end (EDG) accepts the call without the keyword; clang reads `cast < N > (...)` as two
comparisons and stops ("reference to overloaded function could not be resolved"). FlashInfer's
vec_dtypes.cuh, copied into many model kernels, is written that way. The keyword is valid C++ for
both compilers, so the port inserts it where the call's scope names a parameter of an enclosing
template.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from hipport.diagnostics import Edit

# `::name<`, the only shape that can need the keyword; most files have none and skip the tree walk
_CANDIDATE = re.compile(rb"::[ \t]*([A-Za-z_]\w*)[ \t]*<")
_PARAMETER_KINDS = frozenset(
    {
        "type_parameter_declaration",
        "optional_type_parameter_declaration",
        "variadic_type_parameter_declaration",
        "parameter_declaration",
        "optional_parameter_declaration",
        "variadic_parameter_declaration",
        "template_template_parameter_declaration",
    }
)
_NAME_KINDS = frozenset({"type_identifier", "identifier"})


def template_keyword_edits(source: bytes, syntax_root: Callable[[], Any]) -> list[Edit]:
    """Insertions of `template ` before each member-template call of a dependent scope; the syntax
    tree is built only for a file with a candidate."""
    edits: list[Edit] = []
    root = None
    for match in _CANDIDATE.finditer(source):  # `::template f<` is no candidate: `template` is not followed by <
        root = root if root is not None else syntax_root()
        node = root.descendant_for_byte_range(match.start(1), match.end(1))
        function = node.parent if node is not None else None
        if function is None or function.type != "template_function" or not _called(function):
            continue
        if _dependent_scope(source, function):
            edits.append(Edit(function.start_byte, function.start_byte, b"template "))
    return edits


def _called(function) -> bool:
    """The template-id is the callee of a call (`X<T>::f<N>(...)`), not a type or a comparison."""
    node = function.parent
    while node is not None and node.type == "qualified_identifier":
        if node.parent is not None and node.parent.type == "call_expression":
            return node.parent.child_by_field_name("function") == node
        node = node.parent
    return False


def _dependent_scope(source: bytes, function) -> bool:
    """A scope the template-id is qualified by names a parameter of an enclosing template."""
    scopes = []
    node = function.parent
    while node is not None and node.type == "qualified_identifier":
        scope = node.child_by_field_name("scope")
        if scope is not None:
            scopes.append(scope)
        node = node.parent
    if not scopes:
        return False
    parameters = _template_parameters(source, function)
    if not parameters:
        return False
    return any(_names(source, scope) & parameters for scope in scopes)


def _names(source: bytes, node) -> set[bytes]:
    found = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in _NAME_KINDS or current.type == "namespace_identifier":
            found.add(source[current.start_byte : current.end_byte])
        stack.extend(current.children)
    return found


def _template_parameters(source: bytes, node) -> set[bytes]:
    names: set[bytes] = set()
    while node is not None:
        if node.type == "template_declaration":
            parameters = node.child_by_field_name("parameters")
            for parameter in parameters.named_children if parameters is not None else ():
                if parameter.type in _PARAMETER_KINDS:
                    name = _parameter_name(parameter)
                    if name is not None:
                        names.add(source[name.start_byte : name.end_byte])
        node = node.parent
    return names


def _parameter_name(parameter):
    """The name a template parameter declares (not its type or default)."""
    declarator = parameter.child_by_field_name("declarator") or parameter.child_by_field_name("name")
    while declarator is not None and declarator.type not in _NAME_KINDS:
        declarator = declarator.child_by_field_name("declarator") or next(
            (c for c in declarator.named_children if c.type in _NAME_KINDS), None
        )
    if declarator is not None:
        return declarator
    return next((c for c in parameter.named_children if c.type in _NAME_KINDS), None)
