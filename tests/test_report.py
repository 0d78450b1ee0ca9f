"""hipport report: every format on a multi-file project, --from, and the CLI's contract.

Golden files live in tests/test_report/ (pytest-regressions; --force-regen
rewrites them, and each must then be read line by line). The project is
fixtures/projects/report/src: two files that port cleanly, a header, one with
APIs HIP lacks (HP101), one with a name no rule knows (HP102), and one with
APIs newer than HIP 5.2 (HP201).
"""
from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from conftest import ROOT
from hipport import __version__
from hipport.cli import main
from hipport.report import render
from hipport.report.sarif import FINGERPRINT_KEY, schema

PROJECT = ROOT / "fixtures" / "projects" / "report"
ARGS = ["src", "--hip-version", "5.2"]
FORMATS = {"text": ".txt", "json": ".json", "markdown": ".md", "html": ".html", "sarif": ".sarif", "csv": ".csv"}


def run(*args, color: bool = False):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False, color=color)


@pytest.fixture
def in_project(monkeypatch):
    monkeypatch.chdir(PROJECT)


def report_text(fmt: str, *extra) -> str:
    result = run("report", *ARGS, "--format", fmt, *extra)
    assert result.exit_code == 0, result.output
    return result.stdout


def normalised(text: str) -> str:
    """The tool's version is the only thing that changes between releases."""
    return text.replace(f"hipport {__version__}", "hipport VERSION").replace(f'"{__version__}"', '"VERSION"')


def json_report() -> dict:
    return json.loads(report_text("json"))


# -- goldens -----------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_golden(fmt, in_project, file_regression):
    file_regression.check(normalised(report_text(fmt)), basename=f"report_{fmt}", extension=FORMATS[fmt])


# -- the numbers -------------------------------------------------------------------------


def test_derived_numbers_add_up(in_project):
    summary = json_report()["summary"]
    assert summary["references"] == summary["converted"] + summary["unmapped"] + summary["unsupported"]
    assert summary["ported_automatically"] == summary["converted"] - summary["needs_newer_hip"]
    assert summary["ported_percent"] == round(100 * summary["ported_automatically"] / summary["references"], 1)
    assert sum(summary["effort_by_class"].values()) == sum(summary["findings_by_severity"].values())
    assert summary["unsupported"] == summary["findings_by_code"]["HP101"]
    assert summary["needs_newer_hip"] == summary["findings_by_code"]["HP201"]
    by_library = summary["findings_by_library"]
    assert sum(sum(c.values()) for c in by_library.values()) == sum(summary["findings_by_severity"].values())
    for library, kinds in summary["converted_by_library_kind"].items():
        assert sum(kinds.values()) == summary["converted_by_library"][library]


def test_findings_about_no_library_are_grouped_by_what_they_are_about(rules):
    from hipport.report.metrics import NO_LIBRARY, measure

    def finding(code, library=None):
        return {"code": code, "severity": "warning", "name": "x", "line": 1, "column": 1, "library": library}

    report = {"files": [{"path": "a.cu", "findings": [
        finding("HP403"), finding("HP403"), finding("HP502"), finding("HP901"), finding("HP202", "CUBLAS"),
        finding("HP102"), finding("HP436", "hipBLAS"), finding("HP436", "MPI"), finding("HP799")]}]}
    groups = {group: counts["warning"] for group, counts in measure(report, rules).findings_by_library.items()}
    # a library the port needs counts for the CUDA library it replaces: no cuBLAS bar beside a hipBLAS one
    assert groups == {"device-code lints": 2, "build files": 1, "parsing and encoding": 1, "CUBLAS": 2,
                      "names no rule knows": 1, "MPI": 1, NO_LIBRARY: 1}


