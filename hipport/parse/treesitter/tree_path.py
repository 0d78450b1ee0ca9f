"""Find the tree node at each of a series of byte ranges, in one forward walk.

The classifier asks "which node is at this candidate, and what encloses it?"
for candidates sorted by offset. Asking the root each time
(descendant_for_byte_range, node.parent) is quadratic on two shapes: a wide node
(a file of 100,000 comments: every lookup scans the root's children from the
first) and deep nesting (every lookup and every node.parent starts again at the
root). NodePath instead keeps the path from the root to the last node found and
moves it forward: it climbs only out of the nodes that end before the next
range, asks the deepest node left on the path (tree-sitter's own search, in C)
for the rest, records the nodes between, and hands out ancestors from the path,
so parents cost nothing.

A search from a node scans its children from the first one. A node searched
from more than RESCAN_LIMIT times has its children listed once and is searched
by bisection after that, so the scans cost at most RESCAN_LIMIT times the
number of nodes. Below that node the search is in new ground: every other node
is scanned once. The work is linear in the size of the tree plus the number of
lookups; `steps` counts it (children a scan may pass, nodes recorded), so tests
can check that.
"""

from __future__ import annotations

from bisect import bisect_left

# Searches from one node before its children are listed for bisection: listing
# costs Python work per child, a search from the first child costs C work.
RESCAN_LIMIT = 8

# What a frame holds, by index: frames[d] = [node, end byte, start byte, type, index among the
# parent's children, searches started from it, (children, their end bytes) once listed, the
# children's field names once asked for on a listed node, nearest()'s answers]. End, start,
# type and index are read from tree-sitter when first needed (None until then).
NODE, END, START, TYPE, INDEX, SEARCHES, LISTED, FIELDS, NEAREST = range(9)


