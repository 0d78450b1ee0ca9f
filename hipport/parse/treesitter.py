"""The default parser backend: tree-sitter with the CUDA grammar.

The scanner has already found the candidate bytes; this module parses the file
once and asks the tree what each candidate is. The candidates come sorted by
offset, so one forward walk down the tree finds them all (NodePath), and the
enclosing nodes the questions need come from that walk's path, never from
node.parent, which in tree-sitter searches again from the root. Files above
CHUNK_ABOVE bytes are parsed in pieces (ts_chunks) so that only one piece's
tree is in memory at a time.
"""
from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from functools import lru_cache

from hipport.parse.lint_match import LintMatcher, in_device_function
from hipport.parse.lines import end_of_line
from hipport.parse.macro_lexer import MacroIdentifier, macro_identifiers
from hipport.parse.scan import Candidates
from hipport.parse.sites import IncludeSite, LaunchSite, NameSite, ParsedFile, Role
from hipport.parse.tree_path import NODE, TYPE, NodePath
from hipport.parse.ts_chunks import CHUNK_ABOVE, CHUNK_BYTES, NoSafeCut, chunk_trees

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
# The parents an identifier may be declared in; under any other it is a use.
MAY_DECLARE = NAMED_DECLARATIONS | TAGGED_TYPES | TYPE_PARAMETERS | DECLARATOR_WRAPPERS | DECLARATION_OWNERS
CONDITIONAL_BLOCKS = frozenset({"preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef"})
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


@lru_cache(maxsize=1)
def _comment_kind() -> int:
    return _parser().language.id_for_node_kind("comment", True)


def _spans_of_code(nodes) -> list[tuple[int, int]]:
    """(start, end) of each node that is not a comment (by kind id: the grammar has one "comment")."""
    comment = _comment_kind()
    return [node.byte_range for node in nodes if node.kind_id != comment]


class TreeSitterBackend:
    name = "tree-sitter"

    def __init__(self, chunk_above: int = CHUNK_ABOVE, chunk_bytes: int = CHUNK_BYTES) -> None:
        self.chunk_above = chunk_above
        self.chunk_bytes = chunk_bytes

    def parse(self, source: bytes, candidates: Candidates, markers: frozenset[str]) -> ParsedFile:
        if len(source) > self.chunk_above:
            parsed = _parse_in_chunks(source, candidates, markers, self.chunk_bytes)
            if parsed is not None:
                return parsed
        tree = _parser().parse(source)
        out = _Found()
        _Classifier(source, tree.root_node, markers).run(candidates, out)
        return out.parsed(source)


def _parse_in_chunks(source: bytes, candidates: Candidates, markers: frozenset[str],
                     chunk_bytes: int) -> ParsedFile | None:
    """Classify a big file one chunk's tree at a time (hipport.parse.ts_chunks says where it
    may be cut); None when no safe cut was found and the file must be parsed whole."""
    out = _Found()
    guard_start = _UNKNOWN
    matcher = None
    pieces = _CandidatePieces(candidates)
    try:
        for tree, own_start, own_end in chunk_trees(source, chunk_bytes):
            classifier = _Classifier(source, tree.root_node, markers, guard_start, matcher)
            guard_start, matcher = classifier.guard_start, classifier.matcher
            classifier.run(pieces.until(own_end), out)
            del classifier, tree  # one chunk's tree alive at a time
    except NoSafeCut:
        return None
    return out.parsed(source)


class _CandidatePieces:
    """The candidates of consecutive pieces of a file, each by the offset the classifier looks up."""

    def __init__(self, candidates: Candidates) -> None:
        self.candidates = candidates
        self.include_at = [m.start("line") + m.group("line").index(b"#") for m in candidates.includes]
        self.taken = [0, 0, 0, 0]  # names, literals, includes, launches handed out so far

    def until(self, end: int) -> Candidates:
        c, taken = self.candidates, self.taken
        names = bisect_left(c.names, end, taken[0], key=lambda n: n[0])
        literals = bisect_left(c.literals, end, taken[1], key=lambda n: n[0])
        includes = bisect_left(self.include_at, end, taken[2])
        launches = bisect_left(c.launches, end, taken[3])
        piece = Candidates(c.names[taken[0]:names], c.includes[taken[2]:includes], c.launches[taken[3]:launches],
                           c.literals[taken[1]:literals], lints=c.lints)
        self.taken = [names, literals, includes, launches]
        return piece


