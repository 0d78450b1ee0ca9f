"""The default parser backend: tree-sitter with the CUDA grammar.

The scanner has already found the candidate bytes; this module parses the file
once and asks the tree what each candidate is, with one descendant lookup per
candidate instead of a Python walk over every node.
"""
from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache

from hipport.parse.lint_match import LintMatcher, in_device_function
from hipport.parse.lines import end_of_line
from hipport.parse.macro_lexer import MacroIdentifier, macro_identifiers
from hipport.parse.scan import Candidates
from hipport.parse.sites import IncludeSite, LaunchSite, NameSite, ParsedFile, Role

IDENTIFIER_NODES = {"identifier", "type_identifier", "namespace_identifier", "field_identifier"}
NOT_CODE = {
    "comment", "string_literal", "string_content", "raw_string_literal", "raw_string_content",
    "raw_string_delimiter", "char_literal", "character", "escape_sequence", "system_lib_string",
}
# Declarator wrappers between a declared name and the declaration that owns it.
DECLARATOR_WRAPPERS = {
    "pointer_declarator", "reference_declarator", "array_declarator", "parenthesized_declarator",
    "function_declarator", "init_declarator", "attributed_declarator",
}
DECLARATION_OWNERS = {
    "declaration", "field_declaration", "parameter_declaration", "optional_parameter_declaration",
    "type_definition", "function_definition",
}
NAMED_DECLARATIONS = {
    "enumerator", "alias_declaration", "namespace_definition", "namespace_alias_definition",
    "preproc_def", "preproc_function_def", "concept_definition",
}
TAGGED_TYPES = {"struct_specifier", "class_specifier", "union_specifier", "enum_specifier"}
TYPE_PARAMETERS = {"type_parameter_declaration", "optional_type_parameter_declaration",
                   "variadic_type_parameter_declaration"}
CONDITIONAL_BLOCKS = {"preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef"}
MACRO_DEFINITIONS = {"preproc_def", "preproc_function_def"}
# Comments and literals found by lexing alone. Used where tree-sitter recovered
# from an error, since its recovery can read an unterminated comment as code;
# numbers come first so digit separators (1'000) are not taken for chars.
_NOT_CODE_LEXEMES = re.compile(
    rb"""[0-9][A-Za-z0-9_.']*
       | //[^\n]*
       | /\*.*?(?:\*/|\Z)
       | R"(?P<delim>[^()\\\s"]{0,16})\(.*?(?:\)(?P=delim)"|\Z)
       | "(?:\\.|[^"\\\n])*"?
       | '(?:\\.|[^'\\\n])*'?""",
    re.S | re.X,
)
_DEFINE_LINE = re.compile(rb"[ \t]*#[ \t]*define[ \t]+[A-Za-z_][A-Za-z0-9_]*(?:\(([^)]*)\))?")


@lru_cache(maxsize=1)
def _parser():
    # Imported here so that files with no candidates never load the grammar.
    import tree_sitter
    import tree_sitter_cuda

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_cuda.language()))


class TreeSitterBackend:
    name = "tree-sitter"

    def parse(self, source: bytes, candidates: Candidates, markers: frozenset[str]) -> ParsedFile:
        tree = _parser().parse(source)
        return _Classifier(source, tree.root_node, markers).run(candidates)


