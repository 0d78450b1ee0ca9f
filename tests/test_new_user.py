"""What a new user met first (issue 28): findings about the file's end, the project's own names,
malformed settings and the line their errors give. Each test failed before its fix."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from hipport.cli import main
from hipport.config import ConfigError, find_config, load_config

ROOT = Path(__file__).resolve().parents[1]
LLM = ROOT / "fixtures" / "projects" / "ux-llm"
SGEMM = ROOT / "fixtures" / "projects" / "ux-sgemm"


def _hipport(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The installed command, so that the fast check path (hipport.launch) is what runs."""
    return subprocess.run([sys.executable, "-m", "hipport", *args], cwd=cwd, capture_output=True, text=True)


# -- 1. a file's last line without a newline ----------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '#pragma once\n#include "a.cuh"',
        "#include <cuda_runtime.h>\n#define CHECK(x) x",
        "#pragma once",
        '#pragma once\r#include "a.cuh"',  # classic Mac line ends
    ],
)
def test_a_directive_on_the_last_line_without_a_newline_is_no_syntax_error(tmp_path, text):
    (tmp_path / "x.cuh").write_bytes(text.encode())
    done = _hipport("check", "x.cuh", "--fail-on", "info", cwd=tmp_path)
    assert "HP901" not in done.stdout
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_real_syntax_error_at_the_end_is_still_reported(tmp_path):
    (tmp_path / "x.cu").write_bytes(b"#include <cuda_runtime.h>\nvoid f() { cudaDeviceSynchronize(); ")
    done = _hipport("check", "x.cu", "--fail-on", "info", cwd=tmp_path)
    assert "HP901" in done.stdout


# -- 2. the project's own names --------------------------------------------------------------


def _hp102(report: dict) -> dict[str, int]:
    return report["summary"]["unmapped_by_name"]


def test_names_a_sibling_folders_header_declares_are_not_hp102():
    """train/train_gpt2.cu includes "common.h" from llmc/ (the Makefile's -Illmc); it declares
    cublas_handle, cuda_num_SMs and cudaCheck. matmul.cuh uses the handle its folder's common.h declares."""
    result = CliRunner().invoke(main, ["report", str(LLM), "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert _hp102(report) == {}
    assert report["summary"]["findings_by_code"].get("HP102", 0) == 0


def test_a_pre_commit_check_of_one_file_finds_the_sibling_header_too():
    done = _hipport("check", "train/train_gpt2.cu", "llmc/matmul.cuh", cwd=LLM)
    assert "HP102" not in done.stdout, done.stdout


def test_a_header_in_a_subfolder_is_found_as_the_makefiles_include_flag_would():
    result = CliRunner().invoke(main, ["report", str(SGEMM), "--format", "json"])
    assert _hp102(json.loads(result.stdout)) == {}


def test_convert_of_the_tree_reports_no_project_name(tmp_path):
    result = CliRunner().invoke(main, ["convert", str(LLM), "-o", str(tmp_path / "out"), "--no-cache"])
    assert result.exit_code == 0, result.output
    assert "HP102" not in result.output


def test_a_name_a_header_only_uses_is_still_reported(tmp_path, rules):
    (tmp_path / "inc").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "inc" / "common.h").write_bytes(
        b"#pragma once\nextern int cuda_device_count;\ninline void f() { cudaMysteryCall(); }\n"
    )
    (tmp_path / "src" / "main.cu").write_bytes(
        b'#include "common.h"\nint main() { cudaMysteryCall(); return cuda_device_count; }\n'
    )
    result = CliRunner().invoke(main, ["report", str(tmp_path), "--format", "json"])
    assert _hp102(json.loads(result.stdout)) == {"cudaMysteryCall": 2}  # in the header and in main.cu


def test_what_a_header_declares_beyond_macros(rules):
    from hipport.project import own_names

    declared = own_names(rules)(
        b"#define cudaCheck(x) cudaCheck_(x)\n"
        b"extern cublasHandle_t cublas_handle;\n"
        b"int cuda_num_SMs = 0;\n"
        b"void cudaCheck_(cudaError_t e);\n"
        b"struct cudaDeviceInfo { int cuda_sm_count; };\n"
        b"enum cuda_mode { CUDA_MODE_FAST, CUDA_MODE_SAFE };\n"
        b"inline void g() { cudaUnknownThing(); }\n"
    )
    assert {"cublas_handle", "cuda_num_SMs", "cudaCheck_", "cudaDeviceInfo", "cuda_sm_count"} <= declared
    assert {"CUDA_MODE_FAST", "CUDA_MODE_SAFE"} <= declared
    # names the rules know are theirs, and a call is no declaration
    assert not {"cublasHandle_t", "cudaError_t", "cudaUnknownThing"} & declared


def test_the_folders_listed_for_a_nearby_header_are_probed_for_the_tree_index(tmp_path, rules):
    from hipport.project import ProjectHeaders, own_names

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "common.h").write_bytes(b"extern int cuda_flag;\n")
    headers = ProjectHeaders(declares=own_names(rules), root=tmp_path)
    names, probed = headers.visible_from(tmp_path / "a", ("common.h",))
    assert "cuda_flag" in names
    assert f"{tmp_path}/" in probed  # the listing of the root, whose times change with a new folder


