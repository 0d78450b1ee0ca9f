"""The report leads with what a reviewer must do (issue 28: defects 5 and 7, gap 3): files that
will not build and why, silent warp-size risks, the libraries to install, then what ported; a
verdict per file; work estimated, not findings counted; severities as the findings have them."""

from __future__ import annotations

import json
from pathlib import Path

import click
from click.testing import CliRunner

from hipport.cli import main

ROOT = Path(__file__).resolve().parents[1]
LLM = ROOT / "fixtures" / "projects" / "ux-llm"
SGEMM = ROOT / "fixtures" / "projects" / "ux-sgemm"


def _report(*args: str) -> str:
    result = CliRunner().invoke(main, ["report", *args])
    assert result.exit_code == 0, result.output
    return click.unstyle(result.stdout)


# -- gap 3: the action list ----------------------------------------------------------------


def test_the_text_report_starts_with_the_action_list_and_the_libraries():
    lines = _report(str(LLM), "--format", "text").splitlines()
    assert lines[0] == "hipport report: 8 file(s), target HIP 6.3"  # the Makefile is one
    assert lines[1].startswith("1 will not build, 2 need review, 5 port automatically; estimated work: about ")
    assert lines[3] == "What to do, worst first"
    sections = [line for line in lines if line[:2] in ("1.", "2.", "3.", "4.", "5.")]
    assert [s.split(":")[0] for s in sections] == [
        "1. Will not build",
        "2. Silent runtime risks, 32-lane warp assumptions (AMD wavefronts have 64 lanes)",
        "3. Libraries to install",
        # reduce.cuh needs review for its warp risks only, listed under 2: no section of its own
        "4. Ported automatically",
    ]
    assert sections[2] == "3. Libraries to install: hipBLAS, MIOpen"
    text = "\n".join(lines)
    # each problem once, with its count and the finding's next step
    assert "11  HP101  'CUBLAS_GEMM_DEFAULT_TENSOR_OP' (cuBLAS) has no HIP equivalent; use HIPBLAS_GEMM_DEFAULT" in text
    assert "HP101" not in text.split("2. Silent runtime risks")[1].split("3. Libraries")[0]
    assert "use HIPBLAS_GEMM_DEFAULT" in text
    assert "hipBLAS  package hipblas     for cuBLAS  3 file(s)" in text
    assert "MIOpen   package miopen-hip  for cuDNN   1 file(s)" in text
    # the action list comes before the numbers and the table
    assert text.index("What to do") < text.index("CUDA references:") < text.index("file ")


def test_the_sgemm_project_reads_the_same_way():
    text = _report(str(SGEMM))
    assert "1. Will not build: 1 file(s)" in text and "src/runner.cu  (will not build, about 1 h)" in text
    assert "2. Silent runtime risks" in text and "'threadIdx.x % 32'" in text
    assert "3. Libraries to install: hipBLAS" in text


def test_every_file_has_a_verdict_in_text_and_markdown():
    text = _report(str(LLM))
    rows = {line.split()[0][len(str(LLM)) + 1 :]: line for line in text.splitlines() if line.startswith(str(LLM))}
    assert len(rows) == 8
    assert rows["llmc/matmul.cuh"].split()[1:4] == ["will", "not", "build"]
    assert rows["llmc/reduce.cuh"].split()[1:3] == ["needs", "review"]
    assert rows["llmc/cudnn_att.cu"].split()[1:3] == ["ports", "automatically"]
    markdown = _report(str(LLM), "--format", "markdown")
    assert "| file | verdict | refs |" in markdown
    assert "| `" + str(LLM) + "/llmc/matmul.cuh` | will not build |" in markdown
    assert markdown.index("### What to do, worst first") < markdown.index("| | count |")
    assert "**Libraries to install**: hipBLAS (package `hipblas`, for cuBLAS, 3 file(s)); MIOpen" in markdown


def test_a_clean_project_says_there_is_nothing_to_do(tmp_path):
    (tmp_path / "a.cu").write_text("#include <cuda_runtime.h>\nvoid f(float *p) { cudaFree(p); }\n")
    text = _report(str(tmp_path))
    assert "0 will not build, 0 need review, 1 ports automatically; estimated work: -" in text
    assert "1. Ported automatically: 1 of 1 CUDA references (100.0%); 1 file(s) need nothing by hand" in text


def test_the_verdict_is_a_function_of_a_report_entry(rules):
    from hipport.report.verdict import file_verdict

    entry = {
        "path": "a.cu",
        "converted": {"CUDNN": 3},
        "findings": [{"code": "HP404", "severity": "warning", "name": "16", "line": 3, "column": 1}],
    }
    verdict = file_verdict(entry, rules)
    assert (verdict.kind, verdict.label, verdict.because, verdict.needs) == (
        "review",
        "needs review",
        ("HP404",),
        ("MIOpen",),
    )
    assert verdict.minutes == 20  # HP404's effort is medium


