"""A file that sees a project macro HIP's headers are written with (`#define T float`) and includes a
project header with device code includes the HIP runtime first, as nvcc's implicit include came before
everything; otherwise the header's own runtime include would meet the macro (rules/device-code.toml's
name_set "runtime-clash-macros")."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from hipport.options import Options
from hipport.porting import port_file
from hipport.project import ProjectHeaders
from hipport.verify import compile_check, find_hipcc

VENDOR = Path(os.environ.get("HIPPORT_VENDOR", "/work/shared/vendor"))
RUNTIME = b"#include <hip/hip_runtime.h>\n"
# a partitioner whose device half is compiled only by the GPU compiler: the host unit has no CUDA itself
PARTITION = b"""#ifndef PARTITION_H
#define PARTITION_H
#ifdef GPU_SIDE
__device__ inline int firstTask() { return blockIdx.x * blockDim.x + threadIdx.x; }
#else
inline int firstTask() { return 0; }
#endif
#endif
"""
HOST = b"""#include <vector>
#include "settings.h"
#include "partition.h"
ELEM hostSum(const std::vector<ELEM> &v) { ELEM s = 0; for (ELEM e : v) s += e; return s + firstTask(); }
"""


def _port(tmp_path: Path, rules, settings: bytes, partition: bytes = PARTITION) -> tuple[bytes, bytes]:
    (tmp_path / "settings.h").write_bytes(settings)
    (tmp_path / "partition.h").write_bytes(partition)
    (tmp_path / "host.cpp").write_bytes(HOST)
    headers = ProjectHeaders(root=tmp_path)
    host = port_file(tmp_path / "host.cpp", rules, Options(), headers=headers).output
    header = port_file(tmp_path / "partition.h", rules, Options(), headers=headers).output
    return host, header


def test_a_clashing_macro_puts_the_runtime_first(tmp_path, rules):
    host, header = _port(tmp_path, rules, b"#pragma once\n#define T float\n#define ELEM T\n")
    assert host.startswith(RUNTIME)
    assert RUNTIME in header  # the header keeps its own (its include guard makes the second one empty)


@pytest.mark.parametrize(
    "settings, partition",
    [
        (b"#pragma once\n#define ELEM float\n", PARTITION),  # a macro HIP's headers do not use
        (b"#pragma once\n#define T float\n#define ELEM T\n", b"#pragma once\ninline int firstTask() { return 0; }\n"),
    ],
    ids=["harmless-macro", "no-device-code"],
)
def test_otherwise_the_host_file_is_left_alone(tmp_path, rules, settings, partition):
    host, _ = _port(tmp_path, rules, settings, partition)
    assert host == HOST


@pytest.mark.hipcc
def test_the_ported_host_file_compiles_with_hip_6_3(tmp_path, rules):
    include = VENDOR / "HIP-amd" / "include"
    if find_hipcc() is None or not include.is_dir():
        pytest.skip("hipcc or the vendored HIP-amd headers are not installed")
    host, header = _port(tmp_path, rules, b"#pragma once\n#define T float\n#define ELEM T\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "settings.h").write_bytes((tmp_path / "settings.h").read_bytes())
    (out / "partition.h").write_bytes(header)
    (out / "host.cpp").write_bytes(host)
    result = compile_check(out / "host.cpp", include_dirs=(include,), extra_flags=("-std=c++17",))
    assert result.ok, result.output


@pytest.mark.parametrize(
    ("source", "parenthesised"),
    [
        # device code: the runtime include moves above <assert.h>, CUDA's assert is in force
        (b"#include <assert.h>\n#include <cuda_runtime.h>\n__global__ void k(int n) { assert(n > 0); }\n", False),
        # host code only: the runtime include stays below <assert.h>, and nvcc's device pass of the
        # port reads HIP's NVIDIA macro, `if (!COND)`, so the condition keeps its parentheses
        (b"#include <assert.h>\n#include <cuda_runtime.h>\nvoid f(double *p) { cudaFree(p); assert(NULL != p); }\n",
         True),
    ],
)
def test_an_asserts_condition_is_parenthesised_where_hips_nvidia_macro_is_in_force(source, parenthesised, rules):
    from hipport.porting import port_bytes

    output = port_bytes(source, rules, Options(), "a.cu").output
    assert (b"assert((" in output) is parenthesised
    assert output.index(b"hip_runtime") < output.index(b"assert.h") or parenthesised
