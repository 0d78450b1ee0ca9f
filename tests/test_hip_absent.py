"""tools/hip_absent.py: the renames whose HIP name an installed HIP does not declare."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SPEC = importlib.util.spec_from_file_location("hip_absent", ROOT / "tools" / "hip_absent.py")
hip_absent = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(hip_absent)


def test_a_name_the_headers_lack_is_flagged_and_a_declared_one_is_not(tmp_path):
    (tmp_path / "hip").mkdir()
    (tmp_path / "hip" / "hip_runtime_api.h").write_text("hipError_t hipMalloc(void **p, size_t n);\n")
    found = {rule["cuda"]: rule for rule in hip_absent.absent_rules("5.2", tmp_path)}
    assert "cudaMalloc" not in found
    assert found["cudaFree"]["hip"] == "hipFree" and found["cudaFree"]["added"] == "5.3"
    # a name the data already says is newer than the installed release is not this tool's business
    assert "cudaGraphAddMemFreeNode" not in found  # added 5.5.0 in the reference


def test_the_committed_file_is_what_the_tool_writes_for_the_installed_hip():
    include = Path("/usr/include")
    if not (include / "hip" / "hip_runtime_api.h").is_file():
        pytest.skip("no installed HIP headers")
    text = hip_absent.render("5.2", include, hip_absent.absent_rules("5.2", include))
    assert (ROOT / "rules" / "hip-absent.toml").read_text(encoding="utf-8") == text


SPEC_TYPEDEFS = importlib.util.spec_from_file_location("hip_typedefs", ROOT / "tools" / "hip_typedefs.py")
hip_typedefs = importlib.util.module_from_spec(SPEC_TYPEDEFS)
SPEC_TYPEDEFS.loader.exec_module(hip_typedefs)


def test_typedefs_of_another_tag_are_found_and_same_tag_ones_are_not():
    text = ("typedef struct _hipGraphicsResource hipGraphicsResource;\n"
            "typedef struct hipExtent { size_t width; struct { int a; } inner; } hipExtent;\n"
            "typedef struct hipIpcMemHandle_st { char reserved[64]; } hipIpcMemHandle_t;\n"
            "typedef enum { a, b } hipAnonymous;\n")
    assert hip_typedefs.typedefs_of_other_tags(text) == {"hipGraphicsResource", "hipIpcMemHandle_t", "hipAnonymous"}


SPEC_DEVICE = importlib.util.spec_from_file_location("cuda_device_absent", ROOT / "tools" / "cuda_device_absent.py")
cuda_device_absent = importlib.util.module_from_spec(SPEC_DEVICE)
SPEC_DEVICE.loader.exec_module(cuda_device_absent)


def test_cuda_device_functions_hip_lacks_are_found_and_helpers_are_not(tmp_path):
    cuda, hip, later = tmp_path / "cuda", tmp_path / "hip52", tmp_path / "hip63"
    for d in (cuda, hip / "hip", later / "hip"):
        d.mkdir(parents=True)
    (cuda / "sm_70_rt.h").write_text(
        "__SM_70_RT_DECL__ void __nanosleep(unsigned int ns);\n__SM_70_RT_DECL__ int __fns(unsigned m, unsigned b, int o);\n"
        "static __device__ int __iAtomicAdd(int *p, int v);\n__device__ int exchange(int *p);\n"
        "__SM_70_RT_DECL__ int __popc(unsigned x);\n"
    )
    (hip / "hip" / "amd_hip.h").write_text("__device__ int __popc(unsigned x);\n")
    (later / "hip" / "amd_hip.h").write_text("__device__ int __fns(unsigned m, unsigned b, int o);\n")
    renames, unsupported = cuda_device_absent.absent(cuda, hip, later, "6.3")
    assert [r["cuda"] for r in renames] == ["__fns"] and renames[0]["added"] == "6.3"
    assert [r["cuda"] for r in unsupported] == ["__nanosleep"]


def test_the_committed_device_file_is_what_the_tool_writes_here():
    cuda, later = Path("/usr/local/cuda/include"), ROOT.parent / "shared" / "vendor" / "HIP-amd" / "include"
    include = Path("/usr/include")
    if not ((cuda / "sm_70_rt.h").is_file() or (cuda / "crt" / "sm_70_rt.h").is_file()) or not later.is_dir():
        pytest.skip("no CUDA headers or no later HIP headers")
    if not (include / "hip" / "hip_runtime_api.h").is_file():
        pytest.skip("no installed HIP headers")
    renames, unsupported = cuda_device_absent.absent(cuda, include, later, "6.3")
    text = cuda_device_absent.render(cuda, include, "6.3", renames, unsupported)
    assert (ROOT / "rules" / "cuda-device-absent.toml").read_text(encoding="utf-8") == text
