"""The default parser backend: tree-sitter with the CUDA grammar.

The scanner has already found the candidate bytes; this module parses the file
once and asks the tree what each candidate is. The candidates come sorted by
offset, so one forward walk down the tree finds them all (NodePath), and the
enclosing nodes the questions need come from that walk's path, never from
node.parent, which in tree-sitter searches again from the root. Files above
CHUNK_ABOVE bytes are parsed in pieces (chunks.py) so that only one piece's
tree is in memory at a time.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Any

from hipport.lints.context import FUNCTION_NODES
from hipport.parse.treesitter.lints.context import in_device_function
from hipport.parse.treesitter.lints.match import LintMatcher
from hipport.parse.macro_lexer import MacroIdentifier
from hipport.parse.scan import Candidates
from hipport.parse.sites import IncludeSite, LaunchSite, NameSite, ParsedFile, Role, StringNameSite, SyntaxTree
from hipport.parse.treesitter.tree_path import NODE, TYPE, NodePath
from hipport.parse.treesitter.chunks import CHUNK_ABOVE, CHUNK_BYTES, NoSafeCut, chunk_trees
from hipport.parse.treesitter.grammar import NOT_CODE, NOT_CODE_LEXEMES, _parser
from hipport.parse.treesitter.names import NameClassifier
from hipport.parse.treesitter.places import PlaceClassifier
from hipport.parse.treesitter.scopes import Scopes
from hipport.parse.treesitter.strings import STRING_TEXT, string_site

__all__ = ["TreeSitterBackend"]

_MAY_BE_HIDDEN = (Role.USE, Role.NAMESPACE)


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
        tree = _whole_tree(source)
        out = _Found(source)
        _Classifier(source, tree.root_node, markers).run(candidates, out)
        parsed = out.parsed(source)
        parsed.syntax = SyntaxTree(tree.root_node)
        return parsed


def _whole_tree(source: bytes) -> Any:
    # The grammar ends a directive at its newline: a file whose last line is an #include with
    # none would read as a syntax error (HP901), where compilers accept it.
    return _parser().parse(source if source.endswith(b"\n") else source + b"\n")


def _parse_in_chunks(
    source: bytes, candidates: Candidates, markers: frozenset[str], chunk_bytes: int
) -> ParsedFile | None:
    """Classify a big file one chunk's tree at a time (hipport.parse.treesitter.chunks says where it
    may be cut); None when no safe cut was found and the file must be parsed whole."""
    out = _Found(source)
    guard_start = _UNKNOWN
    matcher = None
    pieces = _CandidatePieces(candidates)
    try:
        for tree, _own_start, own_end in chunk_trees(source, chunk_bytes):
            classifier = _Classifier(source, tree.root_node, markers, guard_start, matcher, own_end)
            guard_start, matcher = classifier.guard_start, classifier.matcher
            classifier.run(pieces.until(own_end), out)
            del classifier, tree  # one chunk's tree alive at a time
    except NoSafeCut:
        return None
    parsed = out.parsed(source)
    parsed.syntax = SyntaxTree(build=lambda: _whole_tree(source).root_node)
    return parsed


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
        piece = Candidates(
            c.names[taken[0] : names],
            c.includes[taken[2] : includes],
            c.launches[taken[3] : launches],
            c.literals[taken[1] : literals],
            lints=c.lints,
        )
        self.taken = [names, literals, includes, launches]
        return piece


class _Found:
    """What classification found, kept in the order one whole-file pass would give it."""

    __slots__ = (
        "names",
        "includes",
        "launches",
        "name_hits",
        "literal_hits",
        "syntax_error_at",
        "syntax_error_detail",
        "scopes",
        "strings",
    )

    def __init__(self, source: bytes) -> None:
        self.strings: list[StringNameSite] = []
        self.scopes = Scopes(source)  # carried from chunk to chunk, like the order of the sites
        self.names: list[NameSite] = []
        self.includes: list[IncludeSite] = []
        self.launches: list[LaunchSite] = []
        self.name_hits: list = []
        self.literal_hits: list = []
        self.syntax_error_at: int | None = None
        self.syntax_error_detail = ""

    def parsed(self, source: bytes) -> ParsedFile:
        self.scopes.finish()
        return ParsedFile(
            names=self.names,
            includes=self.includes,
            launches=self.launches,
            syntax_error_at=self.syntax_error_at,
            syntax_error_detail=self.syntax_error_detail,
            top_insert_at=3 if source.startswith(b"\xef\xbb\xbf") else 0,
            lint_hits=self.name_hits + self.literal_hits,
            strings=self.strings,
        )


_UNKNOWN = object()  # the include guard of a chunk's file, before the first chunk has said


class _Classifier(NameClassifier, PlaceClassifier):
    def __init__(
        self,
        source: bytes,
        root,
        markers: frozenset[str],
        guard_start=_UNKNOWN,
        matcher: LintMatcher | None = None,
        piece_end: int | None = None,
    ) -> None:
        self.source = source
        self.piece_end = piece_end  # where a chunk's own text ends; None for the whole file
        self.root = root
        self.markers = markers
        self.macro_bodies: dict[int, dict[int, MacroIdentifier]] = {}
        self.device_functions: dict[int, bool] = {}  # function start -> whether it is device code
        self.guard_start = self._include_guard_start() if guard_start is _UNKNOWN else guard_start
        self.not_code = self._lex_not_code() if root.has_error else None
        self.matcher = matcher

    def run(self, candidates: Candidates, out: _Found) -> None:
        lints = candidates.lints
        if lints is not None and self.matcher is None:
            self.matcher = LintMatcher(self.source, lints)
        matcher = self.matcher if lints is not None else None
        self.scopes = out.scopes
        self.scopes.attach(self.root, self.piece_end)
        self.last_namespace_at = -1
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
        scopes = self.scopes
        declared = scopes.declared  # filled as the walk meets declarations
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
                if node_type in STRING_TEXT and not_code is None:
                    string = string_site(path, depth, self.source, start, end, name)
                    if string is not None:
                        out.strings.append(string)
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
                if site.role in _MAY_BE_HIDDEN:
                    scopes.use(path, depth, site)
                    site.in_device_code = self._in_device_function(path, depth)
            if matcher is None:
                continue
            rule_ids = rules_at.get(name)
            if rule_ids is None:
                rule_ids = rules_at[name] = lints.for_name(name)
            if rule_ids and (node_type != "preproc_arg" or site is not None):
                hits = matcher.at_name(path, depth, start, end, name, site, rule_ids)
                if hits and (name in declared if site is None else site.shadowed or site.role is Role.DECLARATION):
                    for hit in hits:
                        hit.own_name = True
                out.name_hits.extend(hits)
        if matcher is not None and candidates.literals:
            path = NodePath(self.root)
            for start, end, value in candidates.literals:
                out.literal_hits.extend(matcher.at_literal(path, start, end, value))
        # includes and launches: each its own walk down the tree, in offset order
        if candidates.includes:
            path = NodePath(self.root)
            out.includes.extend(s for s in (self._include(path, m) for m in candidates.includes) if s is not None)
        if candidates.launches:
            path = NodePath(self.root)
            out.launches.extend(s for s in (self._launch(path, at) for at in candidates.launches) if s is not None)
        if self.root.has_error:
            node = self._first_error()
            out.syntax_error_at = node.start_byte
            out.syntax_error_detail = "missing " + node.type if node.is_missing else "unexpected text"

    def _lex_not_code(self) -> tuple[list[int], list[int]]:
        starts, ends = [], []
        for m in NOT_CODE_LEXEMES.finditer(self.source):
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

    def _in_device_function(self, path: NodePath, depth: int) -> bool:
        """in_device_function, answered once per function: the path finds the function, the
        answer for its start is kept."""
        function = path.nearest(FUNCTION_NODES, depth - 1)
        if function < 0:
            return False
        start = path.span_at(function)[0]
        known = self.device_functions.get(start)
        if known is None:
            known = self.device_functions[start] = in_device_function(path, depth, self.source)
        return known

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
