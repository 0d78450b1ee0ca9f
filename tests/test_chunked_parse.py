"""A big file is parsed in pieces (hipport.parse.treesitter.chunks); the pieces must read as the whole does.

Every fixture, the benchmark corpus and its big generated file are classified
twice: whole, and cut into pieces far smaller than real ones (so that every cut
the planner can find is taken). The sites, lint hits, ported bytes and findings
must be the same. The planner must also really cut, and must fall back to one
parse where a cut would not be safe.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

import hipport.parse.treesitter as treesitter
from conftest import CASES, LINT_CASES
from hipport.options import Options
from hipport.parse.scan import scan
from hipport.parse.treesitter import TreeSitterBackend
from hipport.parse.treesitter.chunks import NoSafeCut, chunk_trees
from hipport.engine.port import port_source

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

import corpus  # noqa: E402  (bench/ is scripts, not a package)

WHOLE = TreeSitterBackend(chunk_above=1 << 62)
ALL_CASES = CASES + LINT_CASES
IDS = [c.name for c in CASES] + [f"lints/{c.name}" for c in LINT_CASES]


def pieces_of(chunk_bytes: int) -> TreeSitterBackend:
    """A backend that cuts every file, aiming at pieces of chunk_bytes."""
    return TreeSitterBackend(chunk_above=0, chunk_bytes=chunk_bytes)


@pytest.fixture
def cuts(monkeypatch):
    """Counts the files cut, the pieces made and the files that fell back to one parse."""
    seen = {"files": 0, "pieces": 0, "whole": 0}

    def counting(source, chunk_bytes):
        seen["files"] += 1
        try:
            for piece in chunk_trees(source, chunk_bytes):
                seen["pieces"] += 1
                yield piece
        except NoSafeCut:
            seen["whole"] += 1
            raise

    monkeypatch.setattr(treesitter, "chunk_trees", counting)
    return seen


def _parse(backend: TreeSitterBackend, source: bytes, rules):
    candidates = scan(source, rules.is_interesting, rules.lint_index, {})
    return backend.parse(source, candidates, rules.markers) if candidates else None


@pytest.mark.parametrize("chunk_bytes", [1, 40, 400])
@pytest.mark.parametrize("case", ALL_CASES, ids=IDS)
def test_fixture_reads_the_same_in_pieces(case, chunk_bytes, rules):
    source = case.input.read_bytes()
    assert _parse(pieces_of(chunk_bytes), source, rules) == _parse(WHOLE, source, rules)


@pytest.mark.parametrize("case", ALL_CASES, ids=IDS)
def test_fixture_ports_the_same_in_pieces(case, rules):
    source = case.input.read_bytes()
    whole = port_source(source, rules, case.options(), case.input.name, backend=WHOLE)
    cut = port_source(source, rules, case.options(), case.input.name, backend=pieces_of(40))
    assert cut.output == whole.output
    assert [(f.code, f.line, f.column, f.message) for f in cut.findings] == \
        [(f.code, f.line, f.column, f.message) for f in whole.findings]


def test_fixtures_are_really_cut(rules, cuts):
    for case in ALL_CASES:
        _parse(pieces_of(40), case.input.read_bytes(), rules)
    assert cuts["pieces"] > 2 * cuts["files"]
    assert cuts["whole"] < cuts["files"] // 10  # the cases with syntax errors


def _one_line(source: bytes) -> bytes:
    """The code of source on one line, as bench/memory.py's single-line shape: no line starts to cut at."""
    lines = source.splitlines()
    return b" ".join(re.sub(rb"//.*", b"", line) for line in lines if not line.lstrip().startswith(b"#"))


def test_bench_corpus_reads_the_same_in_pieces(tmp_path, rules, cuts):
    generated = corpus.generate(tmp_path / "corpus", 60, seed=11)
    for path in generated.sources():
        for chunk_bytes in (50, 700):
            assert _parse(pieces_of(chunk_bytes), path.read_bytes(), rules) == \
                _parse(WHOLE, path.read_bytes(), rules), path
    assert cuts["whole"] == 0  # generated code has no syntax errors: every file could be cut
    assert cuts["pieces"] > 5 * cuts["files"]


def test_bench_corpus_on_one_line_reads_the_same_in_pieces(tmp_path, rules, cuts):
    generated = corpus.generate(tmp_path / "corpus", 60, seed=11)
    for path in generated.sources():
        source = _one_line(path.read_bytes())  # with its #defines gone, some of it no longer parses
        assert _parse(pieces_of(200), source, rules) == _parse(WHOLE, source, rules), path
    assert cuts["pieces"] > 5 * cuts["files"] and cuts["whole"] < cuts["files"] // 5


