"""Issue 21: a port is HIP for both vendors. The expected outputs of the both-platform fixtures
build with nvcc through HIP's NVIDIA headers (../shared/vendor/HIP-nvidia) as well as with hipcc
(tests/test_fixtures.py compiles them there); --platform amd silences HP441; check finds AMD-only
spellings in HIP code; a second port of the output changes nothing."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hipport.engine.port import port_source
from hipport.options import Options

ROOT = Path(__file__).resolve().parents[1]
HIP_NVIDIA = ROOT / ".." / "shared" / "vendor" / "HIP-nvidia" / "include"
HIP_AMD = ROOT / ".." / "shared" / "vendor" / "HIP-amd" / "include"
BOTH = ["120-both-platforms", "121-collapsed-error-helpers-both", "180-bfloat16-both-platforms"]


@pytest.mark.parametrize("case", BOTH)
def test_expected_output_builds_with_nvcc_and_hips_nvidia_headers(case, tmp_path):
    if shutil.which("nvcc") is None or not HIP_NVIDIA.is_dir():
        pytest.skip("nvcc or the vendored HIP-nvidia headers are not here")
    expected = ROOT / "fixtures" / "convert" / case / "expected.hip"
    result = subprocess.run(
        ["nvcc", "-x", "cu", "-std=c++17", "-arch=sm_90", "--cuda", "-I", str(HIP_NVIDIA), str(expected),
         "-o", str(tmp_path / "out.ii")],
        capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


def test_bf16_expected_output_builds_with_hipcc_and_hip_6_3s_amd_headers(tmp_path):
    """hip_bf16.h is HIP 6.0+: Debian's hipcc (HIP 5.2) builds it against the vendored 6.3 headers."""
    if shutil.which("hipcc") is None or not HIP_AMD.is_dir():
        pytest.skip("hipcc or the vendored HIP-amd headers are not here")
    expected = ROOT / "fixtures" / "convert" / "180-bfloat16-both-platforms" / "expected.hip"
    result = subprocess.run(
        ["hipcc", "-x", "hip", "--offload-arch=gfx90a", "-fsyntax-only", "-isystem", str(HIP_AMD), str(expected)],
        capture_output=True, text=True, timeout=600, env={**os.environ, "HIP_PLATFORM": "amd"},
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


@pytest.mark.parametrize("case", BOTH)
@pytest.mark.parametrize("platform", ["both", "amd", "nvidia"])
def test_porting_the_output_again_changes_nothing(rules, case, platform):
    expected = (ROOT / "fixtures" / "convert" / case / "expected.hip").read_bytes()
    result = port_source(expected, rules, Options(platform=platform))
    assert result.output == expected
    assert not [f for f in result.findings if f.code == "HP441"]


AMD_ONLY = b"""#include <hip/hip_runtime.h>
#ifdef HIP_INCLUDE_HIP_DRIVER_TYPES_H
void release(hipArray *a) { hipFreeArray(a); }
#endif
"""


@pytest.mark.parametrize("platform, reported", [("both", 2), ("nvidia", 2), ("amd", 0)])
def test_amd_only_spellings_in_hip_code_are_found_unless_the_port_is_for_amd(rules, platform, reported):
    result = port_source(AMD_ONLY, rules, Options(platform=platform))
    assert result.output == AMD_ONLY  # reported, not rewritten: a check on ported code writes nothing
    assert len([f for f in result.findings if f.code == "HP441"]) == reported


def test_the_platform_keys_the_cache_and_the_report():
    assert Options(platform="amd") != Options()
    assert Options(platform="amd").describe((6, 3, 0))["platform"] == "amd"
    assert "platform" not in Options().describe((6, 3, 0))


def test_plain_check_takes_platform(tmp_path):
    from hipport.launch import plain_check_arguments

    source = tmp_path / "a.hip"
    source.write_bytes(AMD_ONLY)
    assert plain_check_arguments(["check", "--platform", "amd", str(source)])["platform"] == "amd"
    assert plain_check_arguments(["check", "--platform=nope", str(source)]) is None  # click says why


def test_the_platform_names_file_is_what_the_headers_give():
    if shutil.which("nvcc") is None or shutil.which("hipcc") is None or not HIP_NVIDIA.is_dir():
        pytest.skip("nvcc, hipcc or the vendored HIP headers are not here")
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "gen_platforms.py"), "--check"], capture_output=True, text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]


