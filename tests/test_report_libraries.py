"""The report names the ROCm libraries a port needs, so "missing library" is known before compiling."""
from __future__ import annotations

import json

from click.testing import CliRunner

from hipport.cli import main


def _needed(tmp_path, *flags: str) -> dict:
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    (src / "blas.cu").write_text("#include <cublas_v2.h>\nvoid f(cublasHandle_t h) { cublasCreate(&h); }\n")
    (src / "rand.cu").write_text("#include <curand.h>\nvoid g(curandGenerator_t r) { curandDestroyGenerator(r); }\n")
    (src / "plain.cu").write_text("#include <cuda_runtime.h>\nvoid h() { cudaDeviceSynchronize(); }\n")
    # a name that only looks like a library's is not a need
    (src / "mine.cpp").write_text("int cublasLookalike_mine = 0;\n")
    out = tmp_path / ("out" + "".join(flags))
    result = CliRunner().invoke(main, ["convert", str(src), "-o", str(out), "--no-cache", "-j", "1", "-q",
                                       "--report", str(out) + ".json", *flags])
    assert result.exit_code == 0, result.output
    return json.loads((tmp_path / (out.name + ".json")).read_text())["summary"]["libraries_needed"]


def test_each_library_the_port_uses_is_named_with_its_files(tmp_path):
    assert _needed(tmp_path) == {"hipBLAS": 1, "hipRAND": 1}


def test_with_roc_the_roc_libraries_are_named(tmp_path):
    assert _needed(tmp_path, "--roc") == {"rocBLAS": 1, "rocRAND": 1}
