"""The verify join: compile failures of hand-written ported trees against hand-written reports.

The compiler's output is written here as clang prints it, so every class is checked without
hipcc; test_verify_join_hipcc at the end runs the real compiler on a small tree.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from hipport.cli import main
from hipport.ruleset.loader import load_rules
from hipport.verify import CompileResult, translation_units
from hipport.verify.diag import error_kind, first_error
from hipport.verify.join import Report, join
from hipport.verify.libraries import library_table
from hipport.verify.summary import summarize, table_lines


def finding(code: str, line: int, name: str, severity: str = "error", message: str = "") -> dict:
    return {"code": code, "severity": severity, "line": line, "column": 1, "name": name,
            "message": message or f"'{name}' finding"}


def make_tree(tmp_path: Path, files: dict[str, str], sources: dict[str, str] | None = None,
              findings: dict[str, list[dict]] | None = None) -> tuple[Path, Report]:
    """A ported tree out/ (files), its CUDA source src/ (sources, default: files) and a report."""
    out, src = tmp_path / "out", tmp_path / "src"
    for root, contents in ((out, files), (src, sources or files)):
        for rel, text in contents.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
    report = {"schema": 1, "root": str(src), "summary": {},
              "files": [{"path": rel, "findings": (findings or {}).get(rel, [])} for rel in files]}
    (tmp_path / "r.json").write_text(json.dumps(report))
    return out, Report.load(tmp_path / "r.json")


def failed(output: str) -> CompileResult:
    return CompileResult("unit", False, "", output)


@pytest.fixture(scope="module")
def libraries():
    return library_table(load_rules([]))


def verdict_of(out: Path, report: Report, libraries, unit: str, result: CompileResult, include_dirs=()):
    return join(out, [out / unit], [result], report, libraries, include_dirs)[0]


def test_a_unit_that_compiles_is_ok_and_clean_without_findings(tmp_path, libraries):
    out, report = make_tree(tmp_path, {"a.hip": "int main() {}\n"})
    v = verdict_of(out, report, libraries, "a.hip", CompileResult("a", True, "", ""))
    assert (v.verdict, v.clean) == ("ok", True)


@pytest.mark.parametrize("header, library", [("hipblas/hipblas.h", "hipblas"), ("hipfft/hipfft.h", "hipfft"),
                                             ("GL/freeglut.h", "OpenGL"), ("mpi.h", "MPI"),
                                             ("thrust/device_vector.h", "rocThrust"),
                                             ("nvmedia_2d.h", "NvMedia"), ("drm_fourcc.h", "libdrm"),
                                             ("torch/extension.h", "PyTorch"), ("c10/hip/HIPGuard.h", "PyTorch")])
def test_a_missing_library_header_is_no_lib(tmp_path, libraries, header, library):
    out, report = make_tree(tmp_path, {"a.hip": f"#include <{header}>\n"})
    v = verdict_of(out, report, libraries, "a.hip",
                   failed(f"{out}/a.hip:1:10: fatal error: '{header}' file not found\n#include <{header}>\n"))
    assert (v.verdict, v.library) == ("no-lib", library)


def test_a_cuda_library_header_a_hip_library_wraps_on_nvidia_is_no_lib(tmp_path, libraries):
    # HIP's NVIDIA-platform hipRAND includes cuRAND's own header, as gcc (nvcc's preprocessor) reports
    out, report = make_tree(tmp_path, {"a.hip": "#include <hiprand/hiprand_kernel.h>\n"})
    v = verdict_of(out, report, libraries, "a.hip",
                   failed("In file included from /usr/include/hiprand/hiprand_kernel.h:56,\n"
                          f"                 from {out}/a.hip:1:\n"
                          "/usr/include/hiprand/hiprand_kernel_nvcc.h:31:10: fatal error: curand_kernel.h: "
                          "No such file or directory\n"))
    assert (v.verdict, v.library) == ("no-lib", "hiprand")


def test_a_missing_project_or_cuda_header_is_not_a_library(tmp_path, libraries):
    out, report = make_tree(tmp_path, {"a.hip": "#include <cuda/barrier>\n"})
    v = verdict_of(out, report, libraries, "a.hip",
                   failed(f"{out}/a.hip:1:10: fatal error: 'cuda/barrier' file not found\n"))
    assert (v.verdict, v.clean) == ("port-fault", True)
    assert "clean verdict miss" in v.detail and "cuda/barrier" in v.first_error


def test_a_missing_project_header_elsewhere_in_the_tree_is_an_include_path_problem(tmp_path, libraries):
    out, report = make_tree(tmp_path, {"a.hip": "#include <Exceptions.h>\n", "util/npp/Exceptions.h": "\n"})
    v = verdict_of(out, report, libraries, "a.hip", failed(f"{out}/a.hip:1:10: fatal error: 'Exceptions.h' file not found\n"))
    assert v.verdict == "no-include" and "util/npp/Exceptions.h" in v.detail
    # a name that only ends like it is another header
    v = verdict_of(out, report, libraries, "a.hip", failed(f"{out}/a.hip:1:10: fatal error: 'ions.h' file not found\n"))
    assert v.verdict == "port-fault"


def test_a_missing_header_the_cuda_source_includes_too_is_the_builds_not_the_ports(tmp_path, libraries):
    """config.h made by configure, or another project's header: the port did not write that include.
    A CUDA header the source includes is still the port's to replace, and a header only the port
    names is the port's fault."""
    files = {"a.hip": '#include <hip/hip_runtime.h>\n#include "config.h"\n#include <cuda/barrier>\n#include "only.h"\n'}
    sources = {"a.hip": '#include "config.h"\n#include <cuda/barrier>\n'}
    out, report = make_tree(tmp_path, files, sources)
    v = verdict_of(out, report, libraries, "a.hip", failed(f"{out}/a.hip:2:10: fatal error: 'config.h' file not found\n"))
    assert v.verdict == "no-include" and "CUDA source includes it too" in v.detail
    v = verdict_of(out, report, libraries, "a.hip",
                   failed(f"{out}/a.hip:3:10: fatal error: 'cuda/barrier' file not found\n"))
    assert v.verdict == "port-fault"
    v = verdict_of(out, report, libraries, "a.hip",
                   failed(f"{out}/a.hip:4:10: fatal error: 'only.h' file not found\n"))
    assert v.verdict == "port-fault"