def test_clean_files_port_fully_and_problem_files_do_not(in_project):
    files = {e["path"]: e for e in json_report()["files"]}
    assert not files["src/saxpy.cu"]["findings"] and files["src/saxpy.cu"]["launches"] == 1
    # gemm.cpp needs hipBLAS and hipRAND (information, HP436), and nothing stands in its way
    assert {f["code"] for f in files["src/gemm.cpp"]["findings"]} == {"HP436"}
    assert files["src/gemm.cpp"]["verdict"] == "needs-library" and files["src/gemm.cpp"]["needs"] == ["hipBLAS", "hipRAND"]
    assert files["src/saxpy.cu"]["verdict"] == "ports"
    assert files["src/l2_window.cu"]["verdict"] == "fails" and files["src/l2_window.cu"]["because"] == ["HP101"]
    assert {f["code"] for f in files["src/l2_window.cu"]["findings"]} == {"HP101"}
    assert files["src/stream_device.cu"]["unmapped"] == {"cudaStreamGetDevice": 2}
    assert {f["name"] for f in files["src/graph_debug.cu"]["findings"]} == {
        "cudaDeviceSetLimit", "cudaGraphDebugDotPrint", "cudaGraphDebugDotFlagsVerbose"}


def test_newest_hip_has_no_version_findings(in_project):
    result = run("report", "src", "--format", "json")
    summary = json.loads(result.stdout)["summary"]
    assert "HP201" not in summary["findings_by_code"] and summary["needs_newer_hip"] == 0


def test_converted_names_per_file_sum_to_library_counts(in_project):
    for entry in json_report()["files"]:
        assert sum(entry["converted_names"].values()) == sum(entry["converted"].values())


@pytest.mark.hipcc
def test_hipcc_5_2_agrees_with_the_report(in_project, tmp_path, rules):
    """Files the report calls fully ported compile with Debian's HIP 5.2; the others do not."""
    from hipport.verify import INSTALL_HINT, compile_check, find_hipcc, library_headers, status

    hipcc = find_hipcc()
    if hipcc is None:
        pytest.fail(INSTALL_HINT)
    assert run("convert", "src", "-o", tmp_path, "--hip-version", "5.2", "-q").exit_code == 0
    verdict = {}
    for entry in json_report()["files"]:
        unit = tmp_path / Path(entry["path"]).name
        if unit.suffix in (".cu", ".cpp"):
            state, _ = status(compile_check(unit, include_dirs=(tmp_path,), hipcc=hipcc), library_headers(rules))
            ported_fully = not entry["unmapped"] and not any(f["severity"] == "error" for f in entry["findings"])
            verdict[entry["path"]] = (ported_fully, state)
    assert verdict == {
        "src/saxpy.cu": (True, "OK"),
        "src/gemm.cpp": (True, verdict["src/gemm.cpp"][1]),  # hipBLAS may not be installed
        "src/graph_debug.cu": (False, "FAIL"),  # hipDeviceSetLimit arrived in HIP 5.3
        "src/l2_window.cu": (False, "FAIL"),
        "src/stream_device.cu": (False, "FAIL"),
    }
    assert verdict["src/gemm.cpp"][1] in ("OK", "NO-LIB")


# -- --from ------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_from_json_renders_the_same_as_analysis(fmt, in_project, tmp_path):
    saved = tmp_path / "r.json"
    assert run("report", *ARGS, "--format", "json", "-o", saved).exit_code == 0
    result = run("report", "--from", saved, "--format", fmt)
    assert result.exit_code == 0, result.output
    assert result.stdout == report_text(fmt)


def test_from_a_report_written_before_the_derived_fields(in_project, tmp_path, rules):
    old = json_report()
    derived = {"references", "ported_automatically", "ported_percent", "unsupported", "needs_newer_hip",
               "converted_by_library_kind", "not_ported_by_name", "findings_by_library", "effort_by_class"}
    old["summary"] = {k: v for k, v in old["summary"].items() if k not in derived}
    for entry in old["files"]:
        del entry["converted_names"]
    upgraded = json.loads(render(old, "json", rules))
    fresh = json_report()["summary"]
    for key in derived - {"converted_by_library_kind"}:
        assert upgraded["summary"][key] == fresh[key], key
    assert upgraded["summary"]["converted_by_library_kind"] == {}
    for fmt in ("text", "markdown", "html", "sarif", "csv"):
        assert render(old, fmt, rules)