class _Classifier:
    def __init__(self, source: bytes, root, markers: frozenset[str]) -> None:
        self.source = source
        self.root = root
        self.markers = markers
        self.macro_bodies: dict[int, dict[int, MacroIdentifier]] = {}
        self.guard_start = self._include_guard_start()
        self.not_code = self._lex_not_code() if root.has_error else None

    def run(self, candidates: Candidates) -> ParsedFile:
        parsed = ParsedFile(top_insert_at=3 if self.source.startswith(b"\xef\xbb\xbf") else 0)
        lints = candidates.lints
        matcher = LintMatcher(self.source, self.root, lints, self._lexically_not_code) if lints is not None else None
        for start, end, name in candidates.names:
            found = self._locate(start, end)
            site = self._classify_name(found, start, end, name) if found is not None else None
            if site is not None:
                parsed.names.append(site)
            rule_ids = lints.for_name(name) if matcher is not None else ()
            if rule_ids and found is not None and (found[1] != "preproc_arg" or site is not None):
                parsed.lint_hits.extend(matcher.at_name(found[0], start, end, name, site, rule_ids))
        if matcher is not None:
            for start, end, value in candidates.literals:
                parsed.lint_hits.extend(matcher.at_literal(start, end, value))
        for match in candidates.includes:
            site = self._include(match)
            if site is not None:
                parsed.includes.append(site)
        for offset in candidates.launches:
            site = self._launch(offset)
            if site is not None:
                parsed.launches.append(site)
        if self.root.has_error:
            node = self._first_error()
            parsed.syntax_error_at = node.start_byte
            parsed.syntax_error_detail = "missing " + node.type if node.is_missing else "unexpected text"
        return parsed

    # -- names -----------------------------------------------------------------

    def _locate(self, start: int, end: int):
        """(node, its type, its parent) at a candidate, or None when the candidate is in a comment
        or a literal. Each is asked for once: every property read is a call into tree-sitter."""
        node = self.root.descendant_for_byte_range(start, end)
        if node is None:
            return None
        node_type = node.type
        if node_type in NOT_CODE:
            return None
        parent = node.parent
        if parent is not None and parent.type in NOT_CODE:
            return None
        if self.not_code is not None and self._lexically_not_code(start):
            return None
        return node, node_type, parent

    def _classify_name(self, found, start: int, end: int, name: str) -> NameSite | None:
        node, node_type, parent = found
        if node_type == "preproc_arg":
            return self._macro_body_name(node, parent, start, end, name)
        if name in self.markers:
            return NameSite(start, end, name, Role.MARKER)
        if node_type in IDENTIFIER_NODES and node.start_byte == start and node.end_byte == end:
            return self._identifier(node, node_type, parent, start, end, name)
        if node_type == name:  # a keyword token of the CUDA grammar
            return NameSite(start, end, name, Role.MARKER)
        return self._lexical_fallback(start, end, name)

    def _identifier(self, node, node_type: str, parent, start: int, end: int, name: str) -> NameSite | None:
        ptype = parent.type if parent is not None else ""
        if node_type == "field_identifier":
            if self._is_declarator_of(node, parent):
                return NameSite(start, end, name, Role.DECLARATION)
            return None  # a member of some type: obj.cudaFree, p->cudaStream
        if node_type == "namespace_identifier":
            if ptype in ("namespace_definition", "namespace_alias_definition") and \
                    parent.child_by_field_name("name") == node:
                return NameSite(start, end, name, Role.DECLARATION)
            return NameSite(start, end, name, Role.NAMESPACE)
        if ptype == "using_declaration" and _previous_token_is(node, "namespace"):
            return NameSite(start, end, name, Role.NAMESPACE)
        if ptype == "qualified_identifier":
            if parent.child_by_field_name("scope") is not None:
                return None  # a member of a user namespace or class: Fake::cudaMalloc
        if ptype == "preproc_params":
            return None
        if self._is_declaration(node, parent, ptype):
            return NameSite(start, end, name, Role.DECLARATION)
        call = parent if ptype == "call_expression" else None
        if ptype == "qualified_identifier" and parent.parent is not None and parent.parent.type == "call_expression":
            call = parent.parent  # ::cudaMalloc(...)
        arguments = None
        if call is not None and call.child_by_field_name("function") in (node, parent):
            args = call.child_by_field_name("arguments")
            if args is not None and args.type == "argument_list":
                arguments = [(c.start_byte, c.end_byte) for c in args.named_children if c.type != "comment"]
        return NameSite(start, end, name, Role.USE, arguments=arguments)

    def _is_declaration(self, node, parent, ptype: str) -> bool:
        if ptype in NAMED_DECLARATIONS:
            return parent.child_by_field_name("name") == node
        if ptype in TAGGED_TYPES:
            return parent.child_by_field_name("name") == node and parent.child_by_field_name("body") is not None
        if ptype in TYPE_PARAMETERS:
            return True
        return self._is_declarator_of(node, parent)

    @staticmethod
    def _is_declarator_of(node, parent) -> bool:
        """parent: node.parent, which the caller has already."""
        current = node
        while parent is not None and parent.type in DECLARATOR_WRAPPERS:
            if current not in parent.children_by_field_name("declarator"):
                return False
            current, parent = parent, parent.parent
        if parent is None or parent.type not in DECLARATION_OWNERS:
            return False
        if current not in parent.children_by_field_name("declarator"):
            return False
        if parent.type == "function_definition" and _inside_function_body(parent):
            return False  # C++ has no nested functions: a macro like LOOP(i, n) { ... }
        # A declaration tree-sitter assembled while recovering from an error is
        # a guess (`"text" cudaMemcpy(a, b)` reads as one); treat it as a use.
        suspect = current if parent.type == "function_definition" else parent
        return not suspect.has_error

    def _macro_body_name(self, body, definition, start: int, end: int, name: str) -> NameSite | None:
        tokens = self.macro_bodies.get(body.start_byte)
        if tokens is None:
            params = self._macro_params(body, definition)
            if params is None:
                return None  # #pragma, #error and friends carry text, not code
            text = self.source[body.start_byte:body.end_byte]
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
            return frozenset(self.source[c.start_byte:c.end_byte].decode("ascii", "replace")
                             for c in param_node.named_children)
        # Inside an ERROR region the #define node may be gone; read the line itself.
        line_start = self.source.rfind(b"\n", 0, body.start_byte) + 1
        m = _DEFINE_LINE.match(self.source, line_start)
        if m is None or m.end() > body.start_byte:
            return None
        params = (m.group(1) or b"").decode("ascii", "replace").split(",")
        return frozenset(p.strip() for p in params if p.strip())

    def _lex_not_code(self) -> tuple[list[int], list[int]]:
        starts, ends = [], []
        for m in _NOT_CODE_LEXEMES.finditer(self.source):
            if m.group()[:1].isdigit():
                continue
            starts.append(m.start())
            ends.append(m.end())
        return starts, ends

    def _lexically_not_code(self, offset: int) -> bool:
        if self.not_code is None:
            return False  # the tree parsed cleanly and has already said what is code
        starts, ends = self.not_code
        i = bisect_right(starts, offset) - 1
        return i >= 0 and offset < ends[i]

    def _lexical_fallback(self, start: int, end: int, name: str) -> NameSite | None:
        """For names inside ERROR regions: judge by the neighbouring bytes."""
        before = self.source[max(0, start - 2):start].rstrip()
        after = self.source[end:end + 2].lstrip()
        if before.endswith((b".", b"->")) or (before.endswith(b"::") and start >= 3 and
                                                 (self.source[start - 3:start - 2].isalnum())):
            return None
        role = Role.NAMESPACE if after.startswith(b"::") else Role.USE
        return NameSite(start, end, name, role)

    # -- includes and launches -------------------------------------------------

    def _include(self, match) -> IncludeSite | None:
        line_start = match.start("line")
        hash_at = line_start + match.group("line").index(b"#")
        if self.not_code is not None and self._lexically_not_code(hash_at):
            return None
        node = self.root.descendant_for_byte_range(hash_at, hash_at + 1)
        if node is None:
            return None
        is_include = node.parent is not None and node.parent.type == "preproc_include"
        # After error recovery the tree may not show the directive; the lexer
        # has already ruled out comments and strings, and that is enough.
        if not is_include and self.not_code is None:
            return None
        return IncludeSite(
            line_start=line_start, line_end=end_of_line(self.source, match.end()),
            path_start=match.start(3), path_end=match.end(3),
            path=match.group(3).decode("utf-8", "replace"),
            scope=self._scope(node.parent if is_include else node),
        )

    def _scope(self, node) -> tuple[int, ...]:
        """The conditional branches enclosing node, outermost first.

        tree-sitter nests #else/#elif inside the #if they continue; a branch
        reached as its parent's `alternative` is not inside the parent's body.
        """
        path = [*self._ancestors(node), node]
        return tuple(
            parent.start_byte for parent, child in zip(path, path[1:])
            if parent.type in CONDITIONAL_BLOCKS and parent.start_byte != self.guard_start
            and child != parent.child_by_field_name("alternative")
        )

    def _ancestors(self, node) -> list:
        """node's ancestors, root first.

        Walked down from the root with a cursor: each node.parent starts again
        at the root, so climbing with it is quadratic in the depth (an include
        under 20,000 nested #ifs took 23 s).
        """
        cursor = self.root.walk()
        path = []
        while cursor.node != node:
            path.append(cursor.node)
            if cursor.goto_first_child_for_byte(node.start_byte) is None:
                return self._climb(node)  # missed it (zero-width nodes): the slow way
        return path

    @staticmethod
    def _climb(node) -> list:
        path = []
        parent = node.parent
        while parent is not None:
            path.append(parent)
            parent = parent.parent
        return path[::-1]

    def _include_guard_start(self) -> int | None:
        # #ifndef X / #define X wrapping the file is a guard, not a real condition.
        for child in self.root.named_children:
            if child.type == "comment":
                continue
            if child.type != "preproc_ifdef" or self.source[child.start_byte:child.start_byte + 7] != b"#ifndef":
                return None
            name = child.child_by_field_name("name")
            for inner in child.named_children:
                if inner == name or inner.type == "comment":
                    continue
                if inner.type == "preproc_def":
                    inner_name = inner.child_by_field_name("name")
                    if name is not None and inner_name is not None and \
                            self.source[inner_name.start_byte:inner_name.end_byte] == \
                            self.source[name.start_byte:name.end_byte]:
                        return child.start_byte
                return None
            return None
        return None

    def _launch(self, offset: int) -> LaunchSite | None:
        if self.not_code is not None and self._lexically_not_code(offset):
            return None
        node = self.root.descendant_for_byte_range(offset, offset + 3)
        if node is None or node.type != "<<<":
            return None
        config_node = node.parent
        call = config_node.parent if config_node is not None else None
        if config_node.type != "kernel_call_syntax" or call is None or call.type != "call_expression":
            return None
        kernel = call.children[0]
        args = call.child_by_field_name("arguments") or call.children[-1]
        if args.type != "argument_list":
            return None
        close = next((c for c in config_node.children if c.type == ">>>"), None)
        if close is None:
            return None
        return LaunchSite(
            start=call.start_byte, end=call.end_byte,
            kernel=(kernel.start_byte, kernel.end_byte),
            kernel_is_template=b"<" in self.source[kernel.start_byte:kernel.end_byte],
            config=[(c.start_byte, c.end_byte) for c in config_node.named_children if c.type != "comment"],
            config_close=close.end_byte,
            args_open=args.start_byte,
            arguments=[(c.start_byte, c.end_byte) for c in args.named_children if c.type != "comment"],
            in_device_code=in_device_function(call, self.source),
        )

    def _first_error(self):
        node = self.root
        while True:
            for child in node.children:
                if child.type == "ERROR" or child.is_missing:
                    return child
                if child.has_error:
                    node = child
                    break
            else:
                return node


def _inside_function_body(node) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type == "compound_statement":
            return True
        if parent.type in ("field_declaration_list", "declaration_list", "translation_unit"):
            return False  # class and namespace bodies hold real definitions
        parent = parent.parent
    return False


def _previous_token_is(node, text: str) -> bool:
    sibling = node.prev_sibling
    return sibling is not None and sibling.type == text
