"""The PyTorch dialect: its generator on small made-up releases, and where its rules apply. No torch needed."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from conftest import ROOT

from hipport.engine.port import port_source
from hipport.options import Options
from hipport.ruleset.loader import load_rules

MAPPINGS_V1 = """
import collections
from .constants import API_PYTORCH, API_C10, API_CAFFE2
CUDA_IDENTIFIER_MAP = collections.OrderedDict([("cudaMalloc", ("hipMalloc", API_PYTORCH))])
C10_MAPPINGS = collections.OrderedDict([
    ("c10/cuda/CUDAGuard.h", ("c10/hip/HIPGuard.h", API_C10)),
    ("C10_CUDA_KERNEL_LAUNCH_CHECK", ("C10_HIP_KERNEL_LAUNCH_CHECK", API_C10)),
    ("c10::cuda", ("c10::hip", API_C10)),
])
PYTORCH_SPECIFIC_MAPPINGS = collections.OrderedDict([
    ("c10/cuda/CUDAGuard.h", ("ATen/hip/impl/HIPGuardImplMasqueradingAsCUDA.h", API_PYTORCH)),
    ("getCurrentCUDAStream", ("getCurrentHIPStreamMasqueradingAsCUDA", API_PYTORCH)),
    ("cuda::getCurrentCUDAStream", ("hip::getCurrentHIPStreamMasqueradingAsCUDA", API_PYTORCH)),
    ("gloo/cuda.h", ("gloo/hip.h", API_PYTORCH)),
])
CAFFE2_SPECIFIC_MAPPINGS = collections.OrderedDict([("getCurrentCUDAStream", ("nope", API_CAFFE2))])
CUDA_TO_HIP_MAPPINGS = [CUDA_IDENTIFIER_MAP, C10_MAPPINGS, PYTORCH_SPECIFIC_MAPPINGS, CAFFE2_SPECIFIC_MAPPINGS]
"""
MAPPINGS_V2 = """
import collections
CUDA_IDENTIFIER_MAP = collections.OrderedDict([("cudaMalloc", "hipMalloc")])
C10_MAPPINGS = collections.OrderedDict([("c10/cuda/CUDAGuard.h", "c10/hip/HIPGuard.h")])
CUDA_TO_HIP_MAPPINGS = [CUDA_IDENTIFIER_MAP, C10_MAPPINGS]
"""
HIPIFY = """
def get_hip_file_path(rel_filepath, is_pytorch_extension=False):
    dirpath = rel_filepath.replace('cuda', 'hip')
    return dirpath.replace('CUDA', 'HIP')

def preprocessor(f):
    if f.startswith(("ATen/cuda", "ATen/native/cuda")):
        return get_hip_file_path(f)
