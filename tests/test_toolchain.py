"""The toolchain seam: one settings object gives every platform's compile check and build the same
flags; nvcc's diagnostics are joined like clang's; verify --platform nvidia and its run on the GPU
(NO-GPU here, where there is none); verify --run honours -I and -D; the GPU step's imports."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from hipport.cli import main
from hipport.config import load_config
from hipport.run.gpu import GpuResult, Side, _judge, gpu_present, original_units
from hipport.run.programs import Program
from hipport.run.settings import RunSettings, relocate
from hipport.toolchain import ToolchainError, ToolSettings, header_version, make_toolchain, resolve_hip_path
from hipport.toolchain.compilers import Hipcc, HipCpu, Nvcc
from hipport.verify import CompileResult
from hipport.verify.diag import first_error

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "vendor"
HIP_NVIDIA = Path(os.environ.get("HIPPORT_HIP_NVIDIA") or SHARED / "HIP-nvidia")
HIP_AMD = SHARED / "HIP-amd"
HIP_CPU = Path(os.environ.get("HIPPORT_HIP_CPU") or SHARED / "HIP-CPU")
NVCC = shutil.which("nvcc")
needs_nvcc = pytest.mark.skipif(NVCC is None or not (HIP_NVIDIA / "include" / "hip").is_dir(),
                                reason="nvcc or HIP's NVIDIA headers (../shared/vendor/HIP-nvidia) absent")
needs_hipcc = pytest.mark.skipif(shutil.which("hipcc") is None, reason="hipcc absent")
needs_hip_cpu = pytest.mark.skipif(not (HIP_CPU / "include" / "hip" / "hip_runtime.h").is_file()
                                   or shutil.which("g++") is None, reason="no HIP CPU Runtime or g++")

SETTINGS = ToolSettings(include_dirs=(Path("/inc"),), defines=("N=3",), hip_path=Path("/hip/include"))


@pytest.mark.parametrize("toolchain", [
    Hipcc(SETTINGS, "hipcc"),
    Nvcc(SETTINGS, "nvcc", Path("/hip/include")),
    HipCpu(SETTINGS, Path("/runtime"), "g++"),
], ids=["amd", "nvidia", "cpu"])
def test_every_flag_reaches_both_the_compile_check_and_the_build(toolchain):
    check = toolchain.check_command(Path("a.hip")).argv
    build = toolchain.build_command([Path("a.hip")], Path("a.out")).argv
    for argv in (check, build):
        assert "-I/inc" in argv and "-DN=3" in argv
        assert argv[-1] != "-I/inc"
    if toolchain.platform != "cpu":
        assert any(a.endswith("/hip/include") for a in check) and any(a.endswith("/hip/include") for a in build)


def test_amd_puts_the_hip_path_first_as_a_system_directory_and_forces_the_platform():
    command = Hipcc(SETTINGS, "hipcc").check_command(Path("a.hip"))
    assert command.argv[command.argv.index("-isystem") + 1] == "/hip/include"
    assert command.env == {"HIP_PLATFORM": "amd"}
    assert "--offload-arch=gfx90a" in command.argv


def test_amd_checks_a_c_unit_as_host_c_the_way_nvcc_does():
    command = Hipcc(SETTINGS, "hipcc").check_command(Path("a.c")).argv
    assert command[command.index("-x") + 1] == "c"
    assert not any(a.startswith("-std=c++") for a in command)
    assert "-D__HIP_PLATFORM_AMD__=1" in command and "-DN=3" in command
    hip = Hipcc(SETTINGS, "hipcc").check_command(Path("a.cpp")).argv
    assert hip[hip.index("-x") + 1] == "hip"
    plain = Nvcc(SETTINGS, "nvcc", None).check_command(Path("a.c")).argv
    assert plain[plain.index("-x") + 1] == "c"  # nvcc's own choice for the original
    hip_nvidia = Nvcc(SETTINGS, "nvcc", Path("/hip/include")).check_command(Path("a.c")).argv
    assert hip_nvidia[hip_nvidia.index("-x") + 1] == "cu"  # hipcc's on the NVIDIA platform


@needs_nvcc
def test_a_host_cpp_file_that_fails_as_cuda_is_checked_as_host_cxx_the_way_nvcc_reads_it(tmp_path):
    # nvcc's implicit CUDA headers declare uchar4: as CUDA the file fails, as host C++ (nvcc's
    # default for a .cpp) it compiles; one that includes HIP is CUDA under hipcc, and stays failed
    from hipport.verify import check_unit

    own = tmp_path / "loader.cpp"
    own.write_text("typedef struct { unsigned char x, y, z, w; } uchar4;\nuchar4 pixel() { return uchar4(); }\n")
    broken = tmp_path / "broken.cpp"
    broken.write_text("int f() { return undeclared; }\n")
    with_hip = tmp_path / "hip.cpp"
    with_hip.write_text("#include <hip/hip_runtime.h>\ntypedef struct { unsigned char x, y, z, w; } uchar4;\n")
    settings = ToolSettings(platform="nvidia", hip_path=HIP_NVIDIA / "include")
    nvcc = Nvcc(settings, NVCC, HIP_NVIDIA / "include")
    assert check_unit(nvcc, own).ok and check_unit(nvcc.original(()), own).ok
    assert not check_unit(nvcc, broken).ok
    assert nvcc.host_cxx_command(with_hip) is None and not check_unit(nvcc, with_hip).ok


def test_nvidia_checks_a_c_unit_without_hip_headers_as_c(tmp_path):
    # HIP's NVIDIA headers are C++, so a port's .c that includes them is CUDA C++ (hipcc's -x cu);
    # one the port left without them is C, as its build compiles it
    plain_c, with_hip = tmp_path / "plain.c", tmp_path / "hip.c"
    plain_c.write_text("#include <stdlib.h>\nint main(void) { char *p = malloc(1); free(p); return 0; }\n")
    with_hip.write_text("#include <hip/hip_runtime.h>\nint main(void) { return hipInit(0); }\n")
    through_header = tmp_path / "main.c"
    (tmp_path / "base.h").write_text('#include "inner.h"\n')
    (tmp_path / "inner.h").write_text("#include <hip/hip_runtime.h>\n")
    through_header.write_text('#include "base.h"\nint main(void) { return 0; }\n')
    nvcc = Nvcc(SETTINGS, "nvcc", Path("/hip/include"))
    for unit, language in ((plain_c, "c"), (with_hip, "cu"), (through_header, "cu")):
        argv = nvcc.check_command(unit).argv
        assert argv[argv.index("-x") + 1] == language


@needs_hipcc
def test_a_c_unit_with_extern_c_around_the_runtime_header_compiles_as_c(tmp_path):
    # nvcc compiles main.c with gcc: a C unit may wrap its includes in extern "C" guards
    (tmp_path / "main.c").write_text(
        '#ifdef __cplusplus\nextern "C" {\n#endif\n#include <hip/hip_runtime.h>\n#ifdef __cplusplus\n}\n#endif\n'
        "int main(void) { int *p; hipMalloc((void **)&p, 4); hipFree(p); return 0; }\n")
    # HIP 6.3's headers where they are beside the checkout, else hipcc's own
    settings = ToolSettings(hip_path=HIP_AMD / "include" if (HIP_AMD / "include").is_dir() else None)
    from hipport.verify import check_unit

    result = check_unit(Hipcc(settings, shutil.which("hipcc") or "hipcc"), tmp_path / "main.c")
    assert result.ok, result.error


def test_the_original_is_built_with_plain_nvcc_and_the_same_defines():
    original = Nvcc(SETTINGS, "nvcc", Path("/hip/include")).original((Path("/src/inc"),))
    argv = original.build_command([Path("a.cu")], Path("a.out")).argv
    assert "-I/hip/include" not in argv and "-I/src/inc" in argv and "-DN=3" in argv and "-I/inc" not in argv


def test_nvidia_without_headers_or_compiler_says_so_in_one_line(tmp_path):
    with pytest.raises(ToolchainError, match="HIP's NVIDIA headers are needed"):
        make_toolchain(ToolSettings(platform="nvidia", compiler="nvcc"))
    with pytest.raises(ToolchainError, match="no hip/nvidia_detail"):
        make_toolchain(ToolSettings(platform="nvidia", compiler="nvcc", hip_path=tmp_path))
    with pytest.raises(ToolchainError, match="holds no HIP headers"):
        resolve_hip_path(tmp_path, None)


def test_hip_path_comes_from_the_flag_the_environment_or_the_config(tmp_path, monkeypatch):
    (tmp_path / "hip" / "include" / "hip").mkdir(parents=True)
    (tmp_path / "hip" / "include" / "hip" / "hip_runtime.h").write_text("")
    (tmp_path / "hip" / "include" / "hip" / "hip_version.h").write_text(
        "#define HIP_VERSION_MAJOR 6\n#define HIP_VERSION_MINOR 3\n")
    (tmp_path / "pyproject.toml").write_text('[tool.hipport]\nhip-path = "hip"\n')
    monkeypatch.delenv("HIPPORT_HIP_PATH", raising=False)
    configured = load_config(tmp_path / "pyproject.toml").hip_path
    assert resolve_hip_path(None, configured) == (tmp_path / "hip" / "include").resolve()
    assert header_version(tmp_path / "hip" / "include") == "6.3"
    monkeypatch.setenv("HIPPORT_HIP_PATH", str(tmp_path / "elsewhere"))
    with pytest.raises(ToolchainError, match="HIPPORT_HIP_PATH"):
        resolve_hip_path(None, configured)


def test_nvcc_errors_are_read_with_their_quoted_names_and_gcc_missing_headers():
    error = first_error('a.cu(12): warning #177-D: unused\n\na.cu(14): error: identifier "hipFoo" is undefined\n'
                        "    hipFoo(1);\n    ^\n\n1 error detected\n")
    assert (error.file, error.line, error.names()) == ("a.cu", 14, frozenset({"hipFoo"}))
    missing = first_error("In file included from a.cu:3:\nb.h:1:10: fatal error: nothere.h: No such file or directory\n")
    assert missing.missing_header == "nothere.h" and missing.chain[0].line == 3
    assert CompileResult("a", False, missing.text, "").missing_header == "nothere.h"


def test_verify_on_a_missing_path_is_one_line():
    result = CliRunner().invoke(main, ["verify", "no/such/dir"])
    assert result.exit_code == 2 and result.output.strip() == "hipport: no/such/dir: no such file or directory"


def _judged(port: Side, original: Side, port_tree: Path = Path("."), original_tree: Path = Path("src")) -> GpuResult:
    result = GpuResult(Program("a.cu", (Path("a.cu"),)), "NO-GPU", port=port, original=original)
    _judge(result, result.program, port_tree, RunSettings(ignore=r"Time", compare_original=original_tree))
    return result


def test_the_trees_own_path_in_the_output_is_not_a_difference(tmp_path):
    # an assert's message names __FILE__, which is the tree each side was built from
    port, original = tmp_path / "out", tmp_path / "cuda"
    said = "{}/a.cu:7: main: Assertion `n > 0' failed."
    agree = _judged(Side(True, exit_status=134, output=said.format(port)),
                    Side(True, exit_status=134, output=said.format(original)), port, original)
    assert agree.status == "AGREE"
    other = _judged(Side(True, exit_status=134, output=said.format(tmp_path / "elsewhere")),
                    Side(True, exit_status=134, output=said.format(original)), port, original)
    assert other.status == "DIFFER"


def test_port_and_original_agree_on_exit_status_and_output_within_tolerance():
    assert _judged(Side(True, exit_status=0, output="sum 1.0000001\nTime 3 ms\n"),
                   Side(True, exit_status=0, output="sum 1.0\nTime 5 ms\n")).status == "AGREE"
    differ = _judged(Side(True, exit_status=0, output="sum 2\n"), Side(True, exit_status=0, output="sum 1\n"))
    assert differ.status == "DIFFER" and "-sum 1" in differ.diff and "+sum 2" in differ.diff
    assert _judged(Side(True, exit_status=1, output=""), Side(True, exit_status=0, output="")).status == "DIFFER"
    assert _judged(Side(True, timed_out=True), Side(True, exit_status=0)).status == "TIMEOUT"


def test_the_original_of_a_renamed_unit_is_found_under_its_cuda_name(tmp_path):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "main.cu").write_text("int main() {}\n")
    assert original_units(Program("app/main.hip", (Path("app/main.hip"),)), tmp_path) == [tmp_path / "app/main.cu"]
    assert original_units(Program("x.hip", (Path("x.hip"),)), tmp_path) is None
    assert relocate((tmp_path / "out" / "inc", Path("/usr/include")), tmp_path / "out", Path("/src")) == (
        Path("/src/inc"), Path("/usr/include"))


def _project(tmp_path: Path) -> tuple[Path, Path]:
    """A CUDA program whose header lives in a sibling folder and that #errors without COUNT."""
    src = tmp_path / "src"
    (src / "app").mkdir(parents=True)
    (src / "inc").mkdir()
    (src / "inc" / "defs.h").write_text("#define SCALE 2\n")
    (src / "app" / "main.cu").write_text(
        '#include <cstdio>\n#include "defs.h"\n#ifndef COUNT\n#error "COUNT must be defined"\n#endif\n'
        "__global__ void k(int *a) { a[threadIdx.x] = threadIdx.x * SCALE; }\n"
        "int main() { int *d; cudaMalloc(&d, COUNT * sizeof(int)); k<<<1, COUNT>>>(d);\n"
        '  cudaDeviceSynchronize(); printf("sum %d\\n", COUNT * SCALE); return 0; }\n')
    out = tmp_path / "out"
    done = CliRunner().invoke(main, ["convert", str(src), "-o", str(out), "--rename", "--report",
                                     str(tmp_path / "r.json"), "-q"])
    assert done.exit_code == 0, done.output
    return src, out