class _Found:
    """What classification found, kept in the order one whole-file pass would give it."""

    __slots__ = ("names", "includes", "launches", "name_hits", "literal_hits", "syntax_error_at",
                 "syntax_error_detail")

    def __init__(self) -> None:
        self.names: list[NameSite] = []
        self.includes: list[IncludeSite] = []
        self.launches: list[LaunchSite] = []
        self.name_hits: list = []
        self.literal_hits: list = []
        self.syntax_error_at: int | None = None
        self.syntax_error_detail = ""

    def parsed(self, source: bytes) -> ParsedFile:
        return ParsedFile(
            names=self.names, includes=self.includes, launches=self.launches,
            syntax_error_at=self.syntax_error_at, syntax_error_detail=self.syntax_error_detail,
            top_insert_at=3 if source.startswith(b"\xef\xbb\xbf") else 0,
            lint_hits=self.name_hits + self.literal_hits,
        )


_UNKNOWN = object()  # the include guard of a chunk's file, before the first chunk has said


class _Classifier:
    def __init__(self, source: bytes, root, markers: frozenset[str], guard_start=_UNKNOWN,
                 matcher: LintMatcher | None = None) -> None:
        self.source = source
        self.root = root
        self.markers = markers
        self.macro_bodies: dict[int, dict[int, MacroIdentifier]] = {}
        self.guard_start = self._include_guard_start() if guard_start is _UNKNOWN else guard_start
        self.not_code = self._lex_not_code() if root.has_error else None
        self.matcher = matcher

    def run(self, candidates: Candidates, out: _Found) -> None:
        lints = candidates.lints
        if lints is not None and self.matcher is None:
            self.matcher = LintMatcher(self.source, lints)
        matcher = self.matcher if lints is not None else None
        try:
            if matcher is not None:
                matcher.not_code = self._lexically_not_code
            self._run(candidates, out, lints, matcher)
        finally:
            if matcher is not None:
                matcher.not_code = None  # the matcher outlives this chunk's tree; let the tree go

    def _run(self, candidates: Candidates, out: _Found, lints, matcher) -> None:
        path = NodePath(self.root)
        frames = path.frames  # the path's own list, moved by each seek
        not_code = self.not_code
        rules_at: dict[str, tuple] = {}  # name -> the lints it triggers
        for start, end, name in candidates.names:
            # Where the candidate is, and whether that is code: the types of the node and its
            # parent are read once, into their frames.
            node = path.seek(start, end)
            depth = len(frames) - 1
            frame = frames[depth]
            node_type = frame[TYPE]
            if node_type is None:
                node_type = frame[TYPE] = node.type
            if node_type in NOT_CODE:
                continue
            if depth:
                parent = frames[depth - 1]
                if parent[TYPE] is None:
                    parent[TYPE] = parent[NODE].type
                if parent[TYPE] in NOT_CODE:
                    continue
            if not_code is not None and self._lexically_not_code(start):
                continue
            site = self._classify_name(path, depth, start, end, name)
            if site is not None:
                out.names.append(site)
            if matcher is None:
                continue
            rule_ids = rules_at.get(name)
            if rule_ids is None:
                rule_ids = rules_at[name] = lints.for_name(name)
            if rule_ids and (node_type != "preproc_arg" or site is not None):
                out.name_hits.extend(matcher.at_name(path, depth, start, end, name, site, rule_ids))
        if matcher is not None and candidates.literals:
            path = NodePath(self.root)
            for start, end, value in candidates.literals:
                out.literal_hits.extend(matcher.at_literal(path, start, end, value))
        if candidates.includes:
            path = NodePath(self.root)
            for match in candidates.includes:
                site = self._include(path, match)
                if site is not None:
                    out.includes.append(site)
        if candidates.launches:
            path = NodePath(self.root)
            for offset in candidates.launches:
                site = self._launch(path, offset)
                if site is not None:
                    out.launches.append(site)
        if self.root.has_error:
            node = self._first_error()
            out.syntax_error_at = node.start_byte
            out.syntax_error_detail = "missing " + node.type if node.is_missing else "unexpected text"

    # -- names -----------------------------------------------------------------

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
        parent, ptype = (frames[depth - 1][NODE], frames[depth - 1][TYPE]) if depth else (None, "")
        if node_type == "field_identifier":
            if ptype in MAY_DECLARE and self._is_declarator_of(path, depth):
                return NameSite(start, end, name, Role.DECLARATION)
            return None  # a member of some type: obj.cudaFree, p->cudaStream
        if node_type == "namespace_identifier":
            if ptype in ("namespace_definition", "namespace_alias_definition") and \
                    parent.child_by_field_name("name") == node:
                return NameSite(start, end, name, Role.DECLARATION)
            return NameSite(start, end, name, Role.NAMESPACE)
        if ptype == "using_declaration" and path.previous_sibling_type(depth) == "namespace":
            return NameSite(start, end, name, Role.NAMESPACE)
        if ptype == "qualified_identifier":
            if parent.child_by_field_name("scope") is not None:
                return None  # a member of a user namespace or class: Fake::cudaMalloc
        if ptype == "preproc_params":
            return None
        if ptype in MAY_DECLARE and self._is_declaration(path, depth, node, parent, ptype):
            return NameSite(start, end, name, Role.DECLARATION)
        call = parent if ptype == "call_expression" else None
        if ptype == "qualified_identifier" and path.type_at(depth - 2) == "call_expression":
            call = path.at(depth - 2)  # ::cudaMalloc(...)
        arguments = None
        if call is not None and call.child_by_field_name("function") in (node, parent):
            args = call.child_by_field_name("arguments")
            if args is not None and args.type == "argument_list":
                arguments = _spans_of_code(args.named_children)
        return NameSite(start, end, name, Role.USE, arguments=arguments)

    def _is_declaration(self, path: NodePath, depth: int, node, parent, ptype: str) -> bool:
        if ptype in NAMED_DECLARATIONS:
            return parent.child_by_field_name("name") == node
        if ptype in TAGGED_TYPES:
            return parent.child_by_field_name("name") == node and parent.child_by_field_name("body") is not None
        if ptype in TYPE_PARAMETERS:
            return True
        return self._is_declarator_of(path, depth)

    @staticmethod
    def _is_declarator_of(path: NodePath, depth: int) -> bool:
        """The node at depth is what a declaration declares (through pointer, array, ... declarators)."""
        current, parent = depth, depth - 1
        while parent >= 0 and path.type_at(parent) in DECLARATOR_WRAPPERS:
            if path.field_at(current) != "declarator":
                return False
            current, parent = parent, parent - 1
        owner = path.type_at(parent)
        if owner not in DECLARATION_OWNERS or path.field_at(current) != "declarator":
            return False
        if owner == "function_definition" and _inside_function_body(path, parent):
            return False  # C++ has no nested functions: a macro like LOOP(i, n) { ... }
        # A declaration tree-sitter assembled while recovering from an error is
        # a guess (`"text" cudaMemcpy(a, b)` reads as one); treat it as a use.
        suspect = current if owner == "function_definition" else parent
        return not path.at(suspect).has_error

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

    def _include(self, path: NodePath, match) -> IncludeSite | None:
        line_start = match.start("line")
        hash_at = line_start + match.group("line").index(b"#")
        if self.not_code is not None and self._lexically_not_code(hash_at):
            return None
        path.seek(hash_at, hash_at + 1)
        depth = path.depth
        is_include = path.type_at(depth - 1) == "preproc_include"
        # After error recovery the tree may not show the directive; the lexer
        # has already ruled out comments and strings, and that is enough.
        if not is_include and self.not_code is None:
            return None
        return IncludeSite(
            line_start=line_start, line_end=end_of_line(self.source, match.end()),
            path_start=match.start(3), path_end=match.end(3),
            path=match.group(3).decode("utf-8", "replace"),
            scope=self._scope(path, depth - 1 if is_include else depth),
        )

    def _scope(self, path: NodePath, depth: int) -> tuple[int, ...]:
        """The conditional branches enclosing the node at depth, outermost first.

        tree-sitter nests #else/#elif inside the #if they continue; a branch
        reached as its parent's `alternative` is not inside the parent's body.
        """
        scope = []
        block = path.nearest(CONDITIONAL_BLOCKS, depth - 1)
        while block >= 0:
            start = path.at(block).start_byte
            if start != self.guard_start and path.field_at(block + 1) != "alternative":
                scope.append(start)
            block = path.nearest(CONDITIONAL_BLOCKS, block - 1)
        return tuple(reversed(scope))

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

    def _launch(self, path: NodePath, offset: int) -> LaunchSite | None:
        if self.not_code is not None and self._lexically_not_code(offset):
            return None
        path.seek(offset, offset + 3)
        depth = path.depth
        if path.type_at(depth) != "<<<" or path.type_at(depth - 1) != "kernel_call_syntax" or \
                path.type_at(depth - 2) != "call_expression":
            return None
        config_node, call = path.at(depth - 1), path.at(depth - 2)
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
            config=_spans_of_code(config_node.named_children),
            config_close=close.end_byte,
            args_open=args.start_byte,
            arguments=_spans_of_code(args.named_children),
            in_device_code=in_device_function(path, depth - 2, self.source),
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


# Where climbing from a function definition stops: a block means a function body,
# class and namespace bodies (and the file) hold real definitions.
_BODY_OR_CONTAINER = frozenset({"compound_statement", "field_declaration_list", "declaration_list",
                                "translation_unit"})


def _inside_function_body(path: NodePath, depth: int) -> bool:
    container = path.nearest(_BODY_OR_CONTAINER, depth - 1)
    return path.type_at(container) == "compound_statement"
