"""hipport explain and hipport rules."""
from __future__ import annotations

import json

from click.testing import CliRunner

from conftest import ROOT
from hipport.cli import main


def invoke(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_explain_cuda_name_shows_mapping_versions_and_rewrite():
    result = invoke("explain", "cudaMemcpyToSymbol", "--format", "json")
    (entry,) = json.loads(result.output)["entries"]
    assert entry["hip"] == "hipMemcpyToSymbol" and entry["library"] == "CUDA_Runtime_API"
    assert entry["added"] == "1.6.0"
    assert "HIP_SYMBOL" in entry["rewrite"]


def test_explain_hip_name_finds_the_cuda_names():
    entries = json.loads(invoke("explain", "hipMalloc", "--format", "json").output)["entries"]
    assert {"cudaMalloc", "cuMemAlloc"} <= {e["cuda"] for e in entries}


def test_explain_unknown_name_suggests_close_ones():
    result = invoke("explain", "cudaMaloc")
    assert result.exit_code == 1
    assert "did you mean: cudaMalloc" in result.output


def test_explain_shows_user_rule_won(tmp_path):
    mine = tmp_path / "mine.toml"
    mine.write_text('schema = 1\nrename = [\n  { cuda = "cudaMalloc", hip = "myMalloc" },\n]\n')
    result = invoke("explain", "cudaMalloc", "--rules", str(mine))
    assert "myMalloc" in result.output and "user rule, overrides the built-in one" in result.output


def test_rules_stats_covers_every_reference_row():
    reference = ROOT.parent / "shared" / "reference" / "cuda-hip-mappings.csv"
    if not reference.exists():
        import pytest

        pytest.skip("reference CSVs are not beside this checkout")
    table = json.loads(invoke("rules", "stats", "--reference", str(reference), "--format", "json").output)
    assert {row["library"] for row in table} >= {"CUBLAS", "CUDA_Runtime_API", "CUDNN", "CUB"}
    assert all(row["coverage"] == 100.0 for row in table)


def test_rules_validate_reports_file_and_line(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('schema = 1\nheader = [\n  { cuda = "x.h", hip = "/abs/x.h" },\n]\n')
    result = CliRunner().invoke(main, ["rules", "validate", str(bad)])
    assert result.exit_code == 1
    assert f"{bad}:3: 'hip' must be a relative header path" in result.output
