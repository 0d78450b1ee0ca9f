"""CUDA's vector types as markers (hipport/engine/builtin_types.py): a type the file declares itself
is its own, and the file is searched once for all of them, not once per marker."""

from __future__ import annotations

import re

import pytest

from hipport.engine import builtin_types
from hipport.engine.builtin_types import OwnTypes, declared_vector_types
from hipport.options import Options
from hipport.porting import port_bytes

NAMES = ("float2", "float3", "int4", "uint2", "longlong2", "double1", "dim3", "uchar4")


def declared_one_by_one(name: str, source: bytes) -> bool:
    """The declaration forms, written out for one name at a time (what the single pass must agree with)."""
    word = re.escape(name).encode()
    forms = (
        rb"\b(?:struct|class|union)\s+" + word + rb"\b",
        rb"\btypedef\b[^;]*\b" + word + rb"\s*;",
        rb"\busing\s+" + word + rb"\s*=",
    )
    return any(re.search(form, source) for form in forms)


@pytest.mark.parametrize(
    "source",
    [
        b"struct float2 { float x, y; };\nclass int4;\nunion uint2 { int a; };",
        b"typedef struct { float x; } float3;\nusing dim3 = int;\ntypedef int myfloat2;",
        b"typedef struct float3 float4;\nstruct float2x {};\nusing uchar4=char;",
        b"typedef unsigned long long longlong2 ;\n// struct double1 in a comment counts too\nfloat2 a;",
        b"int main() { float2 v; int4 w; }",
    ],
)
def test_one_pass_finds_what_a_search_per_name_finds(source):
    found = declared_vector_types(source)
    for name in NAMES:
        assert (name in found) == declared_one_by_one(name, source), name


def test_own_types_scans_a_file_once_for_all_its_markers(monkeypatch, rules):
    scans = []

    def counted(source):
        scans.append(len(source))
        return declared_vector_types(source)

    monkeypatch.setattr(builtin_types, "declared_vector_types", counted)
    source = (
        b"struct float2 { float x, y; };\nstruct int4 { int a, b, c, d; };\n" + b"float2 a; int4 b; float2 c;\n" * 20
    )
    result = port_bytes(source, rules, Options(), "own.cu")
    assert len(scans) == 1 and result.output == source
    own = OwnTypes(source, "own.cu")
    assert own("float2") and own("int4") and not own("float3") and not own("cudaError_t")
    assert len(scans) == 2  # a new file (OwnTypes), one more scan
    assert OwnTypes(source, "own.cpp")("float3") and len(scans) == 2  # not CUDA: every vector type is its own


@pytest.mark.parametrize(
    ("path", "source", "runtime"),
    [
        ("kernel.cu", b"uint4 pack(unsigned a) { uint4 v; v.x = a; return v; }\n", True),
        # written to be #included (by C++ files too, which may #define uint4 themselves first)
        ("common.cu", b"#ifndef COMMON_CU\n#define COMMON_CU\nstruct P { uint4 data; };\n#endif\n", False),
        ("common.cu", b"// shared layout\n#pragma once\nstruct P { uint4 data; };\n", False),
        ("common.cuh", b"#pragma once\nstruct P { uint4 data; };\n", True),
        ("late.cu", b"#include <stdio.h>\n#ifndef LATE\n#define LATE\nuint4 v;\n#endif\n", True),
    ],
)
def test_a_guarded_cu_is_a_fragment_its_vector_types_need_no_runtime_include(path, source, runtime, rules):
    result = port_bytes(source, rules, Options(), path)
    assert (b"hip/hip_runtime.h" in result.output) is runtime
