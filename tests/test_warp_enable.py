"""The port defines HIP_ENABLE_WARP_SYNC_BUILTINS where its default target (HIP 6.3) needs it,
also in a unit whose project header calls the masked intrinsics (the header's own define would
come after the unit's runtime include, too late)."""

from __future__ import annotations

from hipport.porting import port_file
from hipport.project import ProjectHeaders
from hipport.options import Options
from hipport.versions import parse_version

HEADER = b"""#pragma once
#define MASK 0xffffffff
__device__ inline float warpSum(float v)
{
    for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down_sync(MASK, v, o);
    return v;
}
"""
UNIT = b"""#include <cstdio>
#include "reduce.cuh"
__global__ void k(float *p) { p[threadIdx.x] = warpSum(p[threadIdx.x]); }
int main() { float *p; cudaMalloc(&p, 256); k<<<1, 64>>>(p); cudaFree(p); return 0; }
"""
DEFINE = b"#ifndef HIP_ENABLE_WARP_SYNC_BUILTINS\n#define HIP_ENABLE_WARP_SYNC_BUILTINS\n#endif\n#include <hip/hip_runtime.h>"


def _port(tmp_path, rules, options):
    (tmp_path / "reduce.cuh").write_bytes(HEADER)
    (tmp_path / "main.cu").write_bytes(UNIT)
    headers = ProjectHeaders(root=tmp_path)
    unit = port_file(tmp_path / "main.cu", rules, options, headers=headers).output
    header = port_file(tmp_path / "reduce.cuh", rules, options, headers=headers).output
    return unit, header


def test_a_unit_whose_header_calls_the_sync_intrinsics_defines_the_macro(tmp_path, rules):
    unit, header = _port(tmp_path, rules, Options())
    assert DEFINE in unit
    assert unit.index(DEFINE) < unit.index(b'#include "reduce.cuh"')
    assert b"__shfl_down_sync(0xffffffffffffffffull, v, o)" in header


def test_no_macro_where_the_target_declares_them_anyway(tmp_path, rules):
    unit, _ = _port(tmp_path, rules, Options(hip_version=parse_version("7.0")))
    assert b"HIP_ENABLE_WARP_SYNC_BUILTINS" not in unit


GROUP_HEADER = b"""#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__device__ inline int anyNegative(int v)
{
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
    return tile.any(v < 0);
}
"""
GROUP_UNIT = b"""#include <cuda_runtime.h>
#include "votes.cuh"
__global__ void k(const int *in, int *out) { out[threadIdx.x] = anyNegative(in[threadIdx.x]); }
"""


def test_a_unit_whose_header_calls_a_group_vote_member_defines_the_macro(tmp_path, rules):
    # HIP 6.3 declares thread_block_tile::any behind the same macro as __any_sync
    (tmp_path / "votes.cuh").write_bytes(GROUP_HEADER)
    (tmp_path / "main.cu").write_bytes(GROUP_UNIT)
    headers = ProjectHeaders(root=tmp_path)
    unit = port_file(tmp_path / "main.cu", rules, Options(), headers=headers).output
    header = port_file(tmp_path / "votes.cuh", rules, Options(), headers=headers).output
    assert unit.startswith(DEFINE)
    assert DEFINE in header
    older = port_file(tmp_path / "main.cu", rules, Options(hip_version=parse_version("5.2")), headers=headers)
    assert b"HIP_ENABLE_WARP_SYNC_BUILTINS" not in older.output


HOST_UNIT = b"""#include <cstdio>
#include <cuda_runtime.h>
#include "reduce.cuh"
int main() { std::printf("%d\\n", 1); return 0; }
"""


def test_a_host_unit_whose_cuda_include_becomes_the_runtime_gets_the_macro_before_it(tmp_path, rules):
    # no device code of its own: the ported <cuda_runtime.h> is where the header's intrinsics get declared
    (tmp_path / "reduce.cuh").write_bytes(HEADER)
    (tmp_path / "main.cu").write_bytes(HOST_UNIT)
    unit = port_file(tmp_path / "main.cu", rules, Options(), headers=ProjectHeaders(root=tmp_path)).output
    assert DEFINE in unit
    assert unit.index(DEFINE) < unit.index(b'#include "reduce.cuh"')


def test_a_whole_warp_mask_from_a_project_header_becomes_the_whole_wavefront(tmp_path, rules):
    (tmp_path / "lanes.h").write_bytes(b"#pragma once\n#define ALL_LANES 0xFFFFFFFF\n#define LOW_HALF 0x0000FFFF\n")
    (tmp_path / "k.cu").write_bytes(
        b'#include "lanes.h"\n'
        b"__global__ void k(float *p) { float v = p[threadIdx.x];\n"
        b"  v += __shfl_down_sync(ALL_LANES, v, 1); v += __shfl_down_sync(LOW_HALF, v, 1); p[threadIdx.x] = v; }\n"
    )
    result = port_file(tmp_path / "k.cu", rules, Options(), headers=ProjectHeaders(root=tmp_path))
    assert b"__shfl_down_sync(0xffffffffffffffffull, v, 1)" in result.output
    assert b"__shfl_down_sync(LOW_HALF, v, 1)" in result.output  # not the whole warp: its width is unknown here
    masks = [f for f in result.findings if f.code == "HP213"]
    assert len(masks) == 2 and "ALL_LANES" in masks[0].message and "project header" in masks[0].message