GRAPH_NODE = b"""#include <cuda_runtime.h>
void add(cudaGraph_t g, cudaGraphNode_t *n, cudaGraphNodeParams *p) { cudaGraphAddNode(n, g, nullptr, 0, p); }
"""


@pytest.mark.parametrize("platform, reported", [("both", 2), ("nvidia", 2), ("amd", 0)])
def test_names_only_amds_hip_declares_are_reported_in_a_port_and_in_hip_code(rules, platform, reported):
    ported = port_source(GRAPH_NODE, rules, Options(platform=platform, hip_version=(6, 3, 0)))
    found = [f for f in ported.findings if f.code == "HP441"]
    assert [f.name for f in found] == ["cudaGraphNodeParams", "cudaGraphAddNode"][: reported]
    assert all("hipGraph" in f.message and "AMD" in f.message for f in found)
    again = port_source(ported.output, rules, Options(platform=platform, hip_version=(6, 3, 0)))
    assert again.output == ported.output  # hipport check: found in HIP code, nothing rewritten
    assert sorted(f.name for f in again.findings if f.code == "HP441") == sorted(
        ["hipGraphNodeParams", "hipGraphAddNode"][: reported]
    )


UNCAST = b"""#include <hip/hip_runtime.h>
void grow(float *d, void *v, hipStream_t s, hipMemPool_t p) {
  hipMallocAsync(&d, 64, s);
  hipMallocAsync(&v, 64, s);
  hipMallocFromPoolAsync(&d, 64, p, s);
}
"""


@pytest.mark.parametrize("platform, reported", [("both", 2), ("nvidia", 2), ("amd", 0)])
def test_check_finds_typed_pointers_passed_where_nvidias_hip_takes_void_pointers(rules, platform, reported):
    result = port_source(UNCAST, rules, Options(platform=platform))
    found = [f for f in result.findings if f.code == "HP441"]
    assert [(f.name, f.line) for f in found] == [("hipMallocAsync", 3), ("hipMallocFromPoolAsync", 5)][:reported]
    assert all(f.fix == "reinterpret_cast<void**>(&d)" and "NVIDIA" in f.message for f in found)
    fixed = port_source(result.output, rules, Options(platform=platform))
    assert fixed.output == result.output and not [f for f in fixed.findings if f.code == "HP441"]


VOTES = b"""__global__ void k(int *o, int p) {
  o[0] = __ballot_sync(0xffffffff, p) + __any_sync(0xffffffff, p) + __all_sync(0xffffffff, p);
  o[1] = __activemask() + __shfl_down_sync(0xffffffff, p, 1);
}
"""


@pytest.mark.parametrize(
    "platform, version, reported",
    [("both", (5, 2, 0), True), ("nvidia", (6, 1, 0), True), ("amd", (5, 2, 0), False), ("both", (6, 2, 0), False)],
)
def test_maskless_votes_for_old_hip_build_on_amd_only(rules, platform, version, reported):
    """HIP's NVIDIA headers map the maskless shuffles to the sync forms but leave __ballot/__any/__all
    to CUDA's legacy votes, which ptxas rejects for sm_70+: HP441 (rules/warp.toml older_platform)."""
    ported = port_source(VOTES, rules, Options(platform=platform, hip_version=version))
    found = [f for f in ported.findings if f.code == "HP441"]
    votes = ["__activemask", "__all_sync", "__any_sync", "__ballot_sync"]  # not __shfl_down_sync
    assert sorted(f.name for f in found) == (votes if reported else [])
    assert all("AMD only" in f.message and "HIP 6.2" in f.message and "--platform amd" in f.message for f in found)
    assert all(f.severity == "warning" for f in found)
