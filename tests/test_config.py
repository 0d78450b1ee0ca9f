"""[tool.hipport] applies to convert and report as it does to check; flags win."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from hipport.cli import main

KERNEL = """#include <cuda_runtime.h>
__global__ void k(int* p) {}
void f(int* p, cudaStream_t s) {
  k<<<1, 2, 0, s>>>(p);
  cudaDeviceGetNvSciSyncAttributes(p, 0, 0);
}
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.cu").write_text(KERNEL)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.hipport]\nlaunch-syntax = "hip"\nroc = false\nignore = ["HP101"]\n')
    return tmp_path


def _run(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_convert_takes_launch_syntax_from_config_and_the_flag_wins(project):
    assert "hipLaunchKernelGGL(k, dim3(1), dim3(2), 0, s, p);" in _run("convert", "k.cu", "-o", "-").stdout
    assert "k<<<1, 2, 0, s>>>(p);" in _run("convert", "k.cu", "-o", "-", "--launch-syntax", "keep").stdout


def test_report_applies_the_config_policy(project):
    report = json.loads(_run("report", "k.cu", "--format", "json").stdout)
    assert "HP101" not in report["summary"]["findings_by_code"]


def test_an_explicit_config_file(project, tmp_path_factory):
    other = tmp_path_factory.mktemp("elsewhere") / "pyproject.toml"
    other.write_text('[tool.hipport]\nlaunch-syntax = "keep"\n')
    assert "k<<<" in _run("convert", "k.cu", "-o", "-", "--config", str(other)).stdout


def test_config_rules_are_relative_to_the_pyproject(project, monkeypatch):
    (project / "tools").mkdir()
    (project / "tools" / "house.toml").write_text(
        'schema = 1\nrename = [{ cuda = "cudaDeviceGetNvSciSyncAttributes", hip = "houseSyncAttributes", '
        'library = "CUDA_Runtime_API" }]\n')
    with open(project / "pyproject.toml", "a") as f:
        f.write('rules = ["tools/house.toml"]\n')
    (project / "sub").mkdir()
    (project / "sub" / "k.cu").write_text(KERNEL)
    monkeypatch.chdir(project / "sub")
    done = CliRunner().invoke(main, ["convert", "k.cu", "-o", "-"], catch_exceptions=False)
    assert "houseSyncAttributes(p, 0, 0);" in done.stdout


MESSAGE = '#include <cstdio>\nvoid f() { std::printf("cudaMalloc failed\\n"); }\n'


def test_port_strings_comes_from_config_and_the_flag_wins(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.cu").write_text(MESSAGE)
    assert '"cudaMalloc failed\\n"' in _run("convert", "m.cu", "-o", "-").stdout
    assert '"hipMalloc failed\\n"' in _run("convert", "m.cu", "-o", "-", "--port-strings").stdout
    (tmp_path / "pyproject.toml").write_text("[tool.hipport]\nport-strings = true\n")
    assert '"hipMalloc failed\\n"' in _run("convert", "m.cu", "-o", "-").stdout
    assert '"cudaMalloc failed\\n"' in _run("convert", "m.cu", "-o", "-", "--no-port-strings").stdout