def test_from_convert_report_finds_sources_through_root(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    saved = tmp_path / "r.json"
    result = run("convert", PROJECT / "src", "-o", tmp_path / "out", "--report", saved, "--hip-version", "5.2", "-q")
    assert result.exit_code == 0, result.output
    data = json.loads(saved.read_text())
    assert data["root"] == str(PROJECT / "src") and data["files"][0]["path"] == "cuda_check.cuh"
    assert data["summary"]["ported_automatically"] == 52  # derived numbers are part of convert's report too
    page = run("report", "--from", saved, "--format", "html").stdout
    assert "source not available" not in page
    assert "CUDA_CHECK(<mark>cudaCtxResetPersistingL2Cache</mark>());" in page
    sarif = json.loads(run("report", "--from", saved, "--format", "sarif").stdout)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]}
    assert f"{(PROJECT / 'src' / 'l2_window.cu').as_uri()}" in uris


def test_from_without_sources_says_so(in_project, tmp_path, monkeypatch):
    saved = tmp_path / "r.json"
    run("report", *ARGS, "--format", "json", "-o", saved)
    monkeypatch.chdir(tmp_path)
    page = run("report", "--from", saved, "--format", "html").stdout
    assert "source not available" in page and "<mark>" not in page


# -- SARIF -------------------------------------------------------------------------------


def test_sarif_validates_against_the_vendored_schema(in_project):
    log = json.loads(report_text("sarif"))
    jsonschema.Draft4Validator(schema()).validate(log)
    assert schema()["id"].endswith("sarif-schema-2.1.0.json")


def test_sarif_results_match_the_json_findings(in_project):
    log = json.loads(report_text("sarif"))
    (sarif_run,) = log["runs"]
    rules = sarif_run["tool"]["driver"]["rules"]
    findings = [(e["path"], f) for e in json_report()["files"] for f in e["findings"]]
    assert len(sarif_run["results"]) == len(findings)
    levels = {"error": "error", "warning": "warning", "info": "note"}
    for result, (path, finding) in zip(sarif_run["results"], findings):
        region = result["locations"][0]["physicalLocation"]["region"]
        assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == path
        assert (region["startLine"], region["startColumn"]) == (finding["line"], finding["column"])
        assert (region["endLine"], region["endColumn"]) == (finding["end_line"], finding["end_column"])
        assert region["endColumn"] - region["startColumn"] == len(finding["name"])
        assert result["partialFingerprints"][FINGERPRINT_KEY] == finding["fingerprint"]
        assert result["level"] == levels[finding["severity"]]
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"] == finding["code"]
    assert all(rule["help"]["text"] and rule["shortDescription"]["text"] for rule in rules)
    assert sarif_run["columnKind"] == "unicodeCodePoints"


