"""Fuzz the piecewise parse of big files: cut into tiny pieces, a file must read as it does whole.

The same grammar-aware sources as test_fuzz_port.py, each classified whole and
in pieces of a few bytes (hipport.parse.treesitter.chunks), where every cut the planner
can find is taken; or, where none is safe, the file falls back to one parse.
The sites and lint hits must be equal either way.
"""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzz_strategies import cuda_programs, cuda_sources, fuzz_rules
from hipport.parse.scan import scan
from hipport.parse.treesitter import TreeSitterBackend
from test_fuzz_port import SMOKE

pytestmark = pytest.mark.filterwarnings("ignore:Generating overly large repr")

WHOLE = TreeSitterBackend(chunk_above=1 << 62)


@SMOKE
@given(source=st.one_of(cuda_programs(), cuda_sources()), chunk_bytes=st.sampled_from([1, 16, 120]))
def test_pieces_read_as_the_whole_file(source, chunk_bytes):
    rules = fuzz_rules()
    candidates = scan(source, rules.is_interesting, rules.lint_index, {})
    if not candidates:
        return
    cut = TreeSitterBackend(chunk_above=0, chunk_bytes=chunk_bytes).parse(source, candidates, rules.markers)
    assert cut == WHOLE.parse(source, candidates, rules.markers)
