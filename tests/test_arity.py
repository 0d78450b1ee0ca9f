"""rules/generated/arity-*.toml against the installed headers (tools/gen_arity.py), and its rules in use."""
from __future__ import annotations

import importlib.util
import sys

import pytest

from conftest import ROOT
from hipport.engine.port import port_source

_spec = importlib.util.spec_from_file_location("gen_arity", ROOT / "tools" / "gen_arity.py")
gen_arity = importlib.util.module_from_spec(_spec)
sys.modules["gen_arity"] = gen_arity
_spec.loader.exec_module(gen_arity)

GENERATED = ROOT / "rules" / "generated"


def test_arity_rules_are_reproducible_from_the_installed_headers():
    regenerated = gen_arity.generate([], [])
    available = {name: text for name, text in regenerated.items() if text is not None}
    if not available:
        pytest.skip("neither CUDA nor HIP headers are installed here")
    for name, text in available.items():
        assert (GENERATED / name).read_text(encoding="utf-8") == text, f"{name} is stale: run tools/gen_arity.py"
    assert {p.name for p in GENERATED.glob("arity-*.toml")} == set(regenerated)


def test_declarations_count_defaults_and_skip_calls():
    code = gen_arity.code_of_text(
        "cudaError_t cudaX(int a, int b = 0);\n"
        "static inline int cudaY(void) { return cudaX(1, 2); }\n"
        "hipError_t hipX(int a, int b __dparm(0), int c __dparm(1));\n"
        "#define cudaZ(a) cudaX(a)\n"
    )
    found = gen_arity.declarations(code, {"cudaX", "cudaY", "hipX", "cudaZ"})
    assert {d.counts for d in found["cudaX"]} == {range(1, 3)}  # the call inside cudaY is no declaration
    assert {d.counts for d in found["cudaY"]} == {range(0, 1)}
    assert {d.counts for d in found["hipX"]} == {range(1, 4)}
    assert "cudaZ" not in found  # a macro is not a declaration


def test_a_generated_difference_is_a_finding_and_a_hand_written_rule_replaces_it(rules):
    source = (b"#include <cuda_runtime.h>\n"
              b"void f(cudaGraph_t g, cudaGraphNode_t* a, cudaGraphNode_t* b, cudaGraphEdgeData* e) {\n"
              b"  cudaGraphAddDependencies(g, a, b, e, 1);\n"
              b"  cudaGraphAddDependencies(g, a, b, 1);\n"
              b"  cudaEvent_t ev; cudaEventCreate(&ev, cudaEventDisableTiming);\n}\n")
    result = port_source(source, rules)
    assert [(f.code, f.line) for f in result.findings if f.code == "HP106"] == [("HP106", 3)]
    assert b"hipEventCreateWithFlags(&ev, hipEventDisableTiming)" in result.output


def test_a_legacy_cublas_call_keeps_its_name_with_an_error(rules):
    source = (b"#include <cublas.h>\n"
              b"void f(int n, float a, const float* x, float* y, cublasHandle_t h) {\n"
              b"  cublasSaxpy(n, a, x, 1, y, 1);\n"
              b"  cublasSaxpy(h, n, &a, x, 1, y, 1);\n}\n")
    result = port_source(source, rules)
    assert [(f.code, f.line) for f in result.findings if f.code == "HP107"] == [("HP107", 3)]
    assert b"  cublasSaxpy(n, a, x, 1, y, 1);" in result.output
    assert b"  hipblasSaxpy(h, n, &a, x, 1, y, 1);" in result.output