@needs_hip_cpu
def test_verify_run_on_the_cpu_honours_include_dirs_and_defines(tmp_path):
    _, out = _project(tmp_path)
    base = ["verify", str(out), "--run", "--hip-cpu", str(HIP_CPU)]
    without_include = CliRunner().invoke(main, [*base, "-D", "COUNT=4"])
    assert without_include.exit_code == 1 and "defs.h" in without_include.output
    without_define = CliRunner().invoke(main, [*base, "-I", str(out / "inc")])
    assert without_define.exit_code == 1 and "COUNT must be defined" in without_define.output
    both = CliRunner().invoke(main, [*base, "-I", str(out / "inc"), "-D", "COUNT=4"])
    assert both.exit_code == 0 and "PASS" in both.output, both.output


@needs_nvcc
def test_verify_platform_nvidia_compiles_with_nvcc_and_joins_to_the_report(tmp_path):
    _, out = _project(tmp_path)
    base = ["verify", str(out), "--platform", "nvidia", "--hip-path", str(HIP_NVIDIA), "--report",
            str(tmp_path / "r.json"), "-I", str(out / "inc")]
    ok = CliRunner().invoke(main, [*base, "-D", "COUNT=4"])
    assert ok.exit_code == 0 and "OK       app/main.hip" in ok.output, ok.output
    failed = CliRunner().invoke(main, base)
    assert failed.exit_code == 1 and "BUG      app/main.hip" in failed.output and "COUNT must be defined" in failed.output


