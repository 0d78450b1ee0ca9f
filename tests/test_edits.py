"""Ordering edits: sorted, duplicates collapsed, and each overlap with an earlier kept edit rejected."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hipport.diagnostics import Edit
from hipport.engine.edits import apply_edits, order_edits


def reference(edits: list[Edit]) -> tuple[list[Edit], list[Edit]]:
    """The rule spelled out, edit by edit."""
    ordered, rejected = [], []
    for edit in sorted(set(edits), key=lambda e: (e.start, e.end, e.text)):
        kept = ordered[-1] if ordered else None
        overlaps = any(edit.start < other.end for other in ordered) or (
            kept is not None and edit.start == kept.start and edit.end > edit.start and kept.end > kept.start)
        (rejected if overlaps else ordered).append(edit)
    return ordered, rejected


EDITS = st.lists(st.builds(lambda start, length, text: Edit(start, start + length, text),
                           st.integers(0, 12), st.integers(0, 3), st.sampled_from([b"", b"x", b"yy"])), max_size=12)


@given(EDITS)
@settings(max_examples=500, deadline=None)
def test_order_edits_follows_the_rule(edits):
    assert order_edits(edits) == reference(edits)


def test_an_insertion_goes_before_a_replacement_at_the_same_offset():
    ordered, rejected = order_edits([Edit(2, 4, b"XY"), Edit(2, 2, b"#"), Edit(2, 4, b"XY"), Edit(3, 5, b"z")])
    assert ordered == [Edit(2, 2, b"#"), Edit(2, 4, b"XY")] and rejected == [Edit(3, 5, b"z")]
    assert apply_edits(b"abcdef", ordered) == b"ab#XYef"
