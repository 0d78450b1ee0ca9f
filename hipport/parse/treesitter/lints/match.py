"""The structural lints at the scanner's candidates: the tree-sitter walk hands each candidate here,
and LintMatcher runs the matchers (hipport.lints.registry) its rules name.

Each matcher starts from the one node the scanner pointed at (an identifier or
an integer literal) and looks only at its neighbourhood: the enclosing call,
binary expression, loop or declaration, plus, for one-step lookups such as "this
variable was assigned a ballot", the text of the enclosing function. None of
them walks the tree: enclosing nodes come from the classifier's NodePath (the
node is path.at(depth), its parent path.at(depth - 1)). Inside #define
bodies, which tree-sitter keeps as text, the matchers that can judge lexically
do so (a matcher's in_define) and the others stay silent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hipport.lints.registry import MATCHERS
from hipport.parse.sites import LintHit, NameSite
from hipport.parse.treesitter.lints.context import ContextReader
from hipport.parse.treesitter.tree_path import NodePath
from hipport.ruleset.lintrules import LintIndex, int_value

if TYPE_CHECKING:  # mypy holds the backend to the interfaces the matchers read through
    from hipport.lints.context import Context, Site, SyntaxPath

    def _context(matcher: LintMatcher) -> Context:
        return matcher

    def _site(site: NameSite) -> Site:
        return site

    def _path(path: NodePath) -> SyntaxPath:
        return path


class LintMatcher(ContextReader):
    """One file's lint matching; a file parsed in chunks keeps one matcher for all of them."""

    def __init__(self, source: bytes, index: LintIndex) -> None:
        super().__init__(source)
        self.index = index

    def at_name(
        self, path: NodePath, depth: int, start: int, end: int, name: str, site: NameSite | None, rule_ids
    ) -> list[LintHit]:
        """Hits of the lints rule_ids at a candidate name; path.at(depth), the tree node there,
        is known to be code."""
        hits = []
        for rule_id in rule_ids:
            rule = self.index.rules[rule_id]
            hit = MATCHERS[rule.match].run(self, rule, path, depth, start, end, name, site)
            if hit is not None:
                hit.trigger = name
                hits.append(hit)
        return hits

    def at_literal(self, path: NodePath, start: int, end: int, value: int) -> list[LintHit]:
        """Hits at an integer literal; path walks the literals of one tree in order."""
        rule_ids = self.index.by_literal.get(value, ())
        if not rule_ids or (self.not_code is not None and self.not_code(start)):
            return []
        node = path.seek(start, end)
        depth = path.depth
        node_type = path.type_at(depth)
        if self.source[start : start + 1].isalpha() or self.source[start : start + 1] == b"_":
            return self._at_macro(path, depth, start, end, value)
        if node_type == "preproc_arg":
            return self._in_define(node, start, end, value)
        if node_type != "number_literal" or node.start_byte != start or node.end_byte != end:
            return []
        return self._literal_hits(path, depth, value)

    def _literal_hits(self, path: NodePath, depth: int, value: int) -> list[LintHit]:
        hits = []
        for rule_id in self.index.by_literal.get(value, ()):
            rule = self.index.rules[rule_id]
            hit = MATCHERS[rule.match].run(self, rule, path, depth, value)
            if hit is not None:
                hits.append(hit)
        return hits

    def _in_define(self, body, start: int, end: int, value: int) -> list[LintHit]:
        """Hits at a literal in a #define body, from the matchers that judge one lexically."""
        hits = []
        for rule_id in self.index.by_literal.get(value, ()):
            rule = self.index.rules[rule_id]
            in_define = MATCHERS[rule.match].in_define
            hit = in_define(self, rule, body, start, end, value) if in_define is not None else None
            if hit is not None:
                hits.append(hit)
        return hits

    def _at_macro(self, path: NodePath, depth: int, start: int, end: int, value: int) -> list[LintHit]:
        """Hits at a use of an integer macro (scan's macro uses): judged as the literal it stands for,
        `WARP_SIZE - 1` as 31 and `WARP_SIZE / 2` as 16, and reported naming the macro."""
        name = self.source[start:end].decode("ascii")
        detail = f"({name} is defined as {self.macro_value(name)[1]})"
        node_type = path.type_at(depth)
        if node_type == "preproc_arg":
            found = self._in_define(path.at(depth), start, end, value)
        elif node_type != "identifier" or path.at(depth).start_byte != start or path.at(depth).end_byte != end:
            return []
        else:
            value, depth = self._derived(path, depth, value)
            found = self._literal_hits(path, depth, value)
        for hit in found:
            hit.fixable, hit.detail = False, detail
        return found

    def _derived(self, path: NodePath, depth: int, value: int) -> tuple[int, int]:
        """(value, depth) of the expression a macro use stands in: `M - 1` or `M / 2` (parenthesized
        or not) when the macro is its left operand, else the macro itself."""
        if path.type_at(depth - 1) != "binary_expression":
            return value, depth
        parent = path.at(depth - 1)
        operator, right = parent.child_by_field_name("operator"), parent.child_by_field_name("right")
        if parent.child_by_field_name("left") != path.at(depth) or operator is None or right is None:
            return value, depth
        amount = int_value(self.text(right)) if right.type == "number_literal" else None
        derived = {("-", 1): value - 1, ("/", 2): value // 2, (">>", 1): value // 2}.get(
            (self.text(operator), amount or 0)
        )
        if amount is None or derived is None:
            return value, depth
        depth -= 1
        while path.type_at(depth - 1) == "parenthesized_expression":
            depth -= 1
        return derived, depth
