"""The scanner finds exactly what plain regex walks over the whole file find, however it gets there."""
from __future__ import annotations

import re
from contextlib import contextmanager

from hypothesis import given, settings
from hypothesis import strategies as st

from hipport.parse import scan as scan_module
from hipport.parse.lines import newline_of
from hipport.parse.scan import INCLUDE, INCLUDE_AFTER_CR, scan

WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


def interesting(name: str) -> bool:
    return name.startswith(("cu", "CU", "__")) or name in {"x", "ab", "b2"}


def walk(source: bytes) -> list[tuple[int, int, str]]:
    """The reference: every identifier match, kept when interesting."""
    return [(m.start(), m.end(), m.group().decode()) for m in WORD.finditer(source)
            if interesting(m.group().decode())]


def include_walk(source: bytes) -> list[tuple]:
    include_re = INCLUDE_AFTER_CR if newline_of(source) == b"\r" else INCLUDE
    return [(m.span(), m.span("line"), m.groups()) for m in include_re.finditer(source)]


# Pieces that trip a search by bytes: names inside longer words, after digits, repeated.
PIECES = ["cudaMalloc", "xcudaMalloc", "cudaMallocx", "0cudaMalloc", "12cudaMalloc", "1.5cudaFree", "a1cuda",
          "_cuda", "cu", "x", "ab", "b2", "2b2", "ab2", "b22", "0x1f", "123", "__sync", "___", "cuda_cuda",
          "\xe9cuda", " ", "\t", "\n", "\r", "\r\n", "(", "::", ".", "/* cudaFree */", "\"cudaFree\"", "#", "# ",
          "#include", "#include <cuda.h>", "  #  include \"a.h\"", "#include <x.h> #include <y.h>", "\xef\xbb\xbf"]
SOURCES = st.lists(st.sampled_from(PIECES), max_size=40).map(lambda ps: "".join(ps).encode("latin-1"))


@given(SOURCES)
@settings(max_examples=500, deadline=None)
def test_scan_finds_what_regex_walks_find(source):
    candidates = scan(source, interesting)
    assert candidates.names == walk(source)
    assert [(m.span(), m.span("line"), m.groups()) for m in candidates.includes] == include_walk(source)


@given(SOURCES, st.integers(min_value=1, max_value=12))
@settings(max_examples=300, deadline=None)
def test_windows_cut_no_identifier(source, window):
    with windows_of(window):
        assert scan(source, interesting).names == walk(source)


def test_the_memo_carries_over_to_the_next_file():
    memo: dict[bytes, str] = {}
    first = b"cudaFree(x); int y = cudaMalloc(ab); 12cudaFree;"
    assert scan(first, interesting, memo=memo).names == walk(first)
    assert memo[b"cudaFree"] == "cudaFree" and memo[b"int"] == "" and memo[b"12cudaFree"] == "cudaFree"
    second = b"int cudaFree; xcudaFree cudaFree 12cudaFree"
    assert scan(second, interesting, memo=memo).names == walk(second)


def test_an_identifier_longer_than_a_window():
    source = b"cu" + b"a" * 50 + b" cudaFree\n" + b"z" * 9 + b"cuda"
    with windows_of(4):
        assert scan(source, interesting).names == walk(source)


@contextmanager
def windows_of(size: int):
    saved = scan_module.WINDOW
    scan_module.WINDOW = size
    try:
        yield
    finally:
        scan_module.WINDOW = saved


def test_integer_constants_reads_defines_and_constants_and_drops_conflicting_names():
    from hipport.parse.scan import integer_constants

    source = (
        b"#define WARP_SIZE (32U)\n"
        b"static constexpr int kWarp = 0x20;\n"
        b"#define TILE 16\n"
        b"#undef TILE\n"
        b"#define TILE 8\n"
        b"#define NOT_A_NUMBER foo\n"
        b"int ordinary = 32;\n"
    )
    found = integer_constants(source)
    assert {name: value for name, (value, _, _) in found.items()} == {"WARP_SIZE": 32, "kWarp": 32}
    assert found["WARP_SIZE"][1] == "32U"
    assert source[: found["kWarp"][2]].endswith(b"kWarp")