# -- 3. settings that are malformed, and the lines errors give -----------------------------


def _project(tmp_path: Path, pyproject: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(pyproject)
    (tmp_path / "w.cu").write_text("__global__ void k() { unsigned m = __ballot_sync(0xffffffff, 1); (void)m; }\n")
    return tmp_path


@pytest.mark.parametrize(
    "pyproject, expected",
    [
        ('[tool.hipport\nfail-on = "warning"\n', "pyproject.toml:1: "),
        ('[tool.hipport]\nselect = ["HP4"\n', "pyproject.toml: Unclosed array"),
        ('[tool.hipport]\nfail-on = "warning"\nx = = 1\n', "pyproject.toml:3: "),
    ],
)
def test_a_malformed_hipport_table_is_an_error_with_its_line(tmp_path, pyproject, expected):
    _project(tmp_path, pyproject)
    for done in (_hipport("check", "w.cu", cwd=tmp_path), _hipport("convert", "w.cu", "-o", "-", cwd=tmp_path)):
        assert done.returncode == 2, done.stderr
        assert expected in done.stderr
        assert ":0:" not in done.stderr


@pytest.mark.parametrize(
    "pyproject",
    [
        '[tool . hipport]\nfail-on = "warning"\n',
        '[tool]\nhipport = { fail-on = "warning" }\n',
        '[tool.ruff]\nline-length = 90\n[tool."hipport"]\nfail-on = "warning"\n',
    ],
)
def test_every_toml_spelling_of_the_table_is_read(tmp_path, pyproject):
    _project(tmp_path, pyproject)
    assert load_config(find_config(tmp_path)).fail_on == "warning"
    assert _hipport("check", "w.cu", cwd=tmp_path).returncode == 1  # the warnings reach fail-on


def test_a_pyproject_without_hipport_settings_is_passed_over(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\ndependencies = ["hipport"]\n')
    assert find_config(tmp_path) is None


def test_hipport_that_is_no_table_is_an_error(tmp_path):
    (tmp_path / "pyproject.toml").write_text("tool.hipport = 3\n")
    with pytest.raises(ConfigError, match=r"pyproject.toml:1: tool.hipport must be a table"):
        load_config(find_config(tmp_path))


def test_a_missing_rule_file_names_no_line(tmp_path):
    (tmp_path / "w.cu").write_text("int x;\n")
    done = _hipport("check", "w.cu", "--rules", "nonexist.toml", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip() == "hipport: nonexist.toml: cannot read rule file: No such file or directory"
    done = _hipport("rules", "validate", "nonexist.toml", cwd=tmp_path)
    assert done.stderr.strip() == "nonexist.toml: cannot read: No such file or directory"


def test_a_header_beside_the_project_is_not_the_projects(tmp_path, monkeypatch):
    """Files named one by one (a hook's) belong to the project the command runs in: a common.h
    in a folder beside that project is another project's, and declares nothing for this one."""
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "common.h").write_text("extern int cuda_device_total;\n")
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "a.cu").write_text('#include "common.h"\nint f() { return cuda_device_total; }\n')
    monkeypatch.chdir(tmp_path / "proj")
    result = CliRunner().invoke(main, ["check", "a.cu"])
    assert "HP102 'cuda_device_total'" in result.stdout
    monkeypatch.chdir(tmp_path)  # run from above both: the folder beside is inside the project now
    result = CliRunner().invoke(main, ["check", "proj/a.cu"])
    assert "HP102" not in result.stdout
