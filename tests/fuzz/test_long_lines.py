"""One-line files of many megabytes (generated or minified code) port in time linear in their size.

Positions and fingerprints used to decode and hash the whole line once per
finding, which made a 2 MB one-line file take minutes. No timing is asserted:
a quadratic regression shows up as a test that does not finish.
"""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from fuzz_invariants import check_port
from fuzz_strategies import fuzz_rules
from hipport.diagnostics import LineIndex


def _naive_position(source: bytes, offset: int) -> tuple[int, int]:
    line_start = source.rfind(b"\n", 0, offset) + 1
    prefix = source[line_start:offset]
    if line_start == 0 and prefix.startswith(b"\xef\xbb\xbf"):
        prefix = prefix[3:]
    return source.count(b"\n", 0, offset) + 1, len(prefix.decode("utf-8", "replace")) + 1


@settings(max_examples=60, deadline=None)
@given(pieces=st.lists(st.sampled_from([b"a", b"\xc3\xa9", b"\xe2\x82\xac", b"\xff", b"\x80", b"\n", b"\xef\xbb\xbf",
                                        b"x" * 5000]), max_size=40),
       picks=st.lists(st.floats(0, 1), min_size=1, max_size=30))
def test_positions_on_long_lines_match_decoding_the_whole_prefix(pieces, picks):
    source = b"".join(pieces)
    index = LineIndex(source)
    for offset in sorted(int(p * len(source)) for p in picks) + [int(p * len(source)) for p in picks]:
        assert index.position(offset) == _naive_position(source, offset)


def test_a_long_line_with_many_findings():
    unit = b"cudaFooBar(p); \xc3\xa9; x = cudaFree(q); "  # an unmapped name (HP102) and a rename each time
    source = b"void f() { " + unit * 40_000 + b"}\n"  # 1.4 MB on one line, 40,000 findings
    result = check_port(source, fuzz_rules(), idempotent=False)
    assert len(result.findings) >= 40_000
    last = max(result.findings, key=lambda f: f.start)
    assert last.line == 1 and last.column == len(source[:last.start].decode("utf-8")) + 1