def test_a_relative_report_root_is_found_beside_the_report(tmp_path, monkeypatch):
    (tmp_path / "src").mkdir()
    (tmp_path / "r.json").write_text(json.dumps({"schema": 1, "root": "src", "files": []}))
    monkeypatch.chdir(tmp_path / "src")  # verify runs elsewhere than convert did
    assert Report.load(tmp_path / "r.json").root == tmp_path / "src"


def test_an_angled_include_of_a_fragment_beside_the_unit_makes_it_a_header(tmp_path):
    """`#include <kernel.cu>` with the unit's folder on the include path (-I.)."""
    (tmp_path / "bfs.cu").write_text("#include <kernel.cu>\nint main() {}\n")
    (tmp_path / "kernel.cu").write_text("__global__ void k() {}\n")
    assert [u.name for u in translation_units(tmp_path)] == ["bfs.cu"]


def test_a_header_finding_naming_the_missing_header_expects_it(tmp_path, libraries):
    files = {"a.hip": "#include <cuda/barrier>\n"}
    out, report = make_tree(tmp_path, files, findings={"a.hip": [finding("HP103", 1, "cuda/barrier")]})
    v = verdict_of(out, report, libraries, "a.hip", failed(f"{out}/a.hip:1:10: fatal error: 'cuda/barrier' file not found\n"))
    assert v.verdict == "expected" and v.detail == "expected: HP103 cuda/barrier at a.hip:1"


def test_a_finding_at_the_error_line_expects_it_across_an_inserted_include(tmp_path, libraries):
    source = "#include <cuda_runtime.h>\nvoid f() {\n  cudaFooBar();\n}\n"
    ported = "#include <hip/hip_runtime.h>\n#include <hip/hip_runtime_api.h>\nvoid f() {\n  cudaFooBar();\n}\n"
    out, report = make_tree(tmp_path, {"a.hip": ported}, {"a.hip": source},
                            {"a.hip": [finding("HP101", 3, "cudaFooX")]})  # a name the error does not quote
    v = verdict_of(out, report, libraries, "a.hip",
                   failed(f"{out}/a.hip:4:3: error: use of undeclared identifier 'cudaFooBar'\n"))
    assert v.verdict == "expected" and v.finding == {"code": "HP101", "name": "cudaFooX", "file": "a.hip", "line": 3}


