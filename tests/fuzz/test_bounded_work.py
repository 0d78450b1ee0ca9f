"""Guarantee 3, time: the tree lookups do work linear in the input on the shapes that were quadratic.

Not timed: NodePath counts its work (children a search in C may pass, nodes it
records, ancestors it climbs), with count_scans on so that a search from a node
is charged all of that node's children. Each shape is ported at n and 4n; linear
work grows about 4 times, quadratic work 16 times. The old lookups (every
candidate searched from the root, every parent found by node.parent) fail
these: a file of comments that each mention a CUDA name, a wide root, and
thousands of nesting levels with a name at every level.

A second test reads the classifier's source: it must not ask tree-sitter for a
parent or search from the root itself, which no work count would see.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from fuzz_invariants import check_port
from fuzz_strategies import fuzz_rules
from hipport.options import Options
from hipport.parse.treesitter import tree_path

PARSE = Path(tree_path.__file__).parent
GROWTH_LIMIT = 6.0  # allowed work(4n) / work(n): linear is about 4, quadratic 16


def _comments(n: int) -> bytes:
    return b"".join(b"// cudaMalloc %d\n" % i for i in range(n))


def _wide_root(n: int) -> bytes:
    return b"".join(b"cudaStream_t s%d; /* cudaFree */\n" % i for i in range(n))


def _deep_blocks(n: int) -> bytes:
    return b"void f(float* p) {\n" + b"{ cudaFree(p);\n" * n + b"}" * n + b"}\n"


def _deep_calls(n: int) -> bytes:
    return b"void f() { x = " + b"g(cudaSuccess, " * n + b"0" + b")" * n + b"; }\n"


def _deep_namespaces(n: int) -> bytes:
    # A function definition at every level: _inside_function_body climbs from each one.
    return b"".join(b"namespace n%d { void cudaFoo%d(); __global__ void k() { cudaFree(0); }\n" % (i, i)
                    for i in range(n)) + b"}" * n + b"\n"


def _scoped_lookalikes(n: int) -> bytes:
    # Every level declares lookalikes (a namespace member, a class member, a local) and uses them:
    # deciding which use they hide must not climb the levels again for each use.
    return b"".join(b"namespace n%d { void cudaFree(void*); struct S { void f() { cudaMalloc(0, 1); }\n"
                    b"static int cudaMalloc(void**, int); void h(); };\nvoid S::h() { cudaMalloc(0, 1); }\n"
                    b"void g() { int cudaSuccess = 0; cudaFree(0); }\n"
                    % i for i in range(n)) + b"}" * n + b"\nvoid h() { cudaFree(0); cudaMalloc(0, 1); }\n"


def _deep_ifs(n: int) -> bytes:
    return b"#if A\ncudaError_t e;\n" * n + b"#endif\n" * n


def _wide_declaration(n: int) -> bytes:
    # Every declarator is a candidate: finding its field must not rescan the declaration.
    return b"int " + b", ".join(b"cudaMalloc" for _ in range(n)) + b";\n"


def _launches(n: int) -> bytes:
    return b"__global__ void k(int);\nvoid f() {\n" + b"k<<<1, 1>>>(cudaSuccess);\n" * n + b"}\n"


def _deep_launches(n: int) -> bytes:
    # Each launch asks whether it is in device code: the climb to the function must be remembered.
    return b"__global__ void k(int) {\n" + b"{ k<<<1, 1>>>(cudaSuccess);\n" * n + b"}" * n + b"}\n"


def _literals(n: int) -> bytes:
    return b"__global__ void k() {\n" + b"int lane = threadIdx.x % 32;\n" * n + b"}\n"


SHAPES = {
    "comments-only": (_comments, 2000),
    "wide-root": (_wide_root, 2000),
    "deep-blocks": (_deep_blocks, 1250),
    "deep-call-arguments": (_deep_calls, 1250),
    "deep-namespaces": (_deep_namespaces, 500),
    "scoped-lookalikes": (_scoped_lookalikes, 500),
    "deep-ifs": (_deep_ifs, 1250),
    "wide-declaration": (_wide_declaration, 2000),
    "launches": (_launches, 1000),
    "deep-launches": (_deep_launches, 1000),
    "literals": (_literals, 1000),
}


@pytest.fixture
def work(monkeypatch):
    """Ports a source and returns the work its NodePaths did."""
    paths = []
    original_init = tree_path.NodePath.__init__

    def recording_init(self, root):
        original_init(self, root)
        paths.append(self)

    monkeypatch.setattr(tree_path.NodePath, "__init__", recording_init)
    monkeypatch.setattr(tree_path.NodePath, "count_scans", True)

    def measure(source: bytes) -> int:
        paths.clear()
        check_port(source, fuzz_rules(), Options(launch_syntax="hip"), idempotent=False)
        assert paths, "the tree was never searched"
        return sum(path.steps for path in paths)

    return measure


@pytest.mark.parametrize("shape", SHAPES)
def test_tree_lookups_do_linear_work(shape, work):
    make, n = SHAPES[shape]
    small, large = work(make(n)), work(make(4 * n))
    assert large <= GROWTH_LIMIT * small, f"{shape}: work {small} at n={n}, {large} at 4n"


def test_the_work_count_sees_a_quadratic_lookup(work, monkeypatch):
    """The test above can fail: with the bisection of wide nodes switched off, every search from
    the root scans its children again, and the comments-only shape grows quadratically."""
    monkeypatch.setattr(tree_path, "RESCAN_LIMIT", 10**9)
    small, large = work(_comments(2000)), work(_comments(8000))
    assert large > 12 * small


# What the classifier may not call on a tree-sitter node: each searches again from the root
# (parent, siblings) or from the node it is called on, so the path must answer instead.
FORBIDDEN = {"parent", "prev_sibling", "next_sibling", "prev_named_sibling", "next_named_sibling",
             "descendant_for_byte_range", "named_descendant_for_byte_range", "first_child_for_byte"}


@pytest.mark.parametrize("module", ["__init__.py", "names.py", "places.py", "lints/match.py",
                                    "lints/context.py"])
def test_classifier_asks_the_path_not_the_tree(module):
    tree = ast.parse((PARSE / module).read_text(encoding="utf-8"))
    used = sorted({node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)} & FORBIDDEN)
    assert used == [], f"{module} uses {used}: get ancestors and lookups from NodePath"
