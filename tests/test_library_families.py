"""Each CUDA library family's port compiles against the library headers `verify` is given.

fixtures/convert/320-326 (cuBLAS, cuFFT, cuRAND host and device, cuSOLVER, the cuSPARSE generic
API, CUB device-wide and block primitives, Thrust) are compiled as `verify` compiles them: on AMD
with hipcc, HIP 6.3's headers (../shared/vendor/HIP-amd) and ROCm 6.3's library headers
(../shared/vendor/ROCm-libs, --rocm-path); on NVIDIA with nvcc, HIP's NVIDIA headers and the CUDA
libraries' headers (`make cuda-lib-headers`, --cuda-lib-path). Each skips when its compiler or
headers are absent, as tests/test_compile.py does.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from hipport.cli import main
from hipport.toolchain import ToolchainError, ToolSettings, make_toolchain, resolve_library_path
from hipport.verify import check_unit, library_headers, status

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "convert"
VENDOR = next((p / "shared" / "vendor" for p in ROOT.parents if (p / "shared" / "vendor").is_dir()), ROOT / "vendor")
HIP_AMD, HIP_NVIDIA, ROCM_LIBS = VENDOR / "HIP-amd", VENDOR / "HIP-nvidia", VENDOR / "ROCm-libs"
CUDA_LIBS = Path(os.environ.get("HIPPORT_CUDA_LIB_PATH") or ROOT / ".cuda-libs")
FAMILIES = sorted(d.name for d in FIXTURES.iterdir() if d.is_dir() and 320 <= int(d.name.split("-")[0]) <= 329)
# The earlier library fixtures (compile = false: no library headers on hipcc's default path) too.
EARLIER = ["47-curand-device", "48-curand-host", "49-cusparse-spmv", "50-cub-reduce", "51-cublas-saxpy-gemm",
           "52-cufft-plan-exec", "58-cusolver-lu-solve"]
# Ports that are right but do not compile for a reason outside hipport, by platform.
KNOWN = {
    ("nvidia", "325-cub-device-block-scan"): "hipCUB 3.3's CUB back end includes cub/device/device_spmv.cuh, "
    "which CUDA 13's CUB (CCCL 3) no longer has",
}
KNOWN[("nvidia", "50-cub-reduce")] = KNOWN[("nvidia", "325-cub-device-block-scan")]

needs_amd = pytest.mark.skipif(
    shutil.which("hipcc") is None or not (HIP_AMD / "include" / "hip").is_dir() or not (ROCM_LIBS / "include").is_dir(),
    reason="needs hipcc, ../shared/vendor/HIP-amd and ../shared/vendor/ROCm-libs",
)
needs_nvidia = pytest.mark.skipif(
    shutil.which("nvcc") is None
    or not (HIP_NVIDIA / "include" / "hip").is_dir()
    or not (ROCM_LIBS / "include").is_dir()
    or not (CUDA_LIBS / "include" / "cublas_v2.h").is_file(),
    reason="needs nvcc, ../shared/vendor/HIP-nvidia, ROCm-libs and the CUDA library headers (make cuda-lib-headers)",
)


def _settings(platform: str) -> ToolSettings:
    if platform == "amd":
        return ToolSettings(platform="amd", hip_path=HIP_AMD / "include", rocm_path=ROCM_LIBS / "include")
    return ToolSettings(
        platform="nvidia",
        hip_path=HIP_NVIDIA / "include",
        rocm_path=ROCM_LIBS / "include",
        cuda_lib_path=CUDA_LIBS / "include",
    )


def _compile(settings: ToolSettings, name: str):
    return check_unit(make_toolchain(settings), FIXTURES / name / "expected.hip")


def test_there_is_a_fixture_per_library_family():
    families = {"cublas", "cufft", "curand", "cusolver", "cusparse", "cub", "thrust"}
    assert families <= {name.split("-")[1] for name in FAMILIES}


@needs_amd
@pytest.mark.parametrize("name", FAMILIES + EARLIER)
def test_the_port_compiles_on_amd_against_rocm_libs(name):
    result = _compile(_settings("amd"), name)
    assert result.ok, result.output


@needs_nvidia
@pytest.mark.parametrize("name", FAMILIES + EARLIER)
def test_the_port_compiles_on_nvidia_against_the_cuda_libraries(name):
    result = _compile(_settings("nvidia"), name)
    if ("nvidia", name) in KNOWN:  # still failing, and for that reason: else the entry goes
        assert not result.ok and "device_spmv" in result.output, result.output
        pytest.xfail(KNOWN[("nvidia", name)])
    assert result.ok, result.output


@needs_amd
def test_without_library_headers_the_verdict_is_no_lib(rules):
    result = _compile(replace(_settings("amd"), rocm_path=None), "320-cublas-gemm-strided-batched")
    assert status(result, library_headers(rules))[0] == "NO-LIB", result.output


@needs_amd
def test_the_standard_reaches_hipcc_after_its_own_cxx11():
    # Debian's hipcc adds -std=c++11; rocPRIM refuses anything older than C++14
    old = _compile(replace(_settings("amd"), std="c++11"), "325-cub-device-block-scan")
    assert not old.ok and "C++14" in old.output


def test_the_compile_database_standard_wins_over_the_setting(tmp_path):
    from hipport.toolchain.compdb import load

    unit = tmp_path / "a.hip"
    unit.write_text("int main() { return 0; }\n")
    db = tmp_path / "compile_commands.json"
    db.write_text(json.dumps([{"directory": str(tmp_path), "file": "a.hip", "command": "nvcc -std=c++20 -c a.hip"}]))
    settings = ToolSettings(database=load(db))
    assert settings.unit_std(unit) == "c++20" and "-std=c++17" not in settings.unit_flags([unit])
    assert ToolSettings(std="c++14").unit_flags([unit])[0] == "-std=c++14"


def test_library_paths_take_the_tree_or_its_include_and_refuse_others(tmp_path):
    (tmp_path / "include" / "hipblas").mkdir(parents=True)
    (tmp_path / "include" / "hipblas" / "hipblas.h").write_text("")
    found = resolve_library_path("rocm", tmp_path, None, "--rocm-path", "NO_SUCH_ENV", "rocm-path")
    assert found == (tmp_path / "include").resolve()
    with pytest.raises(ToolchainError, match="--cuda-lib-path"):
        resolve_library_path("cuda", tmp_path, None, "--cuda-lib-path", "NO_SUCH_ENV", "cuda-lib-path")


@needs_amd
def test_verify_says_in_one_line_which_headers_and_standard_it_used(tmp_path):
    shutil.copy(FIXTURES / "321-cufft-r2c-c2r-many" / "expected.hip", tmp_path / "fft.hip")
    done = CliRunner().invoke(
        main, ["verify", str(tmp_path), "--hip-path", str(HIP_AMD), "--rocm-path", str(ROCM_LIBS), "--std", "c++20"]
    )
    lines = [line for line in done.output.splitlines() if "library headers:" in line]
    assert len(lines) == 1, done.output
    assert str((ROCM_LIBS / "include").resolve()) in lines[0] and "C++ standard: c++20" in lines[0]
    assert "HIP 6.3 headers" in lines[0] and "OK" in done.output