@needs_nvcc
def test_verify_run_on_nvidia_builds_port_and_original_and_says_no_gpu_without_one(tmp_path):
    src, out = _project(tmp_path)
    args = ["verify", str(out), "--run", "--platform", "nvidia", "--hip-path", str(HIP_NVIDIA), "-I",
            str(out / "inc"), "--compare-original", str(src), "--json", str(tmp_path / "run.json")]
    result = CliRunner().invoke(main, [*args, "-D", "COUNT=4"])
    data = json.loads((tmp_path / "run.json").read_text())["results"][0]
    assert data["port"]["built"] and data["original"]["built"], result.output
    if not gpu_present():
        assert result.exit_code == 0 and data["status"] == "NO-GPU" and "NO-GPU" in result.output
    else:
        assert data["status"] == "AGREE", result.output
    broken = CliRunner().invoke(main, args)
    assert broken.exit_code == 1 and "BUILD-FAIL app/main.hip" in broken.output and ": port:" in broken.output


@needs_nvcc
def test_the_gpu_step_runs_without_hipports_third_party_packages(tmp_path):
    src, out = _project(tmp_path)
    blocker = (
        "import sys, runpy\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('tree_sitter', 'tree_sitter_cuda', 'clang', 'pathspec', 'jinja2'):\n"
        "            raise ImportError('not on the GPU machine: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "sys.argv = ['hipport'] + sys.argv[1:]\n"
        "runpy.run_module('hipport', run_name='__main__')\n")
    done = subprocess.run([sys.executable, "-c", blocker, "verify", str(out), "--run", "--platform", "nvidia",
                           "--hip-path", str(HIP_NVIDIA), "-I", str(out / "inc"), "-D", "COUNT=4",
                           "--compare-original", str(src)],
                          capture_output=True, text=True, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert "not on the GPU machine" not in done.stderr and "app/main.hip" in done.stdout, done.stderr


@needs_hipcc
def test_verify_says_when_the_report_targets_a_newer_hip_than_its_headers(tmp_path, monkeypatch):
    _, out = _project(tmp_path)
    report = json.loads((tmp_path / "r.json").read_text())
    report.setdefault("options", {})["hip_version"] = "6.3"
    (tmp_path / "r.json").write_text(json.dumps(report))
    args = ["verify", str(out), "--report", str(tmp_path / "r.json"), "-I", str(out / "inc"), "-D", "COUNT=4"]
    monkeypatch.chdir(tmp_path)  # no shared/vendor/HIP-amd above it: nothing to find by itself
    older = CliRunner().invoke(main, args)
    assert "the port targets HIP 6.3, newer than these headers" in older.output
    assert "Add --hip-path DIR" in older.output and "--hip-version 5.2" in older.output
    if (HIP_AMD / "include" / "hip").is_dir():
        same = CliRunner().invoke(main, [*args, "--hip-path", str(HIP_AMD)])
        assert "newer than these headers" not in same.output


@needs_hipcc
def test_verify_finds_the_targets_headers_beside_the_checkout_by_itself(tmp_path, monkeypatch):
    if not (HIP_AMD / "include" / "hip").is_dir():
        pytest.skip("HIP 6.3's headers are not beside this checkout")
    _, out = _project(tmp_path)
    monkeypatch.chdir(ROOT)  # the checkout, with shared/vendor/HIP-amd beside it
    found = CliRunner().invoke(main, ["verify", str(out), "-I", str(out / "inc"), "-D", "COUNT=4"])
    assert f"HIP 6.3 headers in {(HIP_AMD / 'include').resolve()}" in found.output, found.output
    assert "newer than these headers" not in found.output


def test_target_headers_are_used_only_when_they_are_the_target_release(tmp_path):
    from hipport.toolchain.discover import target_headers

    hip = tmp_path / "shared" / "vendor" / "HIP-amd" / "include" / "hip"
    hip.mkdir(parents=True)
    (hip / "hip_version.h").write_text("#define HIP_VERSION_MAJOR 6\n#define HIP_VERSION_MINOR 3\n")
    project = tmp_path / "work" / "project"
    project.mkdir(parents=True)
    assert target_headers("6.3", project, rocm_root=tmp_path / "none") == hip.parent.resolve()
    assert target_headers("7.0", project, rocm_root=tmp_path / "none") is None