def test_a_finding_at_another_line_with_another_name_explains_nothing(tmp_path, libraries):
    text = "void f() {\n  g();\n}\nvoid h() { cudaOther(); }\n"
    out, report = make_tree(tmp_path, {"a.hip": text}, findings={"a.hip": [finding("HP101", 4, "cudaOther")]})
    v = verdict_of(out, report, libraries, "a.hip", failed(f"{out}/a.hip:2:3: error: use of undeclared identifier 'g'\n"))
    assert (v.verdict, v.clean, v.predictions) == ("port-fault", False, 1)
    assert "clean verdict miss" not in v.detail


def test_an_nvcc_error_at_a_macro_call_is_explained_by_a_finding_on_a_later_line_of_the_statement(
        tmp_path, libraries):
    # nvcc reports an error inside a macro's arguments at the line where the invocation begins
    text = ("void f(int d) {\n  int v;\n  CHECK(hipDeviceGetAttribute(\n      &v, CU_ATTRIBUTE_HIP_LACKS, d));  // note\n"
            "  g(v);\n  h(v,\n    CU_OTHER);\n}\n")
    findings = {"a.hip": [finding("HP101", 4, "CU_ATTRIBUTE_HIP_LACKS"), finding("HP101", 7, "CU_OTHER")]}
    out, report = make_tree(tmp_path, {"a.hip": text}, findings=findings)
    nvcc = f'{out}/a.hip(3): error: argument of type "CUenum" is incompatible with parameter of type "hipEnum"\n'
    v = verdict_of(out, report, libraries, "a.hip", failed(nvcc))
    assert v.verdict == "expected" and v.finding["name"] == "CU_ATTRIBUTE_HIP_LACKS"
    # the statement ends at its semicolon: a finding past it explains nothing
    v = verdict_of(out, report, libraries, "a.hip", failed(f'{out}/a.hip(5): error: identifier "g" is undefined\n'))
    assert v.verdict == "port-fault"


def test_an_error_in_the_branch_a_cuda_version_test_takes_under_hip_is_expected(tmp_path, libraries):
    # HP301: HIP does not define CUDART_VERSION, so AMD compiles the #else branch, stale code and all
    text = ("#if CUDART_VERSION >= 2020\nvoid f() { run(); }\n#else\n#ifdef VERBOSE\nvoid v();\n#endif\n"
            "void f() { print_min_spec(); }\n#endif\nvoid g() { h(); }\n")
    out, report = make_tree(tmp_path, {"a.hip": text}, findings={"a.hip": [finding("HP301", 1, "CUDART_VERSION", "warning")]})
    v = verdict_of(out, report, libraries, "a.hip",
                   failed(f"{out}/a.hip:7:12: error: use of undeclared identifier 'print_min_spec'\n"))
    assert v.verdict == "expected" and v.finding["name"] == "CUDART_VERSION"
    # outside the #if's branches the finding explains nothing
    v = verdict_of(out, report, libraries, "a.hip", failed(f"{out}/a.hip:9:12: error: use of undeclared identifier 'h'\n"))
    assert v.verdict == "port-fault"


def test_a_finding_in_an_included_project_header_naming_the_hip_name_expects_it(tmp_path, libraries):
    files = {"a.hip": '#include "util/check.h"\nint main() { return 0; }\n',
             "util/check.h": "#include <deep.h>\n", "inc/deep.h": "void g() { hipNewThing(); }\n"}
    message = "'cudaNewThing' -> 'hipNewThing': 'hipNewThing' needs HIP 6.1; the target is 5.2"
    out, report = make_tree(tmp_path, files,
                            findings={"inc/deep.h": [finding("HP201", 1, "cudaNewThing", message=message)]})
    output = (f"In file included from {out}/a.hip:1:\nIn file included from {out}/util/check.h:1:\n"
              f"{out}/inc/deep.h:1:12: error: use of undeclared identifier 'hipNewThing'\n")
    v = verdict_of(out, report, libraries, "a.hip", failed(output), include_dirs=(out / "inc",))
    assert v.verdict == "expected" and v.detail == "expected: HP201 cudaNewThing at inc/deep.h:1"
    # without the include directory the header is not the unit's: nothing predicted the failure
    v = verdict_of(out, report, libraries, "a.hip", failed(output))
    assert (v.verdict, v.clean) == ("port-fault", True)


