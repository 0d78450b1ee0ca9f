"""Parse a big file in pieces, so that only one piece's syntax tree is in memory.

tree-sitter's tree takes some 30 times the size of the file. Above CHUNK_ABOVE
bytes the file is cut into pieces of about CHUNK_BYTES, each parsed on its own
with the parser's included ranges, which keep every node at its byte offset in
the whole file.

A cut is safe only where the pieces read as the whole file does. Cuts go
between two complete items (declarations, definitions, directives) of the file,
or of a namespace, `extern "C"` block, #ifdef or #if that encloses them, or between
the statements of a function's body (a local whose reach crosses such a cut makes
scopes.py fall back to one parse: the piece sees the function close early). A piece
inside such a block is parsed together with the block's opening text (where it
is in the file) and a closing `}` or `#endif` (borrowed from later in the file),
so it has the same enclosing nodes as in the whole tree; a piece is used only if
that parse has no syntax error and the blocks it is inside close where the
borrowed text closes them. Where no such cut exists (a syntax error, one huge
function with locals) the caller parses the file whole.

Most pieces are found with one parse: the window up to a likely cut (a line
that starts an item where the previous piece's items started) is parsed, and if
it reads cleanly, it is the piece. If not, the window is parsed again with
spare closing braces after it, its tree shows where the last complete item in
the window starts, and the piece up to there is parsed once more.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator
from typing import Any
from functools import lru_cache

CHUNK_ABOVE = 4_000_000  # files larger than this are parsed in pieces
CHUNK_BYTES = 1_000_000  # the size of a piece to aim for
SPARE_BRACES = 16  # closing braces lent to a window to close what it cuts through

_ENDIF = re.compile(rb"#[ \t]*endif")
_STATEMENT_END = re.compile(rb"\n|[;}]")
# In a file with few line breaks: a `}` and then a word that starts definitions, not statements.
_ITEM_AFTER_BRACE = re.compile(
    rb"\}[ \t]*(?=(?:template|__global__|__device__|__host__|static|inline|namespace|extern|struct|class"
    rb"|typedef|using|void)\b)"
)


class NoSafeCut(Exception):
    """The file cannot be cut safely here: parse it whole."""


@lru_cache(maxsize=1)
def _parser():
    # Its own parser: included ranges are set per piece and must not leak into whole-file parses.
    import tree_sitter
    import tree_sitter_cuda

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_cuda.language()))


class _Block:
    """A namespace, extern "C" block, function body, #ifdef or #if that pieces of the file are cut inside.

    A plain class, not a dataclass: every `hipport check` imports this module (for CHUNK_ABOVE),
    and a frozen dataclass with slots compiles its generated methods and builds its class twice
    at each start; nothing compares or hashes blocks.
    """

    __slots__ = ("start", "opened", "closer")

    def __init__(self, start: int, opened: int, closer: bytes) -> None:
        self.start = start  # where its opening text starts ...
        self.opened = opened  # ... and ends: `namespace x {`, or the `#ifdef X` line with its newline
        self.closer = closer  # b"}" or b"#endif"


def chunk_trees(source: bytes, chunk_bytes: int) -> Iterator[tuple[Any, int, int]]:
    """(tree, start, end) for consecutive pieces [start, end) covering source.

    Each tree is only valid until the next one is asked for. Raises NoSafeCut
    when no safe cut is found; the caller then parses the file whole.
    """
    planner = _Planner(source, max(chunk_bytes, 1))
    pos, blocks = 0, ()
    while pos < len(source):
        tree, end, blocks = planner.next_piece(pos, blocks)
        yield tree, pos, end
        del tree
        pos = end


class _Planner:
    def __init__(self, source: bytes, chunk_bytes: int) -> None:
        self.source = source
        self.chunk_bytes = chunk_bytes
        self.indent = b""  # the leading white space of the items last cut between
        self._lines = _LineCounter(source)

    def next_piece(self, pos: int, blocks: tuple[_Block, ...]):
        """The tree of the piece starting at pos inside blocks, its end, and the blocks open there."""
        size = self.chunk_bytes
        while True:
            if len(self.source) - pos <= size + size // 2:
                tree = self._parse(blocks, pos, len(self.source), ())
                if tree is None or tree.root_node.has_error:
                    raise NoSafeCut
                return tree, len(self.source), ()
            window_end, at_item = self._likely_cut(pos + size, pos + 2 * size)
            # Most often the window is the piece itself; never the first piece, which must hold
            # the file's first item and, in an include guard, the guard's #define.
            if at_item and pos > 0 and not self._unsafe_to_end(pos, window_end):
                tree = self._parse(blocks, pos, window_end, blocks)
                if (
                    tree is not None
                    and not tree.root_node.has_error
                    and _blocks_close_after(tree.root_node, blocks, window_end)
                ):
                    return tree, window_end, blocks
                del tree
            # Spare closing braces close what the window leaves open (the function it cuts
            # through, namespaces it opens), so that the items before stay intact.
            tree = self._parse(blocks, pos, window_end, blocks, spare_braces=SPARE_BRACES)
            cut = self._last_cut(tree, pos, window_end) if tree is not None else None
            del tree
            if cut is not None:
                end, open_blocks = cut
                tree = self._parse(blocks, pos, end, open_blocks)
                if (
                    tree is not None
                    and not tree.root_node.has_error
                    and _blocks_close_after(tree.root_node, open_blocks, end)
                ):
                    return tree, end, open_blocks
                del tree  # error recovery made the window look complete where it was not
            size *= 2  # one item is bigger than the window, or the window misled

    def _likely_cut(self, offset: int, limit: int) -> tuple[int, bool]:
        """Where to end the window that starts a piece, and whether that is where an item seems to
        start: a line start in [offset, limit) with a name at the items' indent, or (in a file of
        few lines) a `}` before a word like `template`. Failing that, the first line start, `;` or
        `}` after offset, where a syntax error at the window's end disturbs the tree the least."""
        source = self.source
        found = re.compile(rb"\n(?=" + re.escape(self.indent) + rb"[A-Za-z_])").search(
            source, offset, limit
        ) or _ITEM_AFTER_BRACE.search(source, offset, limit)
        if found is not None:
            return found.end(), True
        found = _STATEMENT_END.search(source, offset, limit)
        return (found.end() if found is not None else offset), False

    def _unsafe_to_end(self, pos: int, offset: int) -> bool:
        """Whether a window ending at offset could parse cleanly and still end inside something:
        a // comment, or a line continued by a backslash. Strings, block comments and directives
        cut short are syntax errors. Looked for from pos on, the start of an item."""
        source = self.source
        if offset > pos and source[offset - 1] == 0x0A and _ends_in_backslash(source, pos, offset - 1):
            return True
        line_start = source.rfind(b"\n", pos, offset) + 1
        while line_start > pos and _ends_in_backslash(source, pos, line_start - 1):
            line_start = source.rfind(b"\n", pos, line_start - 1) + 1  # a continued line goes on
        return source.find(b"//", max(line_start, pos), offset) >= 0

    def _parse(
        self, blocks: tuple[_Block, ...], start: int, end: int, closing: tuple[_Block, ...], spare_braces: int = 0
    ):
        """Parse source[start:end] inside blocks (their opening text, where it is in the file) and
        closed by spare_braces `}` and the closers of closing, innermost first, borrowed from after end."""
        spans = [(b.start, b.opened) for b in blocks if b.opened <= start]
        spans.append((start, end))
        after = end
        for closer in [b"}"] * spare_braces + [block.closer for block in reversed(closing)]:
            span = _find_closer(self.source, closer, after)
            if span is None:
                if spare_braces:
                    spare_braces -= 1
                    continue
                return None
            spans.append(span)
            after = span[1]
        parser = _parser()
        parser.included_ranges = self._ranges(_merge(spans))
        return parser.parse(self.source)

    def _ranges(self, spans):
        import tree_sitter

        return [tree_sitter.Range(self._lines.point(a), self._lines.point(b), a, b) for a, b in spans]

    def _last_cut(self, tree, pos: int, window_end: int):
        """(cut, blocks open at the cut): the latest start of an item in the window such that
        everything before it reads cleanly, or None. Raises NoSafeCut at a syntax error."""
        best = None
        container, item_start, opened_before = tree.root_node, 0, pos > 0
        if container.type != "translation_unit":
            return None  # error recovery gave up on the whole window
        open_blocks: list[_Block] = []
        while True:
            children = container.children
            starts = [c.start_byte for c in children]
            last = bisect_left(starts, window_end) - 1  # the item the window cuts through
            if last < 0:
                break
            broken = next((i for i in range(last) if children[i].has_error), None)
            at = last if broken is None else broken
            item = children[at]
            earlier = opened_before or any(
                c.is_named and c.type != "comment" and c.start_byte >= item_start for c in children[:at]
            )
            # Never before a block's first item: the include guard is recognised by it.
            if item.start_byte > pos and earlier:
                best = (item.start_byte, tuple(open_blocks))
            if broken is not None:
                if best is None and any(
                    c.is_named and c.type != "comment" and not c.has_error for c in children[broken + 1 : last]
                ):
                    raise NoSafeCut  # the parse went on cleanly after the error: a real syntax error
                break
            block = _block(item, self.source)
            if (
                block is None
                or block.opened > window_end
                or any(c.has_error for c in item.children if c.start_byte < block.opened)
            ):
                break
            open_blocks.append(block)
            container = item.child_by_field_name("body") if block.closer == b"}" else item
            item_start, opened_before = block.opened, block.opened <= pos
        if best is not None:
            line_start = self.source.rfind(b"\n", 0, best[0]) + 1
            indent = self.source[line_start : best[0]]
            self.indent = indent if not indent.strip() else b""
        return best