def test_big_generated_file_is_cut_and_ports_the_same(tmp_path, rules, cuts):
    path = tmp_path / "big.cu"
    corpus.big_file(path, 0.3, seed=5)  # inside one namespace: cut inside it
    source = path.read_bytes()
    whole = port_source(source, rules, Options(), "big.cu", backend=WHOLE)
    cut = port_source(source, rules, Options(), "big.cu", backend=pieces_of(20_000))
    assert cuts == {"files": 1, "pieces": pytest.approx(15, abs=5), "whole": 0}
    assert cut.output == whole.output and cut.edits == whole.edits
    assert [(f.code, f.line, f.message) for f in cut.findings] == [(f.code, f.line, f.message) for f in whole.findings]


GUARDED = b"""// a header
#ifndef KERNELS_CUH
#define KERNELS_CUH
#include <cuda_runtime.h>
namespace k {
__global__ void a(float* p) { p[threadIdx.x] = 0; }
#if defined(USE_BLAS)
#include <cublas_v2.h>
inline void b(cublasHandle_t h) { cublasDestroy(h); }
#else
#include <cuda.h>
#endif
void c(cudaStream_t s) { cudaStreamSynchronize(s); }
extern "C" {
void d(void* q) { cudaFree(q); }
}
}  // namespace k
#endif  // KERNELS_CUH
"""


def test_cut_inside_include_guard_namespace_and_extern_c_keeps_include_scopes(rules, cuts):
    whole = _parse(WHOLE, GUARDED, rules)
    cut = _parse(pieces_of(1), GUARDED, rules)
    assert cut == whole
    # The guard is no condition; the #else branch is its own.
    assert [site.scope for site in whole.includes] == [(), (GUARDED.index(b"#if defined"),),
                                                       (GUARDED.index(b"#else"),)]
    assert cuts["pieces"] >= 4 and cuts["whole"] == 0


@pytest.mark.parametrize("source", [
    b"void f() { cudaFree(p); }\nint x = ;\nvoid g() { cudaMalloc(&p, 4); }\n" * 3,
    b"namespace a {\nvoid f() { cudaFree(p); }\n",  # never closed
    b"/* cudaFree\n" + b"void f() { cudaMalloc(&p, 4); }\n" * 5,  # a comment to the end
    b"#if A\nvoid f() { cudaFree(p); }\n" * 4,  # #ifs never closed
], ids=["syntax-error", "open-namespace", "open-comment", "open-ifs"])
def test_a_file_with_no_safe_cut_is_parsed_whole(source, rules, cuts):
    assert _parse(pieces_of(20), source, rules) == _parse(WHOLE, source, rules)
    assert cuts["whole"] == 1


CALLS = b"cudaMalloc(&p,n);cudaFree(p);" * 40


@pytest.mark.parametrize("source", [
    b"void f(void*p,int n){" + CALLS + b"}\n",  # issue 22: one huge function on one line
    b"__global__ void k(float*p){" + CALLS + b"}\nvoid g(){" + CALLS + b"}\n",
    # a local hiding a CUDA name inside a block that closes within a piece
    b"void f(void*p,int n){" + CALLS + b"{int cudaFree=0;cudaFree+1;}" + CALLS + b"}\n",
    b"void f(void*p,int n){" + CALLS + b"if(n){cudaFree(p);}else{cudaMalloc(&p,n);}" + CALLS + b"}\n",
], ids=["one-function", "two-functions", "local-in-inner-block", "if-else"])
def test_a_huge_function_is_cut_between_its_statements(source, rules, cuts):
    assert _parse(pieces_of(100), source, rules) == _parse(WHOLE, source, rules)
    assert cuts["whole"] == 0 and cuts["pieces"] > 5
    whole = port_source(source, rules, Options(), "f.cu", backend=WHOLE)
    cut = port_source(source, rules, Options(), "f.cu", backend=pieces_of(100))
    assert cut.output == whole.output and cut.edits == whole.edits


@pytest.mark.parametrize("source", [
    # a local declared before a cut hides cudaFree after it, to the function's real end
    b"void f(void*p,int n){int cudaFree=0;" + CALLS + b"}\nvoid g(void*p){cudaFree(p);}\n",
    # so does a parameter
    b"void f(void*p,int cudaStream_t){" + CALLS + b"cudaStream_t+1;}\ncudaStream_t s;\n",
], ids=["local", "parameter"])
def test_a_function_whose_local_hides_a_name_is_parsed_whole(source, rules, cuts, monkeypatch):
    # The piece after the cut sees the function close on borrowed text, so a local's reach
    # would end there: parse.treesitter.scopes gives up on the pieces and the file is parsed whole.
    results = []
    in_chunks = treesitter._parse_in_chunks
    monkeypatch.setattr(treesitter, "_parse_in_chunks", lambda *a: results.append(in_chunks(*a)) or results[-1])
    assert _parse(pieces_of(100), source, rules) == _parse(WHOLE, source, rules)
    assert results == [None]