def test_a_semantic_difference_finding_is_semantic(tmp_path, libraries):
    text = "__global__ void k() {\n  child<<<1, 1>>>();\n}\n"
    out, report = make_tree(tmp_path, {"a.hip": text}, findings={"a.hip": [finding("HP414", 2, "child")]})
    v = verdict_of(out, report, libraries, "a.hip",
                   failed(f"{out}/a.hip:2:3: error: reference to __global__ function 'child' in __global__ function\n"))
    assert v.verdict == "semantic" and v.detail.startswith("semantic: HP414 child at a.hip:2")


def test_a_macro_note_location_counts_as_the_error_line(tmp_path, libraries):
    files = {"a.hip": '#include "m.h"\nvoid f() { CHECK(1); }\n', "m.h": "#define CHECK(x) cudaOldCall(x)\n"}
    out, report = make_tree(tmp_path, files, findings={"m.h": [finding("HP101", 1, "cudaOldCallX", "warning")]})
    output = (f"{out}/a.hip:2:12: error: use of undeclared identifier 'cudaOldCall'\n"
              f"{out}/m.h:1:18: note: expanded from macro 'CHECK'\n")
    v = verdict_of(out, report, libraries, "a.hip", failed(output))
    assert v.verdict == "expected" and v.finding["file"] == "m.h"


def test_an_info_finding_predicts_nothing(tmp_path, libraries):
    out, report = make_tree(tmp_path, {"a.hip": "x y;\n"}, findings={"a.hip": [finding("HP104", 1, "y", "info")]})
    v = verdict_of(out, report, libraries, "a.hip", failed(f"{out}/a.hip:1:1: error: unknown type name 'x'\n"))
    assert (v.verdict, v.clean) == ("port-fault", True)


def test_an_error_in_a_system_header_names_the_project_include_that_led_there(tmp_path, libraries):
    out, report = make_tree(tmp_path, {"a.hip": "#include <hip/hip_cooperative_groups.h>\n#include <hip/hip_runtime.h>\n"})
    output = (f"In file included from {out}/a.hip:1:\nIn file included from /usr/include/hip/hip_cooperative_groups.h:37:\n"
              "/usr/include/hip/amd_detail/helper.h:117:22: error: use of undeclared identifier 'hipBlockDim_z'\n"
              f"{out}/a.hip:2:1: note: a note in the project is not the include that led there\n")
    v = verdict_of(out, report, libraries, "a.hip", failed(output))
    assert v.first_error == ("/usr/include/hip/amd_detail/helper.h:117:22: use of undeclared identifier 'hipBlockDim_z'"
                             " (included from a.hip:1)")
    assert v.error_kind == "use of undeclared identifier 'hipBlockDim_z'"


def test_first_error_reads_the_chain_and_the_notes():
    output = ("In file included from /t/a.hip:3:\n/t/h.h:7:5: warning: unused\n"
              "In file included from /t/a.hip:4:\n/t/g.h:2:9: error: no member named 'x' in 'S'\n"
              "/t/m.h:5:1: note: expanded from macro 'M'\n/t/a.hip:9:1: error: later\n")
    error = first_error(output)
    assert (error.file, error.line, error.column) == ("/t/g.h", 2, 9)
    assert [(loc.file, loc.line) for loc in error.locations] == [("/t/g.h", 2), ("/t/a.hip", 4), ("/t/m.h", 5)]
    assert error.names() == {"x", "S"}
    assert first_error("/t/a.hip:1:1: warning: w\n") is None
    assert error_kind("too few arguments to function call, expected 3, have 2; did you mean 'f'?") == \
        "too few arguments to function call, expected N, have N"


def test_an_included_cu_file_is_a_header_not_a_unit(tmp_path):
    for rel, text in {"a.cu": '#include "part.cu"\n', "part.cu": "int x;\n", "b.cpp": "int y;\n",
                      "sub/c.cu": "#include <lib.cu>\n", "inc/lib.cu": "int z;\n"}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    names = [p.relative_to(tmp_path).as_posix() for p in translation_units(tmp_path, (tmp_path / "inc",))]
    assert names == ["a.cu", "b.cpp", "sub/c.cu"]
    assert "inc/lib.cu" in [p.relative_to(tmp_path).as_posix() for p in translation_units(tmp_path)]


