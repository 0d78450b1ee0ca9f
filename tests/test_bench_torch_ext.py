"""make torch-ext cannot rot: its comparison, its reviewed list and an older release's hipify run from
a stub package, on a made-up release and a made-up repository. No torch needed."""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

import torch_ext  # noqa: E402  (bench/ is scripts, not a package)

# A release's hipify reduced to what the bench calls: it writes each file's hipified copy beside it.
FAKE_HIPIFY = """
import os
class Result:
    def __init__(self, path):
        self.hipified_path = path
def hipify(project_directory, output_directory, includes, extra_files, show_detailed, show_progress,
           is_pytorch_extension, hipify_extra_files_only):
    out = {}
    for name in extra_files:
        text = open(name).read().replace("#include <ATen/cuda/CUDAContext.h>", "#include <ATen/hip/HIPContext.h>")
        text = text.replace("getCurrentCUDAStream", "getCurrentHIPStreamMasqueradingAsCUDA")
        target = name.replace(".cu", ".hip")
        open(target, "w").write(text)
        out[name] = Result(target)
    return out
"""


def _release(root: Path) -> Path:
    torch = root / "v2.10.0" / "torch"
    (torch / "utils" / "hipify").mkdir(parents=True)
    (torch / "version.py").write_text("__version__ = '2.10.0+cpu'\n")
    (torch / "utils" / "hipify" / "__init__.py").write_text("")
    (torch / "utils" / "hipify" / "hipify_python.py").write_text(FAKE_HIPIFY)
    return torch


def test_an_older_releases_hipify_runs_from_a_stub_package(tmp_path):
    repository = tmp_path / "corpus" / "someone+ops"
    repository.mkdir(parents=True)
    source = repository / "op.cu"
    source.write_text("#include <ATen/cuda/CUDAContext.h>\nauto s = at::cuda::getCurrentCUDAStream();\n")
    assert torch_ext.extension_files(repository) == [source]
    peer = torch_ext.release_peer(_release(tmp_path), tmp_path / "stubs")
    assert peer.release == "2.10" and peer.title == "PyTorch 2.10's hipify"
    out = torch_ext.hipify_repository(peer, repository, [source], tmp_path / "scratch")
    assert "at::cuda::getCurrentHIPStreamMasqueradingAsCUDA()" in out[source]
    assert source.read_text().startswith("#include <ATen/cuda/")  # hipify ran on a scratch copy


def test_names_in_comments_are_not_compared():
    vocabulary = frozenset({"C10_CUDA_CHECK", "C10_HIP_CHECK"})
    ours = "#include <c10/hip/HIPException.h>  // for C10_CUDA_CHECK\nC10_HIP_CHECK(x);\n"
    theirs = "#include <c10/hip/HIPException.h>  // for C10_HIP_CHECK\nC10_HIP_CHECK(x);\n"
    assert torch_ext.pytorch_facing(ours, vocabulary) == torch_ext.pytorch_facing(theirs, vocabulary)
    assert torch_ext.pytorch_facing(ours, vocabulary) == (["c10/hip/HIPException.h"], ["C10_HIP_CHECK"])


def test_a_reviewed_file_counts_only_while_it_differs_as_reviewed():
    entry = {"headers": ["ATen/cuda/Atomic.cuh"]}
    hipify = (["ATen/cuda/Atomic.cuh", "c10/hip/HIPStream.h"], ["getCurrentCUDAStream"])
    hipport = (["ATen/hip/Atomic.cuh", "c10/hip/HIPStream.h"], ["getCurrentCUDAStream"])
    assert torch_ext.still_as_reviewed(entry, hipify, hipport, unspaced=hipport)
    other_name = (hipport[0], ["getCurrentHIPStreamMasqueradingAsCUDA"])
    assert not torch_ext.still_as_reviewed(entry, hipify, other_name, unspaced=other_name)  # a name differs too
    assert not torch_ext.still_as_reviewed(entry, hipify, hipport, unspaced=hipify)  # unspaced hipify disagrees
    assert not torch_ext.still_as_reviewed({"headers": ["ATen/cuda/cub.h"]}, hipify, hipport, unspaced=hipport)


def test_every_reviewed_entry_names_its_file_and_headers():
    reviewed = torch_ext.load_reviewed()
    assert reviewed and all(
        e["headers"] and all(h.startswith("ATen/cuda/") for h in e["headers"]) for e in reviewed.values()
    )