def _block(node, source: bytes) -> _Block | None:
    """node as a block whose items pieces may be cut between, or None."""
    kind = node.type
    if kind in ("namespace_definition", "linkage_specification"):
        body = node.child_by_field_name("body")
        if body is None or body.type != "declaration_list":
            return None
        return _Block(node.start_byte, body.start_byte + 1, b"}")
    if kind == "function_definition":
        # Between a function's statements: the pieces of one huge function (a generated file,
        # issue 22). Its locals are scoped to the function, which a piece cut inside it sees
        # closing on borrowed text; scopes.py falls back to one parse if one hides a name.
        body = node.child_by_field_name("body")
        if body is None or body.type != "compound_statement":
            return None
        return _Block(node.start_byte, body.start_byte + 1, b"}")
    if kind in ("preproc_ifdef", "preproc_if"):
        head = node.child_by_field_name("name" if kind == "preproc_ifdef" else "condition")
        if head is None:
            return None
        newline = source.find(b"\n", head.end_byte)
        if newline < 0:
            return None
        return _Block(node.start_byte, newline + 1, b"#endif")
    return None


def _blocks_close_after(root, blocks: tuple[_Block, ...], end: int) -> bool:
    """Each of blocks is in the tree, nested in that order, and closes after end (on borrowed text)."""
    container = root
    cursor = root.walk()
    for block in blocks:
        # Not Node.first_child_for_byte: py-tree-sitter 0.26 crashes when no child is found.
        cursor.reset(container)
        if cursor.goto_first_child_for_byte(block.start) is None:
            return False
        node = cursor.node
        if node.start_byte != block.start or node.end_byte <= end:
            return False
        container = node.child_by_field_name("body") if block.closer == b"}" else node
        if container is None:
            return False
    return True


