"""A project header whose port includes HIP's runtime, included inside another file's extern "C"
block: the including file includes the runtime before the block (hipport.engine.linkage), since
HIP's runtime is C++ and C linkage rejects its templates; nvcc had included CUDA's runtime before
everything. fixtures/convert/244-project-header-inside-extern-c compiles the result on both platforms."""
from __future__ import annotations

from pathlib import Path

import pytest

from hipport.options import Options
from hipport.porting import port_file
from hipport.project import ProjectHeaders

RUNTIME = b"#include <hip/hip_runtime.h>\n"
OPEN = b'#ifdef __cplusplus\nextern "C" {\n#endif\n'
CLOSE = b"#ifdef __cplusplus\n}\n#endif\n"
DEVICE = b"#pragma once\n#ifdef __CUDACC__\n#define DEV __device__\n#else\n#define DEV\n#endif\n"
PLAIN = b"#pragma once\ntypedef struct { int n; } pair_t;\n"


def _port(tmp_path: Path, rules, files: dict[str, bytes], name: str) -> bytes:
    for rel, data in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(data)
    headers = ProjectHeaders(include_dirs=(tmp_path,), root=tmp_path)
    return port_file(tmp_path / name, rules, Options(), headers=headers).output


def _interface(include: bytes) -> bytes:
    return b"#ifndef API_H\n#define API_H\n" + OPEN + include + b"int api(int);\n" + CLOSE + b"#endif\n"


@pytest.mark.parametrize(
    "files",
    [
        {"dev.h": DEVICE},  # device code
        {"dev.h": b"#pragma once\n#define CHECK(x) if ((x) != cudaSuccess) {}\n"},  # a runtime name
        {"dev.h": b"#pragma once\n#include <cuda_runtime.h>\n"},  # a CUDA header
        {"dev.h": b"#pragma once\n#include \"inner/kernels.h\"\n", "inner/kernels.h": DEVICE},  # through another
    ],
    ids=["device-code", "runtime-name", "cuda-header", "transitive"],
)
def test_the_runtime_comes_before_the_block(tmp_path, rules, files):
    out = _port(tmp_path, rules, {**files, "api.h": _interface(b'#include "dev.h"\n')}, "api.h")
    body = b'#include "dev.h"\nint api(int);\n'
    assert out == b"#ifndef API_H\n#define API_H\n" + RUNTIME + OPEN + body + CLOSE + b"#endif\n"


def test_an_angled_project_include_is_found_the_same_way(tmp_path, rules):
    out = _port(tmp_path, rules, {"dev.h": DEVICE, "api.h": _interface(b"#include <dev.h>\n")}, "api.h")
    assert out.index(RUNTIME) < out.index(b"#ifdef __cplusplus")


@pytest.mark.parametrize(
    "files, name",
    [
        ({"plain.h": PLAIN, "api.h": _interface(b'#include "plain.h"\n')}, "api.h"),  # a C header inside
        ({"dev.h": DEVICE, "api.h": b'#include "dev.h"\n' + OPEN + b"int api(int);\n" + CLOSE}, "api.h"),  # outside
        # the file includes the runtime before the block already
        ({"dev.h": DEVICE, "api.h": RUNTIME + OPEN + b'#include "dev.h"\n' + CLOSE}, "api.h"),
    ],
    ids=["plain-header-inside", "device-header-outside", "runtime-already-first"],
)
def test_otherwise_the_file_is_left_alone(tmp_path, rules, files, name):
    assert _port(tmp_path, rules, files, name) == files[name]


def test_a_cuda_include_before_the_block_ported_to_the_runtime_is_enough(tmp_path, rules):
    api = b"#include <cuda_runtime.h>\n" + OPEN + b'#include "dev.h"\n' + CLOSE
    out = _port(tmp_path, rules, {"dev.h": DEVICE, "api.h": api}, "api.h")
    assert out == RUNTIME + OPEN + b'#include "dev.h"\n' + CLOSE