"""


def _release(root: Path, version: str, mappings: str, hipify_version: str | None) -> Path:
    torch = root / version / "torch"
    hipify = torch / "utils" / "hipify"
    hipify.mkdir(parents=True)
    (torch / "version.py").write_text(f"__version__ = '{version}+cpu'\n")
    (hipify / "cuda_to_hip_mappings.py").write_text(mappings)
    (hipify / "hipify_python.py").write_text(HIPIFY)
    if hipify_version:
        (hipify / "version.py").write_text(f"__version__ = '{hipify_version}'\n")
    include = torch / "include" / "ATen" / "cuda"
    include.mkdir(parents=True)
    (include / "Exceptions.h").write_text("#define AT_CUDA_CHECK(EXPR) C10_CUDA_CHECK(EXPR)\n")
    return torch


def test_generator_splits_the_two_hipify_generations(tmp_path):
    old = _release(tmp_path, "2.9.0", MAPPINGS_V1, None)
    new = _release(tmp_path, "2.11.0", MAPPINGS_V2, "2.0.0")
    out = tmp_path / "out"
    out.mkdir()
    tool = ROOT / "tools" / "gen_torch_rules.py"
    done = subprocess.run([sys.executable, tool, "--torch", old, "--torch", new, "--out", out], capture_output=True)
    assert done.returncode == 0, done.stderr
    masquerading = tomllib.loads((out / "pytorch-masquerading.toml").read_text())
    current = tomllib.loads((out / "pytorch.toml").read_text())
    assert masquerading["dialect_until"] == "2.11" and current["dialect_since"] == "2.11"
    # PyTorch's table wins over C10's (later in the merge order); Caffe2's entries never apply to extensions.
    headers = {h["cuda"]: h.get("hip") for h in masquerading["header"]}
    assert headers["c10/cuda/CUDAGuard.h"] == "ATen/hip/impl/HIPGuardImplMasqueradingAsCUDA.h"
    assert "gloo/cuda.h" not in headers  # not PyTorch's C++ API
    assert headers["ATen/cuda/"] == "ATen/hip/"
    renames = {r["cuda"]: r["hip"] for r in masquerading["rename"]}
    assert renames["getCurrentCUDAStream"] == "getCurrentHIPStreamMasqueradingAsCUDA"
    assert "cudaMalloc" not in renames  # the CUDA runtime is HIPIFY's rules' business
    assert {q["cuda"] for q in masquerading["qualified"]} == {"cuda::getCurrentCUDAStream", "c10::cuda"}
    kept = {r["cuda"]: r for r in current["rename"] if r.get("kind") == "kept"}
    assert {"getCurrentCUDAStream", "C10_CUDA_KERNEL_LAUNCH_CHECK", "AT_CUDA_CHECK"} <= set(kept)
    assert "getCurrentHIPStreamMasqueradingAsCUDA" in kept["getCurrentCUDAStream"]["note"]
    assert "Redistribution and use" in (out / "pytorch.toml").read_text()
    check = subprocess.run(
        [sys.executable, tool, "--torch", old, "--torch", new, "--out", out, "--check"], capture_output=True
    )
    assert check.returncode == 0


def test_the_dialect_applies_only_to_code_that_includes_a_pytorch_header():
    rules = load_rules()
    plain = b"#include <cuda_runtime.h>\nvoid f() { auto s = at::cuda::getCurrentCUDAStream(); }\n"
    result = port_source(plain, rules, Options())
    assert result.dialect is None and "PyTorch" not in result.converted
    extension = b"#include <ATen/cuda/CUDAContext.h>\n" + plain
    result = port_source(extension, rules, Options())
    assert result.dialect == "pytorch"
    assert b"<ATen/hip/HIPContext.h>" in result.output and not any(f.code == "HP102" for f in result.findings)


def test_the_build_can_choose_the_dialect_for_a_file_without_pytorch_includes():
    source = b"#include <cuda_runtime.h>\nvoid f() { C10_CUDA_KERNEL_LAUNCH_CHECK(); }\n"
    options = Options(dialects=("pytorch",), dialect_versions=(("pytorch", "2.10"),))
    result = port_source(source, load_rules(), options)
    assert b"C10_HIP_KERNEL_LAUNCH_CHECK();" in result.output


def test_generated_pytorch_rules_carry_pytorchs_notice():
    for name in ("pytorch.toml", "pytorch-masquerading.toml"):
        text = (ROOT / "rules" / "generated" / name).read_text(encoding="utf-8")
        header = text[: text.index("\nschema = ")]
        assert "tools/gen_torch_rules.py" in header and "Redistribution and use in source and binary forms" in header


EXTENSION = b"""#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
namespace mylib { cudaStream_t getCurrentCUDAStream(); }
#define CURRENT at::cuda::getCurrentCUDAStream()
void f(at::Tensor t) {
  c10::cuda::CUDAGuard guard(t.device());
  at::cuda::OptionalCUDAGuard optional(t.device());
  auto s = at :: cuda :: getCurrentCUDAStream();
  auto mine = mylib::getCurrentCUDAStream();
  c10::cuda::CUDACachingAllocator::emptyCache();
}
"""


def _port(version: str):
    return port_source(EXTENSION, load_rules(), Options(dialect_versions=(("pytorch", version),)))


def test_qualified_pytorch_names_are_counted_where_a_rocm_pytorch_keeps_them():
    result = _port("2.13")
    names = result.converted_names
    # the last part of a name under at::cuda / c10::cuda is PyTorch's, whatever the spaces around ::
    assert names["CUDAGuard"] == 1 and names["OptionalCUDAGuard"] == 1 and names["CUDACachingAllocator"] == 1
    assert names["getCurrentCUDAStream"] == 2  # the #define's and the spaced one; mylib's is the project's
    assert b"c10::cuda::CUDAGuard guard" in result.output and b"mylib::getCurrentCUDAStream()" in result.output


def test_qualified_pytorch_names_take_the_masquerading_spelling_before_2_11():
    output = _port("2.10").output
    # c10::cuda -> c10::hip, then CUDAGuard -> HIPGuardMasqueradingAsCUDA, as hipify 1.x reads it
    assert b"c10::hip::HIPGuardMasqueradingAsCUDA guard" in output
    assert b"at::hip::OptionalHIPGuardMasqueradingAsCUDA optional" in output
    assert b"#define CURRENT at::hip::getCurrentHIPStreamMasqueradingAsCUDA()" in output
    assert b"c10::hip::HIPCachingAllocatorMasqueradingAsCUDA::emptyCache()" in output
    assert b"mylib::getCurrentCUDAStream()" in output  # another namespace's: not PyTorch's


def test_a_name_pytorch_lacks_is_reported_under_its_namespace():
    source = b"#include <ATen/cudnn/Handle.h>\nvoid f() { auto h = at::native::getCudnnHandle(); }\n"
    result = port_source(source, load_rules(), Options())
    assert [f.code for f in result.findings if f.name == "getCudnnHandle"] == ["HP101"]


def test_check_and_report_take_the_torch_version_convert_takes(tmp_path):
    """--torch-version means the same in convert, check and report: the PyTorch release the port targets."""
    import json

    from click.testing import CliRunner

    from hipport.cli import main

    source = ROOT / "fixtures" / "convert" / "262-pytorch-masquerading-2.10" / "input.cu"
    runner = CliRunner()
    result = runner.invoke(main, ["report", "--format", "json", "--torch-version", "2.10", str(source)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["options"]["dialect_versions"] == {"pytorch": "2.10"}
    for command in (["check", str(source)], ["report", str(source)]):
        bad = runner.invoke(main, [*command, "--torch-version", "two"])
        assert bad.exit_code == 2 and "--torch-version" in bad.output, bad.output
    assert runner.invoke(main, ["check", "--torch-version", "2.10", str(source)]).exit_code == 0