def _find_closer(source: bytes, closer: bytes, after: int) -> tuple[int, int] | None:
    if closer == b"}":
        at = source.find(b"}", after)
        return (at, at + 1) if at >= 0 else None
    found = _ENDIF.search(source, after)
    return found.span() if found is not None else None


def _ends_in_backslash(source: bytes, start: int, newline: int) -> bool:
    """The line ending at newline (after start) ends in a backslash, before any \\r."""
    while newline > start and source[newline - 1] == 0x0D:
        newline -= 1
    return newline > start and source[newline - 1] == 0x5C


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for a, b in spans:
        if merged and merged[-1][1] == a:
            merged[-1] = (merged[-1][0], b)
        else:
            merged.append((a, b))
    return merged


class _LineCounter:
    """Row and column of byte offsets, counted from the nearest offset already counted, so that
    asking for each piece's offsets (its blocks' openings far back, closers ahead) costs about
    the bytes between them, not the bytes from the start of the file."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        self.offsets = [0]  # sorted; with the row and the start of the line of each
        self.rows = [0]
        self.line_starts = [0]

    def point(self, offset: int):
        import tree_sitter

        i = bisect_left(self.offsets, offset)
        if i < len(self.offsets) and self.offsets[i] == offset:
            return tree_sitter.Point(self.rows[i], offset - self.line_starts[i])
        known, source = self.offsets[i - 1], self.source
        row = self.rows[i - 1] + source.count(b"\n", known, offset)
        newline = source.rfind(b"\n", known, offset)
        line_start = newline + 1 if newline >= 0 else self.line_starts[i - 1]
        self.offsets.insert(i, offset)
        self.rows.insert(i, row)
        self.line_starts.insert(i, line_start)
        return tree_sitter.Point(row, offset - line_start)