class NodePath:
    """The path from the root to the node last found by seek(); frames[0] is the root's."""

    __slots__ = ("frames", "_cursor", "steps")
    # Tests set this to also count, before each search in C, the children it may scan.
    count_scans = False

    def __init__(self, root) -> None:
        self.frames = [[root, root.end_byte, root.start_byte, None, 0, 0, None, None, None]]
        self._cursor = root.walk()
        self.steps = 0  # the work done, in children scanned past and nodes recorded: for tests

    # -- moving ----------------------------------------------------------------

    def seek(self, start: int, end: int):
        """The node tree-sitter's descendant_for_byte_range(start, end) gives, start < end.

        Ranges must come in increasing order of start and must not overlap.
        """
        # Frame fields by number, not by their names: this runs once per candidate.
        frames = self.frames
        top = frames[-1]
        top_end = top[1]
        if top_end is None:
            top_end = top[1] = top[0].end_byte
        if top_end < end:  # climb out of the nodes that end before the range
            keep = len(frames) - 2
            while keep > 0:
                frame = frames[keep]
                frame_end = frame[1]
                if frame_end is None:
                    frame_end = frame[1] = frame[0].end_byte
                if frame_end >= end:
                    break
                keep -= 1
            del frames[keep + 1 :]
            top = frames[-1]
        node = top[0]
        listed = top[6]
        if listed is None:
            top[5] += 1
            if top[5] > RESCAN_LIMIT:
                listed = self._list_children(top)
            elif self.count_scans:
                self.steps += node.child_count  # what the search below may scan
        if listed is not None:  # a wide node: bisect for the child instead of scanning
            children, ends = listed
            i = bisect_left(ends, end)
            self.steps += 1
            if i == len(ends):
                return node
            child = children[i]
            child_start = child.start_byte
            if child_start > start:
                return node
            frames.append([child, ends[i], child_start, None, i, 0, None, None, None])
            node = child
        found = node.descendant_for_byte_range(start, end)
        recorded = len(frames)
        # Record the nodes down to found: a node's child_with_descendant is the child on the way
        # (found itself last), and found's own is None. found is node when nothing is deeper.
        node = node.child_with_descendant(found)
        while node is not None:
            frames.append([node, None, None, None, None, 0, None, None, None])
            node = node.child_with_descendant(found)
        self.steps += len(frames) - recorded + 1
        return found

    def _list_children(self, frame):
        children = frame[NODE].children
        listed = frame[LISTED] = (children, [c.end_byte for c in children])
        self.steps += len(children)
        return listed

    # -- looking up ------------------------------------------------------------

    @property
    def depth(self) -> int:
        """The depth of the node last found."""
        return len(self.frames) - 1

    def at(self, depth: int):
        """The node at depth on the path, or None above the root."""
        return self.frames[depth][NODE] if depth >= 0 else None

    def type_at(self, depth: int) -> str:
        """The type of the node at depth; "" above the root. Read from tree-sitter once."""
        if depth < 0:
            return ""
        frame = self.frames[depth]
        known = frame[TYPE]
        if known is None:
            known = frame[TYPE] = frame[NODE].type
        return known

    def span_at(self, depth: int) -> tuple[int, int]:
        """(start, end) of the node at depth."""
        frame = self.frames[depth]
        if frame[START] is None:
            frame[START], frame[END] = frame[NODE].byte_range
        elif frame[END] is None:
            frame[END] = frame[NODE].end_byte
        return frame[START], frame[END]

    def index_at(self, depth: int) -> int:
        """The position of the node at depth among its parent's children."""
        frame = self.frames[depth]
        if frame[INDEX] is None:
            parent = self.frames[depth - 1]
            end = self.span_at(depth)[1]
            if parent[LISTED] is None:
                parent[SEARCHES] += 1
                if parent[SEARCHES] > RESCAN_LIMIT:
                    self._list_children(parent)
            if parent[LISTED] is not None:  # the index is where its end is in the list
                frame[INDEX] = bisect_left(parent[LISTED][1], end)
                self.steps += 1
            else:
                # Path nodes are never empty, so the first child ending at or after this one's
                # end is this one.
                cursor = self._cursor
                cursor.reset(parent[NODE])
                frame[INDEX] = cursor.goto_first_child_for_byte(end - 1)
                self.steps += frame[INDEX] + 1
        return frame[INDEX]

    def field_at(self, depth: int) -> str | None:
        """The field name the node at depth has in its parent (declarator, body, ...)."""
        if depth <= 0:
            return None
        index = self.index_at(depth)
        parent = self.frames[depth - 1]
        if parent[LISTED] is None:
            self.steps += index + 1
            return parent[NODE].field_name_for_child(index)  # scans from the first child
        if parent[FIELDS] is None:
            parent[FIELDS] = self._field_names(parent[NODE])
        return parent[FIELDS][index]

    def _field_names(self, node) -> list[str | None]:
        """Each child's field name, in one pass."""
        cursor = self._cursor
        cursor.reset(node)
        names = []
        if cursor.goto_first_child():
            names.append(cursor.field_name)
            while cursor.goto_next_sibling():
                names.append(cursor.field_name)
        self.steps += len(names)
        return names

    def previous_sibling_type(self, depth: int) -> str | None:
        """The type of the node before the one at depth among its parent's children."""
        if depth == 0:
            return None
        index = self.index_at(depth)
        if index == 0:
            return None
        self.steps += index
        return self.frames[depth - 1][NODE].child(index - 1).type

    def nearest(self, types: frozenset[str], depth: int) -> int:
        """The depth of the closest node at or above depth whose type is in types, or -1.

        Remembered on every node it passes, so repeated questions from deeper
        nodes stop where an earlier answer is known: deep nesting stays linear.
        """
        frames = self.frames
        passed = []
        found = -1
        d = depth
        while d >= 0:
            frame = frames[d]
            known = frame[NEAREST]
            if known is not None and types in known:
                found = known[types]
                break
            passed.append(frame)
            kind = frame[TYPE]
            if kind is None:
                kind = frame[TYPE] = frame[NODE].type
            if kind in types:
                found = d
                break
            d -= 1
        self.steps += len(passed)
        for frame in passed:
            if frame[NEAREST] is None:
                frame[NEAREST] = {}
            frame[NEAREST][types] = found
        return found