def test_sarif_with_a_fix_and_an_empty_region_still_validates(rules):
    finding = {"code": "HP101", "severity": "warning", "line": 3, "column": 5, "end_line": 3, "end_column": 5,
               "name": "", "library": None, "message": "m", "fingerprint": "abc",
               "fix": {"replacement": "warpSize", "applicability": "unsafe"}}
    report = {"files": [{"path": "dir with space/k.cu", "findings": [finding]}], "options": {"hip_version": "6.2"}}
    log = json.loads(render(report, "sarif", rules))
    jsonschema.Draft4Validator(schema()).validate(log)
    (result,) = log["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "dir%20with%20space/k.cu"
    (fix,) = result["fixes"]
    assert fix["artifactChanges"][0]["replacements"][0]["insertedContent"]["text"] == "warpSize"


# -- HTML --------------------------------------------------------------------------------


def test_html_is_self_contained(in_project):
    page = report_text("html")
    assert not re.search(r"<(link|img|iframe)\b|\bsrc=|@import|url\(", page)
    assert not re.search(r'href="(?!#)', page)
    assert "<svg" in page and "<script>" in page


def test_html_escapes_source_messages_and_paths(tmp_path, monkeypatch, rules):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "<b>evil.cu"
    path.write_bytes(b"// </pre><script>alert(1)</script>\nvoid f() { cudaFooBar(\"<i>\"); }\n")
    result = run("report", path.name, "--format", "html")
    assert result.exit_code == 0
    page = result.stdout
    assert "<script>alert(1)" not in page and "&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<b>evil" not in page and "&lt;b&gt;evil.cu" in page
    assert "<mark>cudaFooBar</mark>(&#34;&lt;i&gt;&#34;)" in page


def test_html_shows_fix_and_help_for_a_finding_with_a_fix(rules):
    finding = {"code": "HP101", "severity": "error", "line": 2, "column": 30, "end_line": 2, "end_column": 32,
               "name": "32", "library": None, "message": "lane arithmetic with 32", "fingerprint": "f",
               "fix": {"replacement": "warpSize", "applicability": "unsafe"}}
    source = b"__global__ void k() {\n    int lane = threadIdx.x % 32;\n}\n"
    report = {"files": [{"path": "k.cu", "findings": [finding]}], "options": {"hip_version": "6.2"}}
    page = render(report, "html", rules, {"k.cu": source}.get)
    assert "Suggested HIP code (unsafe)" in page
    assert '<span class="ln">2</span>    int lane = threadIdx.x % warpSize;</pre>' in page
    assert "int lane = threadIdx.x % <mark>32</mark>;" in page
    assert rules.codes["HP101"].help in page


def test_html_context_for_crlf_bom_and_tabs(rules):
    source = b"\xef\xbb\xbf#include <cuda_runtime.h>\r\n\tcudaFooBar(1);\r\n"
    finding = {"code": "HP102", "severity": "warning", "line": 2, "column": 2, "end_line": 2, "end_column": 12,
               "name": "cudaFooBar", "message": "m", "fingerprint": "f"}
    report = {"files": [{"path": "k.cu", "findings": [finding], "unmapped": {"cudaFooBar": 1}}]}
    page = render(report, "html", rules, {"k.cu": source}.get)
    assert '<span class="ln">1</span>#include &lt;cuda_runtime.h&gt;\n' in page
    assert '<span class="target">\t<mark>cudaFooBar</mark>(1);</span>' in page


# -- CSV ---------------------------------------------------------------------------------


def test_csv_rows_add_up_to_the_report(in_project):
    rows = list(csv.DictReader(io.StringIO(report_text("csv"))))
    report = json_report()
    assert len({(r["file"], r["cuda"]) for r in rows}) == len(rows)
    for entry in report["files"]:
        mine = [r for r in rows if r["file"] == entry["path"]]
        renamed = sum(int(r["count"]) for r in mine if r["status"] in ("ported", "needs-newer-hip"))
        assert renamed == sum(entry["converted"].values())
        unmapped = {r["cuda"]: int(r["count"]) for r in mine if r["status"] == "unmapped-name"}
        assert unmapped == entry["unmapped"]
    unsupported = sum(int(r["count"]) for r in rows if r["status"] == "unsupported-api")
    assert unsupported == report["summary"]["unsupported"]


# -- text and markdown -------------------------------------------------------------------


def test_text_is_coloured_only_on_a_tty(in_project):
    plain = run("report", *ARGS).stdout
    coloured = run("report", *ARGS, color=True).stdout
    assert "\x1b[" not in plain and "\x1b[" in coloured
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == plain


def test_markdown_lists_the_top_names_only(rules):
    names = {f"cudaMade{i:02d}": 20 - i for i in range(12)}
    report = {"files": [{"path": "a.cu", "unmapped": names, "findings": []}], "options": {"hip_version": "6.2"}}
    text = render(report, "markdown", rules)
    assert "### Not ported automatically (top 10 of 12)" in text
    assert "`cudaMade09`" in text and "`cudaMade10`" not in text
    assert text.index("`cudaMade00`") < text.index("`cudaMade01`")


def test_markdown_lists_only_files_that_need_a_hand(rules):
    files = [{"path": f"f{i:02d}.cu", "unmapped": {"cudaMadeUp": i + 1}, "findings": []} for i in range(60)]
    files.append({"path": "clean.cu", "converted": {"CUDA_Runtime_API": 3}, "findings": []})
    text = render({"files": files, "options": {"hip_version": "6.2"}}, "markdown", rules)
    assert "Files that need a hand (60 of 61)" in text and "… and 10 more." in text
    assert "1 file(s) ported fully with no findings." in text
    assert "`clean.cu`" not in text and "`f59.cu`" in text and "`f09.cu`" not in text  # worst first
    assert len(text) < 65536


# -- the command line --------------------------------------------------------------------


def test_report_writes_nothing_but_the_output_file(in_project, tmp_path):
    before = sorted((p, p.stat().st_mtime_ns) for p in PROJECT.rglob("*"))
    out = tmp_path / "r.html"
    result = run("report", *ARGS, "--format", "html", "-o", out)
    assert result.exit_code == 0 and result.stdout == ""
    assert out.read_text().startswith("<!DOCTYPE html>")
    assert sorted((p, p.stat().st_mtime_ns) for p in PROJECT.rglob("*")) == before


def test_text_written_to_a_file_has_no_colour(in_project, tmp_path):
    out = tmp_path / "r.txt"
    assert run("report", *ARGS, "-o", out, color=True).exit_code == 0
    assert "\x1b[" not in out.read_text() and out.read_text() == run("report", *ARGS).stdout


@pytest.mark.parametrize("args, message", [
    ([], "give PATHS to analyze, or --from"),
    (["src", "--from", "r.json"], "--from renders a finished report"),
    (["--from", "r.json", "--hip-version", "5.2"], "--from renders a finished report"),
    (["missing.cu"], "missing.cu: no such file or directory"),
    (["--from", "missing.json"], "missing.json: cannot read"),
    (["src", "--hip-version", "five"], "not a version"),
    (["src", "--format", "pdf"], "'pdf' is not one of"),
])
def test_usage_errors_exit_2_with_one_line(args, message, in_project):
    result = run("report", *args)
    assert result.exit_code == 2
    assert message in result.output


@pytest.mark.parametrize("content, message", [
    ("{not json", "bad.json:1: not a hipport JSON report (Expecting property name"),
    ("[1, 2]", "bad.json: not a hipport JSON report (the top level is not an object)"),
    ('{"files": [{"findings": []}]}', "bad.json: not a hipport JSON report (files[0] has no 'path')"),
    ('{"files": [{"path": "a.cu", "findings": [{"code": "HP101"}]}]}', "lacks code, severity, line"),
])
def test_malformed_from_report_exits_2(content, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.json").write_text(content)
    result = run("report", "--from", "bad.json")
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_unwritable_output_exits_2(in_project, tmp_path):
    result = run("report", *ARGS, "-o", tmp_path / "no" / "such" / "dir" / "r.txt")
    assert result.exit_code == 2 and "cannot write report" in result.output


def test_tree_skips_symlinks_and_directories(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "ok.cu").write_text("void f() { cudaDeviceSynchronize(); }\n")
    (tmp_path / "src" / "dir.cu").mkdir()
    (tmp_path / "src" / "gone.cu").symlink_to(tmp_path / "nowhere.cu")
    result = run("report", "src", "--format", "json")
    assert result.exit_code == 0, result.output
    assert [e["path"] for e in json.loads(result.stdout)["files"]] == ["src/ok.cu"]


def test_a_file_that_cannot_be_read_is_reported_and_exits_2(in_project, monkeypatch):
    from hipport import porting

    real = porting.port_file

    def flaky(path, *args, **kwargs):
        if Path(path).name == "gemm.cpp":
            raise porting.PortError(f"{path}: cannot read: Permission denied")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(porting, "port_file", flaky)
    result = run("report", *ARGS)
    assert result.exit_code == 2
    assert "hipport: src/gemm.cpp: cannot read: Permission denied" in result.output
    assert "src/saxpy.cu" in result.stdout and "src/gemm.cpp" not in result.stdout
