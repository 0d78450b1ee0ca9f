"""HIP semantic differences and the report's verdict: the parts fixtures do not pin down."""
from __future__ import annotations

from hipport.emit.verdict import verdict
from hipport.engine.collapse import collapsing_types
from hipport.engine.port import port_source
from hipport.options import Options

TARGET = Options(hip_version=(5, 2, 0))


def codes(source: str, rules) -> list[str]:
    return [f"{f.code}:{f.line}" for f in port_source(source.encode(), rules, TARGET).findings]


def test_the_error_types_collapse_and_distinct_types_do_not(rules):
    collapsing = collapsing_types(rules, False)
    assert collapsing["cudaError_t"] == collapsing["CUresult"] == "hipError_t"
    assert "cudaStream_t" not in collapsing or collapsing["cudaStream_t"] != collapsing.get("cudaEvent_t")


def test_a_verdict_follows_the_worst_finding():
    error = {"code": "HP101", "severity": "error"}
    warning = {"code": "HP102", "severity": "warning"}
    needs = {"code": "HP436", "severity": "info", "library": "hipBLAS"}
    assert verdict([]) == {"verdict": "ports", "because": [], "needs": []}
    assert verdict([needs]) == {"verdict": "needs-library", "because": [], "needs": ["hipBLAS"]}
    assert verdict([warning, needs])["verdict"] == "review"
    assert verdict([needs, warning, error, error]) == {"verdict": "fails", "because": ["HP101"], "needs": ["hipBLAS"]}


def test_overloads_in_one_if_and_its_else_never_meet(rules):
    source = ("#include <cuda.h>\n#ifdef DRIVER\nint f(CUresult e) { return 1; }\n#elif RUNTIME\n"
              "int f(cudaError_t e) { return 2; }\n#else\nint f(cudaError_t e) { return 3; }\n#endif\n")
    assert not [c for c in codes(source, rules) if c.startswith("HP43")]


def test_overloads_in_separate_namespaces_do_not_collapse(rules):
    source = ("#include <cuda.h>\nnamespace runtime { int f(cudaError_t e) { return 1; } }\n"
              "namespace driver { int f(CUresult e) { return 2; } }\n")
    assert not [c for c in codes(source, rules) if c.startswith("HP43")]


def test_merged_overloads_port_once(rules):
    source = b"#include <cuda.h>\nint code(cudaError_t e) { return e; }\nint code(CUresult e) { return e; }\n"
    first = port_source(source, rules, TARGET)
    assert first.output.count(b"#ifndef HIPPORT_ONE_code_") == 2
    again = port_source(first.output, rules, TARGET)
    assert again.edits == [] and not [f for f in again.findings if f.code.startswith("HP43")]


def test_a_vector_operator_that_shares_its_lines_is_reported_not_guarded(rules):
    source = "int x; inline __device__ void operator+=(float2 &a, float2 b) { a.x += b.x; a.y += b.y; }\n"
    result = port_source(source.encode(), rules, TARGET)
    (finding,) = [f for f in result.findings if f.code == "HP434"]
    assert finding.severity.value == "error" and b"#if" not in result.output