def test_summary_counts_classes_and_the_clean_verdict_precision(tmp_path, libraries):
    files = {f"{n}.hip": "int v;\n" for n in "abcd"}
    out, report = make_tree(tmp_path, files, findings={"d.hip": [finding("HP101", 1, "v")]})
    results = [CompileResult("a", True, "", ""),
               failed(f"{out}/b.hip:1:10: fatal error: 'hipfft/hipfft.h' file not found\n"),
               failed(f"{out}/c.hip:1:5: error: redefinition of 'v'\n"),
               failed(f"{out}/d.hip:1:5: error: redefinition of 'v'\n")]
    verdicts = join(out, [out / n for n in files], results, report, libraries)
    assert [v.verdict for v in verdicts] == ["ok", "no-lib", "port-fault", "expected"]
    summary = summarize(verdicts)
    assert (summary["compiled"], summary["clean"], summary["clean_honest"], summary["clean_precision"]) == \
        (1, 3, 2, 66.7)
    assert summary["port_fault_errors"] == [{"error": "redefinition of 'v'", "units": 1}]
    assert "TUs compiled: 1 / 4 (25.0%)" in table_lines(summary)


def test_cli_report_option_needs_a_convert_report(tmp_path, monkeypatch):
    (tmp_path / "bad.json").write_text("{}")
    (tmp_path / "other.json").write_text(json.dumps({"files": [{"path": "elsewhere.cu", "findings": []}]}))
    (tmp_path / "a.hip").write_text("int main() {}\n")
    result = CliRunner().invoke(main, ["verify", str(tmp_path / "a.hip"), "--json", str(tmp_path / "j.json")])
    assert result.exit_code == 2 and "--json needs --report" in result.output
    if shutil.which("hipcc") is None:
        return
    result = CliRunner().invoke(main, ["verify", str(tmp_path / "a.hip"), "--report", str(tmp_path / "bad.json")])
    assert result.exit_code == 2 and "bad.json: not a report of 'hipport convert --report'" in result.output
    result = CliRunner().invoke(main, ["verify", str(tmp_path / "a.hip"), "--report", str(tmp_path / "other.json")])
    assert result.exit_code == 2 and "lists none of the units" in result.output


@pytest.mark.skipif(shutil.which("hipcc") is None, reason="hipcc is not installed")
def test_verify_join_hipcc(tmp_path):
    """convert, then verify --report with the real compiler: one unit of each kind."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "ok.cu").write_text("#include <cuda_runtime.h>\nint main() { cudaDeviceSynchronize(); }\n")
    (src / "lib.cu").write_text("#include <cufft.h>\nint main() { cufftHandle h; (void)h; }\n")
    (src / "bug.cu").write_text("int main() { undeclared_thing(); }\n")
    runner = CliRunner()
    converted = runner.invoke(main, ["convert", str(src), "-o", str(tmp_path / "out"), "--hip-version", "5.2",
                                     "--no-cache", "-j", "1", "--report", str(tmp_path / "r.json"), "-q"])
    assert converted.exit_code == 0, converted.output
    result = runner.invoke(main, ["verify", str(tmp_path / "out"), "--report", str(tmp_path / "r.json"),
                                  "--json", str(tmp_path / "v.json")])
    assert result.exit_code == 1, result.output
    verdicts = {u["unit"]: u for u in json.loads((tmp_path / "v.json").read_text())["units"]}
    assert verdicts["ok.cu"]["verdict"] == "ok"
    assert verdicts["lib.cu"]["verdict"] == "no-lib" and verdicts["lib.cu"]["library"] == "hipfft"
    assert verdicts["bug.cu"]["verdict"] == "port-fault" and "undeclared_thing" in verdicts["bug.cu"]["first_error"]
    assert "BUG      bug.cu: hipport bug" in result.output


def test_verify_of_one_directory_of_the_port_finds_the_report_root(tmp_path):
    from hipport.cli.verify_join import tree_root

    out, report = make_tree(tmp_path, {"Samples/a/a.hip": "int x;\n", "Common/h.h": "int y;\n"})
    assert tree_root(out / "Samples" / "a", [out / "Samples" / "a" / "a.hip"], report) == out
    assert tree_root(out, [out / "Samples" / "a" / "a.hip"], report) == out
