"""A PyTorch extension project (fixtures/projects/torch-ext): its port, its report and hipport check
as the repository's pre-commit hook. No torch needed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner
from conftest import ROOT

from hipport.cli import main

PROJECT = ROOT / "fixtures" / "projects" / "torch-ext"
SOURCES = PROJECT / "src"
WARP_SIZE_CODES = ("HP401", "HP403", "HP404")


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_the_port_is_the_reviewed_one(tmp_path):
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["convert", str(SOURCES), "-o", str(out), "-q", "--no-cache"])
    assert result.exit_code == 0, result.output
    assert _files(out) == _files(PROJECT / "expected")


def test_porting_the_port_changes_nothing(tmp_path):
    once, twice = tmp_path / "once", tmp_path / "twice"
    for src, out in ((PROJECT / "expected", twice), (SOURCES, once)):
        result = CliRunner().invoke(main, ["convert", str(src), "-o", str(out), "-q", "--no-cache"])
        assert result.exit_code == 0, result.output
    assert _files(twice) == _files(PROJECT / "expected")


def test_the_report_leads_with_the_operators_silent_bugs_and_libraries():
    result = CliRunner().invoke(main, ["report", str(SOURCES), "--format", "json"])
    assert result.exit_code == 0, result.output
    files = {Path(e["path"]).relative_to(SOURCES).as_posix(): e for e in json.loads(result.output)["files"]}
    assert {p for p, e in files.items() if e.get("dialect") == "pytorch"} == {
        "csrc/bind.cpp",
        "csrc/dot.cu",
        "csrc/ops.h",
        "csrc/row_softmax.cu",
        "csrc/scale.cu",
    }
    text = CliRunner().invoke(main, ["report", str(SOURCES)]).output
    view = text[text.index("PyTorch custom operators") : text.index("\n\n", text.index("PyTorch custom operators"))]
    lines = view.splitlines()
    assert lines[0] == "PyTorch custom operators: 5 file(s): 0 will not build, 1 need review, 4 port automatically"
    assert "silent runtime bugs" in lines[1] and lines[1].endswith(": 7")
    assert all("row_softmax.cu" in line for line in lines[2:9])
    assert "ROCm libraries the operators need: hipBLAS (1 file)" in view
    assert "setup.py: a ROCm PyTorch builds it as it is; 4 setting(s) it cannot take" in view
    assert "CMakeLists.txt: a ROCm PyTorch builds it as it is; nothing to change" in view
    verdicts = [line.split() for line in lines if line.startswith(("  needs review", "  ports automatically"))]
    worst = ["needs", "review", f"{SOURCES}/csrc/row_softmax.cu"]
    assert len(verdicts) == 5 and verdicts[0][:3] == worst


# -- hipport check as an extension repository's pre-commit hook --------------------------------


def _hook(repo: Path, *args: str) -> subprocess.CompletedProcess:
    """What pre-commit runs: the hook's entry (hipport check --quiet) with the staged files it matches."""
    staged = [str(p.relative_to(repo)) for p in sorted(repo.rglob("*")) if p.is_file()]
    hipport = Path(sys.executable).with_name("hipport")
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run(
        [str(hipport), "check", "--quiet", *args, *staged], cwd=repo, capture_output=True, text=True, env=env
    )


def test_check_as_the_hook_reports_warp_size_and_passes_pytorch_names(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(SOURCES, repo)
    done = _hook(repo)
    assert done.returncode == 0, done.stdout + done.stderr  # warnings only: the hook's default fails on errors
    lines = done.stdout.splitlines()
    warp = [line for line in lines if line.split()[2] in WARP_SIZE_CODES]
    assert len(warp) == 7 and all(line.startswith("csrc/row_softmax.cu:") for line in warp)
    assert not any(" HP102 " in line for line in lines)  # at::cuda::*, C10_CUDA_*, TORCH_LIBRARY: PyTorch's
    assert any(line.startswith("setup.py:9:") and " HP502 " in line for line in lines)
    # a team that keeps new operators portable fails on warnings
    assert _hook(repo, "--fail-on", "warning").returncode == 1


def test_check_as_the_hook_blocks_inline_ptx_and_passes_once_it_is_gone(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(SOURCES / "csrc", repo)
    lane = repo / "lane.cu"
    lane.write_text(
        "#include <ATen/cuda/CUDAContext.h>\n"
        '__device__ unsigned lane() { unsigned l; asm volatile("mov.u32 %0, %%laneid;" : "=r"(l)); return l; }\n'
    )
    done = _hook(repo)
    assert done.returncode == 1
    assert [line.split()[2] for line in done.stdout.splitlines() if line.startswith("lane.cu:")] == ["HP411"]
    lane.write_text("#include <ATen/cuda/CUDAContext.h>\n__device__ unsigned lane() { return __lane_id(); }\n")
    assert _hook(repo).returncode == 0


def test_a_report_layout_can_give_the_operator_view_its_own_verdict():
    from hipport.report.operators import Judged, operator_view

    report = {
        "files": [
            {"path": "a.cu", "dialect": "pytorch", "findings": [], "converted": {"CUBLAS": 2}},
            {"path": "b.cu", "findings": []},  # no PyTorch header: not an operator
        ]
    }
    view = operator_view(report, judge=lambda entry: Judged("ports", (), ("hipBLAS",) if entry["converted"] else ()))
    assert view is not None and [f.path for f in view.files] == ["a.cu"] and view.libraries == {"hipBLAS": 1}
    assert operator_view({"files": [{"path": "b.cu", "findings": []}]}) is None
