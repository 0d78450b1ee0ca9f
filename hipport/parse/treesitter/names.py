"""What a candidate name is in the tree: a use, a declaration, a namespace, a marker.

The tree-sitter classifier's half that looks at names; every enclosing node it
needs comes from the NodePath, never from node.parent.
"""

from __future__ import annotations

from typing import Any, cast

from hipport.parse.macro_lexer import MacroIdentifier, macro_identifiers
from hipport.parse.sites import NameSite, Role, Spans
from hipport.parse.treesitter.tree_path import NODE, TYPE, NodePath
from hipport.parse.treesitter.grammar import (
    DECLARATION_OWNERS,
    DECLARATOR_WRAPPERS,
    DEFINE_LINE,
    IDENTIFIER_NODES,
    MACRO_DEFINITIONS,
    MAY_DECLARE,
    NAMED_DECLARATIONS,
    TAGGED_TYPES,
    TYPE_PARAMETERS,
    spans_of_code,
)
from hipport.parse.treesitter.scopes import Scopes


class NameClassifier:
    """Mixed into the classifier, which holds source, markers, macro_bodies and the scopes."""

    source: bytes
    markers: frozenset[str]
    macro_bodies: dict[int, dict[int, MacroIdentifier]]
    scopes: Scopes
    last_namespace_at: int  # where the last CUDA namespace (cub in cub::X) was met

    def _classify_name(self, path: NodePath, depth: int, start: int, end: int, name: str) -> NameSite | None:
        frame = path.frames[depth]
        node, node_type = frame[NODE], frame[TYPE]
        if node_type == "preproc_arg":
            return self._macro_body_name(node, path.at(depth - 1), start, end, name)
        if name in self.markers:
            return NameSite(start, end, name, Role.MARKER)
        if node_type in IDENTIFIER_NODES and node.byte_range == (start, end):
            return self._identifier(path, depth, start, end, name)
        if node_type == name:  # a keyword token of the CUDA grammar
            return NameSite(start, end, name, Role.MARKER)
        return self._lexical_fallback(start, end, name)

    def _identifier(self, path: NodePath, depth: int, start: int, end: int, name: str) -> NameSite | None:
        frames = path.frames
        node, node_type = frames[depth][NODE], frames[depth][TYPE]
        parent: Any = frames[depth - 1][NODE] if depth else None
        ptype: str = frames[depth - 1][TYPE] if depth else ""
        if node_type == "field_identifier":
            owner = self._declarator_owner(path, depth) if ptype in MAY_DECLARE else -1
            if owner >= 0:
                return self._declaration(path, owner, start, end, name)
            return None  # a member of some type: obj.cudaFree, p->cudaStream
        if node_type == "namespace_identifier":
            if (
                ptype in ("namespace_definition", "namespace_alias_definition")
                and parent.child_by_field_name("name") == node
            ):
                return self._declaration(path, depth - 1, start, end, name)
            self.last_namespace_at = start
            return NameSite(start, end, name, Role.NAMESPACE)
        if ptype == "using_declaration" and path.previous_sibling_type(depth) == "namespace":
            return NameSite(start, end, name, Role.NAMESPACE)
        if ptype == "qualified_identifier" and parent.child_by_field_name("scope") is not None:
            using = self._brought_in(path, depth)
            if using >= 0:
                return self._declaration(path, using, start, end, name)
            return None  # a member of a user namespace or class: Fake::cudaMalloc
        if ptype == "preproc_params":
            return None
        construct = self._declaring(path, depth, node, parent, ptype) if ptype in MAY_DECLARE else -1
        if construct >= 0:
            return self._declaration(path, construct, start, end, name)
        call = parent if ptype == "call_expression" else None
        if ptype == "qualified_identifier" and path.type_at(depth - 2) == "call_expression":
            call = path.at(depth - 2)  # ::cudaMalloc(...)
        arguments = None
        if call is not None and call.child_by_field_name("function") in (node, parent):
            args = call.child_by_field_name("arguments")
            if args is not None and args.type == "argument_list":
                # packed: a file of calls has one every few bytes (sites.Spans reads as the list)
                arguments = cast("list[tuple[int, int]]", Spans(spans_of_code(args.named_children)))
        return NameSite(start, end, name, Role.USE, arguments=arguments)

    def _declaration(self, path: NodePath, construct: int, start: int, end: int, name: str) -> NameSite:
        """The name at start, declared by the node at depth construct; its scope is recorded."""
        self.scopes.declare(path, construct, start, name)
        return NameSite(start, end, name, Role.DECLARATION)

    def _brought_in(self, path: NodePath, depth: int) -> int:
        """The depth of the `using Fake::name;` that the qualified name at depth is the end of,
        or -1. `using cub::X` names CUDA's own X: the namespace before it was a candidate."""
        using = depth - 1
        while path.type_at(using) == "qualified_identifier":
            using -= 1
        if path.type_at(using) != "using_declaration" or path.span_at(using + 1)[0] == self.last_namespace_at:
            return -1
        return using

    def _declaring(self, path: NodePath, depth: int, node, parent, ptype: str) -> int:
        """The depth of what declares the identifier at depth (its parent, or the declaration a
        declarator belongs to), or -1 when it is not declared there."""
        if ptype in NAMED_DECLARATIONS:
            return depth - 1 if parent.child_by_field_name("name") == node else -1
        if ptype in TAGGED_TYPES:
            named = parent.child_by_field_name("name") == node and parent.child_by_field_name("body") is not None
            return depth - 1 if named else -1
        if ptype in TYPE_PARAMETERS:
            return depth - 1
        return self._declarator_owner(path, depth)

    @staticmethod
    def _declarator_owner(path: NodePath, depth: int) -> int:
        """The depth of the declaration the node at depth is the declarator of (through pointer,
        array, ... declarators), or -1."""
        current, parent = depth, depth - 1
        while parent >= 0 and path.type_at(parent) in DECLARATOR_WRAPPERS:
            # `&name` holds its declarator in no field: it has no other named child.
            if path.type_at(parent) != "reference_declarator" and path.field_at(current) != "declarator":
                return -1
            current, parent = parent, parent - 1
        owner = path.type_at(parent)
        if owner not in DECLARATION_OWNERS or path.field_at(current) != "declarator":
            return -1
        if owner == "function_definition" and _inside_function_body(path, parent):
            return -1  # C++ has no nested functions: a macro like LOOP(i, n) { ... }
        # A declaration tree-sitter assembled while recovering from an error is
        # a guess (`"text" cudaMemcpy(a, b)` reads as one); treat it as a use.
        suspect = current if owner == "function_definition" else parent
        return -1 if path.at(suspect).has_error else parent

    def _macro_body_name(self, body, definition, start: int, end: int, name: str) -> NameSite | None:
        tokens = self.macro_bodies.get(body.start_byte)
        if tokens is None:
            params = self._macro_params(body, definition)
            if params is None:
                return None  # #pragma, #error and friends carry text, not code
            text = self.source[body.start_byte : body.end_byte]
            tokens = {t.start: t for t in macro_identifiers(text, params)}
            self.macro_bodies[body.start_byte] = tokens
        token = tokens.get(start - body.start_byte)
        if token is None or token.context in ("member", "qualified", "pasted"):
            return None
        if name in self.markers:
            return NameSite(start, end, name, Role.MARKER, in_macro_body=True)
        role = Role.NAMESPACE if token.context == "scope" else Role.USE
        arguments = None
        if token.arguments is not None:
            base = body.start_byte
            arguments = [(base + s, base + e) for s, e in token.arguments]
        return NameSite(start, end, name, role, arguments=arguments, in_macro_body=True)

    def _macro_params(self, body, definition) -> frozenset[str] | None:
        """The parameters of the #define owning body; None if body is not a #define's."""
        if definition is not None and definition.type in MACRO_DEFINITIONS:
            param_node = definition.child_by_field_name("parameters")
            if param_node is None:
                return frozenset()
            return frozenset(
                self.source[c.start_byte : c.end_byte].decode("ascii", "replace") for c in param_node.named_children
            )
        # Inside an ERROR region the #define node may be gone; read the line itself.
        line_start = self.source.rfind(b"\n", 0, body.start_byte) + 1
        m = DEFINE_LINE.match(self.source, line_start)
        if m is None or m.end() > body.start_byte:
            return None
        params = (m.group(1) or b"").decode("ascii", "replace").split(",")
        return frozenset(p.strip() for p in params if p.strip())

    def _lexical_fallback(self, start: int, end: int, name: str) -> NameSite | None:
        """For names inside ERROR regions: judge by the neighbouring bytes."""
        before = self.source[max(0, start - 2) : start].rstrip()
        after = self.source[end : end + 2].lstrip()
        if before.endswith((b".", b"->")) or (
            before.endswith(b"::") and start >= 3 and (self.source[start - 3 : start - 2].isalnum())
        ):
            return None
        role = Role.NAMESPACE if after.startswith(b"::") else Role.USE
        return NameSite(start, end, name, role)


# Where climbing from a function definition stops: a block means a function body,
# class and namespace bodies (and the file) hold real definitions.
_BODY_OR_CONTAINER = frozenset({"compound_statement", "field_declaration_list", "declaration_list", "translation_unit"})


def _inside_function_body(path: NodePath, depth: int) -> bool:
    container = path.nearest(_BODY_OR_CONTAINER, depth - 1)
    return path.type_at(container) == "compound_statement"
