"""The function definitions and declarations of a file, as hipport/engine/collapse/__init__.py compares them.

Each has its name with its scopes, its parameter types as written and once the type renames are
applied, its ported return type, its ported body tokens (parameter names made placeholders) and the
#if conditions around it.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Any

CONDITIONALS = frozenset({"preproc_if", "preproc_ifdef", "preproc_elif", "preproc_elifdef"})
ALTERNATIVES = frozenset({"preproc_else", "preproc_elif", "preproc_elifdef"})
SCOPES = frozenset({"namespace_definition", "class_specifier", "struct_specifier", "union_specifier"})
DECLARATORS = frozenset(
    {
        "pointer_declarator",
        "reference_declarator",
        "function_declarator",
        "parenthesized_declarator",
        "attributed_declarator",
    }
)
_TOKEN = re.compile(rb"[A-Za-z_]\w*|\d[\w.']*|\S")
COMMENT = re.compile(rb"//[^\n]*|/\*.*?\*/", re.S)


@dataclass
class Function:
    node: Any  # the tree-sitter node: a template_declaration, or the definition itself
    name: str
    written: tuple[str, ...]  # parameter types as written
    ported: tuple[str, ...]  # and after the type renames
    returns: str  # ported return type and qualifiers
    body: bytes | None  # ported body tokens; None for a declaration
    conditions: tuple  # ((conditional node id, in its alternative), ...) from the outside in
    tests: tuple[str, ...]  # the same conditions as text, for messages
    line_start: int
    line: int


def functions(source: bytes, root, renames: dict[bytes, bytes]) -> list[Function]:
    """The functions of the file whose syntax tree root is (ParsedFile.syntax)."""
    found: list[Function] = []
    line_starts = [0] + [m.end() for m in re.finditer(rb"\n", source)]
    _walk(root, source, renames, (), (), found, line_starts)
    return found


def _walk(node, source: bytes, renames, scope: tuple, conditions: tuple, found: list, line_starts) -> None:
    for child in node.named_children:
        kind = child.type
        if kind in ("function_definition", "declaration", "field_declaration", "template_declaration"):
            function = _function(child, source, renames, scope, conditions, line_starts)
            if function is not None:
                found.append(function)
                continue
        if kind in SCOPES or kind == "linkage_specification":
            name = child.child_by_field_name("name")
            inner = (
                scope + ((name.text.decode("utf-8", "replace") if name is not None else "{}"),)
                if kind in SCOPES
                else scope
            )
            _walk(child, source, renames, inner, conditions, found, line_starts)
        elif kind in ALTERNATIVES:
            # the alternative of the conditional we are in: same node id, other branch
            parent = conditions[-1] if conditions else None
            inner = conditions[:-1] + ((parent[0], True, f"not ({parent[2]})"),) if parent else conditions
            if kind in CONDITIONALS:
                inner = inner + ((child.id, False, _test(child, source)),)
            _walk(child, source, renames, scope, inner, found, line_starts)
        elif kind in CONDITIONALS:
            _walk(
                child,
                source,
                renames,
                scope,
                conditions + ((child.id, False, _test(child, source)),),
                found,
                line_starts,
            )
        elif kind in ("declaration_list", "field_declaration_list", "translation_unit"):
            _walk(child, source, renames, scope, conditions, found, line_starts)


def _test(node, source: bytes) -> str:
    condition = node.child_by_field_name("condition") or node.child_by_field_name("name")
    keyword = (
        source[node.start_byte : node.start_byte + 8].split()[0].decode("ascii", "replace")
        if node.end_byte > node.start_byte
        else "#if"
    )
    text = source[condition.start_byte : condition.end_byte].decode("utf-8", "replace") if condition else ""
    return f"{keyword} {' '.join(text.split())}"


def _function(node, source: bytes, renames, scope, conditions, line_starts) -> Function | None:
    outer = node
    template = b""
    if node.type == "template_declaration":
        parameters = node.child_by_field_name("parameters")
        template = source[parameters.start_byte : parameters.end_byte] if parameters is not None else b""
        inner = [c for c in node.named_children if c.type in ("function_definition", "declaration")]
        if not inner:
            return None
        node = inner[0]
    declarator = node.child_by_field_name("declarator")
    wrappers = b""
    while declarator is not None and declarator.type in DECLARATORS and declarator.type != "function_declarator":
        wrappers += source[declarator.start_byte : declarator.start_byte + 1]
        declarator = declarator.child_by_field_name("declarator") or (
            declarator.named_children[-1] if declarator.named_children else None
        )
    if declarator is None or declarator.type != "function_declarator":
        return None
    name_node = declarator.child_by_field_name("declarator")
    parameters = declarator.child_by_field_name("parameters")
    if name_node is None or parameters is None:
        return None
    written, ported = [], []
    placeholders: dict[bytes, bytes] = {}  # parameter names, so that bodies compare whatever they are called
    for parameter in parameters.named_children:
        if parameter.type not in ("parameter_declaration", "optional_parameter_declaration"):
            if parameter.type == "variadic_parameter_declaration" or parameter.type == "...":
                written.append("...")
                ported.append("...")
            continue
        tokens, parameter_name = _parameter_tokens(parameter, source)
        if parameter_name:
            placeholders[parameter_name] = b"$%d" % len(placeholders)
        written.append(" ".join(t.decode("utf-8", "replace") for t in tokens))
        ported.append(" ".join(renames.get(t, t).decode("utf-8", "replace") for t in tokens))
    type_node = node.child_by_field_name("type")
    head = source[node.start_byte : type_node.end_byte] if type_node is not None else b""
    after = source[parameters.end_byte : declarator.end_byte]  # const, noexcept, -> trailing type
    returns = _ported_tokens(template + b" " + head + wrappers + b" " + after, renames)
    body_node = node.child_by_field_name("body") if node.type == "function_definition" else None
    body = (
        _ported_tokens(source[body_node.start_byte : body_node.end_byte], {**renames, **placeholders})
        if body_node
        else None
    )
    line = bisect.bisect_right(line_starts, outer.start_byte)
    function = Function(
        node=outer,
        name="::".join(scope + (" ".join(name_node.text.decode("utf-8", "replace").split()),)),
        written=tuple(written),
        ported=tuple(ported),
        returns=returns.decode("utf-8", "replace"),
        body=body,
        conditions=tuple((node_id, alternative) for node_id, alternative, _ in conditions),
        tests=tuple(test for _, _, test in conditions),
        line_start=line_starts[line - 1],
        line=line,
    )
    return function


def _parameter_tokens(parameter, source: bytes) -> tuple[list[bytes], bytes]:
    """The parameter's type tokens (its text without its name and default value), and its name."""
    end = parameter.end_byte
    default = parameter.child_by_field_name("default_value")
    if default is not None:
        end = default.start_byte
    declarator = parameter.child_by_field_name("declarator")
    name_span = None
    while declarator is not None:
        if declarator.type in ("identifier", "field_identifier"):
            name_span = (declarator.start_byte, declarator.end_byte)
            break
        declarator = declarator.child_by_field_name("declarator") or next(
            (c for c in declarator.named_children if c.type not in ("type_qualifier",)), None
        )
    text = source[parameter.start_byte : end]
    name = b""
    if name_span is not None:
        a, b = name_span[0] - parameter.start_byte, name_span[1] - parameter.start_byte
        name = text[a:b]
        text = text[:a] + text[b:]
    return _TOKEN.findall(COMMENT.sub(b" ", text).rstrip(b"= \t\r\n")), name


def _ported_tokens(text: bytes, renames: dict[bytes, bytes]) -> bytes:
    return b" ".join(renames.get(t, t) for t in _TOKEN.findall(COMMENT.sub(b" ", text)))
