"""The command line as a user meets it: exit codes, messages, outputs."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from hipport.cli import main

KERNEL = b"""#include <cuda_runtime.h>
__global__ void scale(float* x, float a) { x[threadIdx.x] *= a; }
int main() {
    float* d;
    cudaMalloc(&d, 64 * sizeof(float));
    scale<<<1, 64>>>(d, 2.0f);
    cudaFooBar(d);
    cudaFree(d);
}
"""


@pytest.fixture
def kernel(tmp_path) -> Path:
    path = tmp_path / "kernel.cu"
    path.write_bytes(KERNEL)
    return path


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_convert_file_to_file_and_report(kernel, tmp_path):
    out = tmp_path / "kernel.hip"
    report = tmp_path / "r.json"
    result = run("convert", kernel, "-o", out, "--report", report, "--hip-version", "5.2")
    assert result.exit_code == 0, result.output
    text = out.read_bytes()
    assert b"#include <hip/hip_runtime.h>" in text and b"hipMalloc(&d" in text and b"hipFree(d)" in text
    data = json.loads(report.read_text())
    (entry,) = data["files"]
    assert data["options"]["hip_version"] == "5.2"
    assert entry["path"] == str(kernel)
    assert data["summary"]["unmapped_by_name"] == {"cudaFooBar": 1}
    finding = next(f for f in entry["findings"] if f["code"] == "HP102")
    assert (finding["line"], finding["column"], finding["severity"], finding["name"]) == (7, 5, "warning", "cudaFooBar")
    assert data["summary"]["converted"] == 2  # cudaMalloc, cudaFree
    assert data["summary"]["findings_by_code"] == {"HP102": 1}
    assert f"{kernel}:7:5: warning HP102" in result.output


def test_convert_to_stdout(kernel):
    result = CliRunner().invoke(main, ["convert", str(kernel), "-o", "-", "-q"])
    assert result.exit_code == 0
    assert result.stdout_bytes.startswith(b"#include <hip/hip_runtime.h>")


def test_launch_syntax_hip(kernel):
    result = CliRunner().invoke(main, ["convert", str(kernel), "-o", "-", "-q", "--launch-syntax", "hip"])
    assert b"hipLaunchKernelGGL(scale, dim3(1), dim3(64), 0, 0, d, 2.0f);" in result.stdout_bytes


def test_in_place_is_idempotent(kernel):
    assert run("convert", kernel, "--in-place", "-q").exit_code == 0
    once = kernel.read_bytes()
    assert run("convert", kernel, "--in-place", "-q").exit_code == 0
    assert kernel.read_bytes() == once


@pytest.mark.parametrize("args, message", [
    (["convert", "missing.cu", "-o", "-"], "missing.cu: no such file or directory"),
    (["convert", "{kernel}"], "give -o OUT"),
    (["convert", "{kernel}", "-o", "-", "--hip-version", "five"], "not a version"),
    (["convert", "{kernel}", "-o", "{kernel}"], "output is the input file"),
    (["convert", "{kernel}", "-o", "-", "--rules", "nope.toml"], "nope.toml: cannot read rule file"),
])
def test_usage_errors_exit_2_with_one_line(kernel, args, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    args = [a.format(kernel=kernel) for a in args]
    proc = subprocess.run([sys.executable, "-m", "hipport", *args], capture_output=True, text=True)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_unreadable_input_is_an_error_not_a_traceback(kernel):
    kernel.chmod(0)
    try:
        if _can_read(kernel):
            pytest.skip("running as a user that can read mode-000 files")
        proc = subprocess.run([sys.executable, "-m", "hipport", "convert", str(kernel), "-o", "-"],
                              capture_output=True, text=True)
        assert proc.returncode == 2 and "cannot read" in proc.stderr
    finally:
        kernel.chmod(0o644)


def _can_read(path: Path) -> bool:
    try:
        path.read_bytes()
        return True
    except OSError:
        return False


def test_directory_mirrors_tree(tmp_path):
    src = tmp_path / "src"
    (src / "inc").mkdir(parents=True)
    (src / "inc" / "check.cuh").write_bytes(
        b"#pragma once\n#include <cuda_runtime.h>\n#define CUDA_CALL(x) do { if ((x) != cudaSuccess) abort(); } while (0)\n")
    (src / "a.cu").write_bytes(b'#include "inc/check.cuh"\nvoid f(float* p) { CUDA_CALL(cudaFree(p)); }\n')
    (src / "notes.txt").write_bytes(b"cudaMalloc stays in prose\n")
    (src / "blob.bin").write_bytes(bytes(range(256)))
    out = tmp_path / "out"
    report = tmp_path / "r.json"
    result = run("convert", src, "-o", out, "--report", report)
    assert result.exit_code == 0, result.output
    assert (out / "notes.txt").read_bytes() == b"cudaMalloc stays in prose\n"
    assert (out / "blob.bin").read_bytes() == bytes(range(256))
    assert b"CUDA_CALL(hipFree(p))" in (out / "a.cu").read_bytes()
    assert b"hipSuccess" in (out / "inc" / "check.cuh").read_bytes()
    data = json.loads(report.read_text())
    assert [f["path"] for f in data["files"]] == ["a.cu", "inc/check.cuh"]
    assert data["summary"]["unmapped"] == 0  # CUDA_CALL is the project's own macro


def test_output_inside_source_is_refused(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.cu").write_bytes(b"int x;\n")
    proc = subprocess.run([sys.executable, "-m", "hipport", "convert", str(src), "-o", str(src / "out")],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "must not be inside the source tree" in proc.stderr


def test_help_explains_commands():
    result = run("convert", "--help")
    assert "--hip-version" in result.output and "--launch-syntax" in result.output and "Exit status" in result.output


def test_a_bug_of_hipports_own_is_one_line_not_a_traceback(kernel, monkeypatch):
    import hipport.cli.convert as convert_command

    def broken(request):
        raise AttributeError("'function' object has no attribute 'descendant_for_byte_range'")

    monkeypatch.setattr(convert_command, "run_convert", broken)
    monkeypatch.delenv("HIPPORT_DEBUG", raising=False)
    result = CliRunner().invoke(main, ["convert", str(kernel), "-o", "-"])
    assert result.exit_code == 3
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "internal error (a hipport bug" in lines[0] and "AttributeError" in lines[0]
    assert "Traceback" not in result.output
    monkeypatch.setenv("HIPPORT_DEBUG", "1")
    assert isinstance(CliRunner().invoke(main, ["convert", str(kernel), "-o", "-"]).exception, AttributeError)