def test_work_is_estimated_by_problem_not_counted_by_finding(rules):
    from hipport.report.verdict import format_minutes, work_minutes

    def finding(code, name, severity="error"):
        return {"code": code, "severity": severity, "name": name, "line": 1, "column": 1}

    one = work_minutes([finding("HP101", "__stcs")], rules)
    repeated = work_minutes([finding("HP101", "__stcs")] * 10, rules)
    related = work_minutes([finding("HP101", "__stcs"), finding("HP101", "__stwt")], rules)
    assert one == 60 and one < repeated < 2 * one  # the fix is known after the first
    assert one < related < 2 * one  # another name of the same kind of change
    assert work_minutes([finding("HP433", "threadIdx", "info")] * 50, rules) == 0  # the meaning was kept
    assert [format_minutes(m) for m in (0, 7, 52, 60, 95, 600)] == ["none", "5 min", "50 min", "1 h", "1.5 h", "10 h"]


# -- defect 5: severities as the findings have them -----------------------------------------


def test_the_code_table_shows_the_severity_the_findings_have(tmp_path):
    (tmp_path / "arch.cu").write_text(
        "__global__ void k(float *p) {\n#ifdef __CUDA_ARCH__\n  p[0] = 1;\n#endif\n}\n"
        "#if defined(__CUDA_ARCH__)\nint device_pass = 1;\n#endif\n"
    )
    data = json.loads(_report(str(tmp_path), "--format", "json"))
    assert {f["severity"] for f in data["files"][0]["findings"] if f["code"] == "HP415"} == {"info"}
    text = _report(str(tmp_path))
    (row,) = [line for line in text.splitlines() if line.strip().startswith("HP415")]
    assert row.split()[2] == "info"
    markdown = _report(str(tmp_path), "--format", "markdown")
    assert "| HP415 | cuda-arch-macro | info |" in markdown


def test_a_code_with_findings_of_two_severities_shows_both(tmp_path):
    (tmp_path / "arch.cu").write_text(
        "__global__ void k(float *p) {\n#ifdef __CUDA_ARCH__\n  p[0] = 1;\n#endif\n  p[1] = __CUDA_ARCH__;\n}\n"
    )
    text = _report(str(tmp_path))
    (row,) = [line for line in text.splitlines() if line.strip().startswith("HP415")]
    assert row.split()[2] == "error/info"


# -- defect 7: the libraries the port needs -------------------------------------------------


def _dnn_project(root: Path) -> Path:
    (root / "include").mkdir(parents=True)
    (root / "include" / "dnn.h").write_text("#pragma once\n#include <cudnn.h>\n")
    (root / "att.cu").write_text('#include "dnn.h"\nvoid f() { cudnnHandle_t h; cudnnCreate(&h); cudnnDestroy(h); }\n')
    return root


def test_miopen_is_needed_where_cudnn_calls_were_ported(tmp_path):
    """att.cu calls cuDNN through a project header; only the header includes cudnn.h."""
    root = _dnn_project(tmp_path)
    data = json.loads(_report(str(root / "att.cu"), "--format", "json"))
    assert data["summary"]["libraries_needed"] == {"MIOpen": 1}
    assert data["files"][0]["needs"] == ["MIOpen"] and data["files"][0]["verdict"] == "needs-library"
    assert "Libraries to install: MIOpen" in _report(str(root / "att.cu"))


def test_ignoring_hp436_does_not_hide_a_library(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.hipport]\nignore = ["HP436"]\n')
    (tmp_path / "g.cu").write_text("#include <cublas_v2.h>\nvoid f() { cublasHandle_t h; cublasCreate(&h); }\n")
    data = json.loads(_report("g.cu", "--format", "json"))
    assert "HP436" not in data["summary"]["findings_by_code"]
    assert data["summary"]["libraries_needed"] == {"hipBLAS": 1}


def test_the_chart_groups_by_cuda_library_and_names_every_bar(tmp_path):
    (tmp_path / "g.cu").write_text(
        "#include <cublas_v2.h>\nvoid f() { cublasHandle_t h; cublasCreate(&h); cudaMysteryCall(); "
        "cublasGemmAlgo_t a = CUBLAS_GEMM_DEFAULT_TENSOR_OP; (void)a; }\n"
    )
    data = json.loads(_report(str(tmp_path), "--format", "json"))
    groups = data["summary"]["findings_by_library"]
    assert set(groups) == {"CUBLAS", "names no rule knows"}  # HP436's hipBLAS counts for cuBLAS
    assert groups["CUBLAS"] == {"error": 1, "warning": 0, "info": 1}
    html = _report(str(tmp_path), "--format", "html")
    labels = [
        part.split("<")[0] for part in html.split('dominant-baseline="middle" font-size="12" fill="#1d232b">')[1:]
    ]
    assert labels == ["cuBLAS", "names no rule knows"]
