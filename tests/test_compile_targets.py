"""Fixtures whose expected port must compile on the default HIP target (the vendored HIP 6.3
headers, hipcc -std=c++17) and, where the case says so, with nvcc and HIP's NVIDIA headers.
The case's folder is an include directory: a project header beside the input is found."""
from __future__ import annotations

import os
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from conftest import CASES
from hipport.verify import compile_bytes, find_hipcc

VENDOR = Path(os.environ.get("HIPPORT_VENDOR", "/work/shared/vendor"))


def _cases(key: str):
    return [c for c in CASES if tomllib.loads((c.directory / "case.toml").read_text(encoding="utf-8")).get(key)]


HIP_AMD = _cases("compile_hip_amd")
NVCC = _cases("compile_nvcc")


def test_the_new_classes_have_compiled_fixtures():
    assert HIP_AMD and NVCC  # the test below must not pass by having nothing to compile


@pytest.mark.hipcc
@pytest.mark.parametrize("case", HIP_AMD, ids=[c.name for c in HIP_AMD])
def test_expected_output_compiles_with_hip_6_3_headers(case):
    include = VENDOR / "HIP-amd" / "include"
    if find_hipcc() is None or not include.is_dir():
        pytest.skip("hipcc or the vendored HIP-amd headers are not installed")
    result = compile_bytes(case.expected.read_bytes(), name="expected.hip", include_dirs=(include, case.directory),
                           extra_flags=("-std=c++17",))
    assert result.ok, result.output


@pytest.mark.parametrize("case", NVCC, ids=[c.name for c in NVCC])
def test_expected_output_compiles_with_nvcc_and_hip_nvidia(case, tmp_path):
    include = VENDOR / "HIP-nvidia" / "include"
    nvcc = shutil.which("nvcc")
    if nvcc is None or not include.is_dir():
        pytest.skip("nvcc or the vendored HIP-nvidia headers are not installed")
    source = tmp_path / "expected.cu"
    source.write_bytes(case.expected.read_bytes())
    proc = subprocess.run([nvcc, "-std=c++17", "-arch=sm_90", "-D__HIP_PLATFORM_NVIDIA__", "-I", str(include),
                           "-I", str(case.directory), "-c", str(source), "-o", str(tmp_path / "expected.o")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
