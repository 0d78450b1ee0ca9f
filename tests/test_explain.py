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
    for row in table:  # every row with a HIP name is mapped, every other row is known as unsupported
        assert row["reference_mapped"] == row["reference_with_target"] > 0, row
        # a hand-written rule may map what the reference has no target for (rules/bf16.toml)
        assert row["reference_unsupported"] + row["reference_mapped_beyond"] == row["reference_without_target"], row
    assert sum(row["reference_rows"] for row in table) == 8932
    cudnn = next(row for row in table if row["library"] == "CUDNN")
    assert (cudnn["reference_with_target"], cudnn["reference_without_target"]) == (555, 607)  # MIOpen column
    text = invoke("rules", "stats", "--reference", str(reference)).output.splitlines()
    assert text[0].split()[-4:] == ["ref.", "mapped", "ref.", "unsupported"]
    assert next(line for line in text if line.startswith("CUDNN ")).split()[-3:] == ["100.00%", "555/555", "607/607"]


def test_rules_stats_notices_a_row_that_lost_its_mapping_or_gained_one(rules):
    import dataclasses

    from hipport.explain import stats

    rows = [
        {"library": "CUDA_Runtime_API", "cuda_name": "cudaMalloc", "hip_name": "hipMalloc", "roc_name": ""},
        {
            "library": "CUDA_Runtime_API",
            "cuda_name": "cudaDeviceFlushGPUDirectRDMAWrites",
            "hip_name": "",
            "roc_name": "",
        },
        {"library": "CUDNN", "cuda_name": "cudnnCreate", "hip_name": "hipdnnCreate", "roc_name": "miopenCreate"},
        {
            "library": "CUDNN",
            "cuda_name": "cudnnSetTensor4dDescriptor",
            "hip_name": "hipdnnSetTensor4dDescriptor",
            "roc_name": "",
        },
    ]
    assert [r["coverage"] for r in stats(rules, rows) if r["reference_rows"]] == [100.0, 100.0]
    broken = dataclasses.replace(rules, names=dict(rules.names))
    broken.names["cudaMalloc"] = dataclasses.replace(rules.names["cudaMalloc"], hip=None)
    broken.names["cudnnSetTensor4dDescriptor"] = dataclasses.replace(
        rules.names["cudnnSetTensor4dDescriptor"], hip="hipdnnSetTensor4dDescriptor"
    )
    table = {r["library"]: r for r in stats(broken, rows) if r["reference_rows"]}
    assert table["CUDA_Runtime_API"]["coverage"] == 50.0 and table["CUDA_Runtime_API"]["reference_mapped"] == 0
    assert table["CUDNN"]["coverage"] == 50.0 and table["CUDNN"]["reference_unsupported"] == 0


def test_rules_validate_reports_file_and_line(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('schema = 1\nheader = [\n  { cuda = "x.h", hip = "/abs/x.h" },\n]\n')
    result = CliRunner().invoke(main, ["rules", "validate", str(bad)])
    assert result.exit_code == 1
    assert f"{bad}:3: 'hip' must be a relative header path" in result.output


def test_rules_list_filters_by_library_status_and_version():
    from click.testing import CliRunner

    from hipport.cli import main

    run = CliRunner().invoke(
        main, ["rules", "list", "--library", "CUSPARSE", "--status", "unsupported", "--format", "json"]
    )
    rows = json.loads(run.stdout)
    assert rows and all(r["hip"] is None and r["library"] == "CUSPARSE" for r in rows)
    run = CliRunner().invoke(main, ["rules", "list", "--newer-than", "6.1", "--format", "json"])
    names = {r["cuda"] for r in json.loads(run.stdout)}
    assert "cudaGraphInstantiateWithParams" in names  # HIP 6.2
    assert "cudaMalloc" not in names
    run = CliRunner().invoke(main, ["rules", "list", "--newer-than", "six"])
    assert run.exit_code == 2


def test_explain_knows_the_header_macros_convert_rewrites():
    """rules/macros.toml: `convert` asks #ifdef __DRIVER_TYPES_H__ with HIP's guard, so explain knows it."""
    result = invoke("explain", "__DRIVER_TYPES_H__", "--format", "json")
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert data["known"]
    (entry,) = [e for e in data["entries"] if e["kind"] == "macro"]
    # both platforms' hip_runtime_api.h defines its own guard; only AMD's includes hip/driver_types.h
    assert entry["hip"] == "HIP_INCLUDE_HIP_HIP_RUNTIME_API_H" and entry["header"] == "driver_types.h"
    assert entry["rule_file"].endswith("macros.toml")
    text = invoke("explain", "__DRIVER_TYPES_H__").output
    assert "no rule knows" not in text and "HIP_INCLUDE_HIP_HIP_RUNTIME_API_H" in text
    # the HIP side finds the CUDA macro, and a macro HIP lacks says so
    by_hip = json.loads(invoke("explain", "HIP_INCLUDE_HIP_HIP_RUNTIME_API_H", "--format", "json").output)
    assert "__DRIVER_TYPES_H__" in {e["cuda"] for e in by_hip["entries"]}
    lacking = json.loads(invoke("explain", "__CUDACC_VER_MAJOR__", "--format", "json").output)
    macro = next(e for e in lacking["entries"] if e["kind"] == "macro")
    assert macro["supported"] is False and "HP302" in macro["rewrite"]
    assert "__DRIVER_TYPES_H__" in invoke("explain", "__DRIVER_TYPES_H").output  # a suggestion


def test_explain_macro_agrees_with_convert(tmp_path):
    source = tmp_path / "a.cu"
    source.write_text("#ifdef __DRIVER_TYPES_H__\nint x;\n#endif\n")
    out = invoke("convert", str(source), "-o", "-").output
    assert "#ifdef HIP_INCLUDE_HIP_HIP_RUNTIME_API_H" in out
