"""verify --run takes a program's arguments from its build: a Makefile's run: target, CTest's
add_test, or --args; a Makefile also names the program's units and flags. No GPU needed."""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from hipport.buildfiles.recipe import Makefile, RunCommand, program_recipe, read_cmake, read_makefile
from hipport.cli import main
from hipport.run.invoke import described, run_program
from hipport.run.libraries import available, included_libraries, library_flags
from hipport.run.programs import find_programs

ROOT = Path(__file__).resolve().parents[1]
HIP_NVIDIA = Path(os.environ.get("HIPPORT_HIP_NVIDIA") or ROOT.parent / "shared" / "vendor" / "HIP-nvidia")
needs_nvcc = pytest.mark.skipif(
    shutil.which("nvcc") is None or not (HIP_NVIDIA / "include" / "hip").is_dir(),
    reason="nvcc or HIP's NVIDIA headers absent",
)

# The shape of a benchmark suite's Makefile: options, a program name, a source list, flags set in
# conditionals, a link rule over the objects, and a run: target behind a launcher variable.
BENCHMARK_MAKEFILE = """\
CC        = nvcc
OPTIMIZE  = yes
DEBUG     = no
ARCH      = sm_60
LAUNCHER  =

program = main
source = main.cu kernels.cu
obj = $(source:.cu=.o)

CFLAGS := $(EXTRA_CFLAGS) -std=c++17 -Xcompiler -Wall -arch=$(ARCH) -I../include
LDFLAGS = -lcublas

ifeq ($(DEBUG),yes)
  CFLAGS += -g -DDEBUG_ON
else ifeq ($(OPTIMIZE),yes)
  CFLAGS += -O3 -DFAST=1
else
  CFLAGS += -DNEITHER
endif

$(program): $(obj) Makefile
\t$(CC) $(CFLAGS) $(obj) -o $@ $(LDFLAGS)

%.o: %.cu Makefile
\t$(CC) $(CFLAGS) -c $< -o $@

clean:
\trm -rf $(program) $(obj)

run: $(program)
\t$(LAUNCHER) ./$(program) 10000 200 100
"""


def test_a_benchmark_makefile_gives_its_run_arguments_units_and_flags():
    recipe = read_makefile(BENCHMARK_MAKEFILE)
    assert recipe.program == "main"
    assert recipe.runs == (RunCommand("./main", ("10000", "200", "100")),)
    assert recipe.sources == ("main", "kernels")  # the link rule's objects, suffix found beside it
    assert recipe.flags == ("-std=c++17", "-I../include", "-DFAST=1")  # the taken branch only, no -arch or -O3
    assert recipe.nvcc_flags == ("-lcublas",)


def test_make_variables_follow_makes_rules():
    make = Makefile("A = $(B) x\nB = 1\nC := $(B)\nB = 2\nD ?= 5\nD ?= 6\nE = e\nE += f\nF := $(A:x=y)\n")
    assert make.value("A") == "2 x"  # recursive: expanded when used
    assert make.value("C") == "1"  # simple: expanded when set
    assert make.value("D") == "5" and make.value("E") == "e f"
    assert make.value("F") == "2 y" and make.value("UNSET") == ""
    assert make.expand("$$HOME ${E} $(E)") == "$HOME e f e f"


def test_ifdef_ifneq_and_nested_conditionals():
    make = Makefile(
        "X = 1\nifdef X\n  ifneq ($(X),2)\n    R = inner\n  else\n    R = no\n  endif\nelse\n  R = outer\nendif\n"
        'ifndef Y\nS = undefined\nendif\nifeq "$(X)" "1"\nT = quoted\nendif\n'
    )
    assert make.value("R") == "inner" and make.value("S") == "undefined" and make.value("T") == "quoted"


def test_several_run_lines_run_in_turn_and_other_commands_are_not_the_program():
    text = (
        "program = bench\nbench: a.o\n\tnvcc a.o -o bench\n"
        "run: build\nbuild: $(program)\n"
        "run:\n\t@ulimit -s unlimited\n\t$(LAUNCHER) ./$(program) 1 2\n"
        "\tCUDA_VISIBLE_DEVICES=0 ./$(program) -i in.txt\n\tcd release && ./bench --input x.bin\n"
        "\tmpiexec -n 2 ./bench\n"
    )
    runs = read_makefile(text).runs
    assert runs == (
        RunCommand("./bench", ("1", "2")),
        RunCommand("./bench", ("-i", "in.txt"), (("CUDA_VISIBLE_DEVICES", "0"),)),
        RunCommand("./bench", ("--input", "x.bin"), cwd="release"),
    )
    assert read_makefile(text).sources == ("a",)
    assert described(runs[:2]) == "./bench 1 2; ./bench -i in.txt"


def test_openmp_and_device_lambdas_reach_nvcc():
    recipe = read_makefile(
        "CFLAGS = -std=c++14 --extended-lambda -Xcompiler -fopenmp -D N=4\nm: m.cu\nrun: m\n\t./m\n\t./m 3\n"
    )
    assert recipe.flags == ("-std=c++14", "-DN=4")
    assert recipe.nvcc_flags == ("-Xcompiler=-fopenmp", "-lgomp", "--extended-lambda")
    assert recipe.sources == ("m.cu",) and [r.args for r in recipe.runs] == [(), ("3",)]


def test_ctest_add_test_in_both_forms():
    recipe = read_cmake(
        "set(N 64)\nadd_executable(solver main.cu)\n"
        'add_test(NAME small COMMAND $<TARGET_FILE:solver> ${N} "two words" WORKING_DIRECTORY ${CMAKE_BINARY_DIR})\n'
        "add_test(large solver 4096)\n"
    )
    assert recipe.program == "solver"
    assert recipe.runs == (RunCommand("solver", ("64", "two words")), RunCommand("solver", ("4096",)))


def test_a_makefile_names_the_programs_units_and_args_override_every_build_file(tmp_path):
    folder = tmp_path / "bench-cuda"
    folder.mkdir()
    (folder / "Makefile").write_text(BENCHMARK_MAKEFILE)
    (folder / "main.cu").write_text("int run_kernel();\nint main() { return run_kernel(); }\n")
    (folder / "kernels.cu").write_text("int run_kernel() { return 0; }\n")
    (folder / "unused.cu").write_text("int main() { return 1; }\n")  # another main the Makefile does not build
    (program,) = find_programs(tmp_path)
    assert program.units == (Path("bench-cuda/main.cu"), Path("bench-cuda/kernels.cu"))
    assert program.binary_name == "main" and program.origin == "Makefile"
    assert program.runs[0].args == ("10000", "200", "100")
    (given,) = find_programs(tmp_path, args=("7", "x y"))
    assert given.runs == (RunCommand("./main", ("7", "x y")),) and given.origin == "--args"
    (folder / "Makefile").unlink()
    assert len(find_programs(tmp_path)) == 2  # without it, each main is a program of its own


def test_the_originals_build_files_are_read_for_the_port(tmp_path):
    original, port = tmp_path / "src" / "p", tmp_path / "out" / "p"
    for tree in (original, port):
        tree.mkdir(parents=True)
        (tree / "main.cu").write_text("int main(int c, char **v) { return 0; }\n")
    (original / "CMakeLists.txt").write_text("add_executable(p main.cu)\nadd_test(NAME t COMMAND p 5)\n")
    (program,) = find_programs(tmp_path / "out", tmp_path / "src")
    assert program.runs == (RunCommand("p", ("5",)),) and program.binary_name == "p"
    assert program_recipe(port) is None


def _script(path: Path, body: str) -> Path:
    path.write_text(f"#!{sys.executable}\nimport sys, os\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_a_program_runs_each_command_line_in_its_folder_and_stops_at_the_first_failure(tmp_path):
    binary = _script(tmp_path / "prog", "print(os.getcwd(), *sys.argv[1:], os.environ.get('K', '-'))\n"
                     "sys.exit(3 if 'bad' in sys.argv else 0)")  # fmt: skip
    runs = (RunCommand("./prog", ("1",)), RunCommand("./prog", ("2",), (("K", "v"),)), RunCommand("./prog", ("bad",)),
            RunCommand("./prog", ("never",)))  # fmt: skip
    ran = run_program(binary, tmp_path, runs, timeout=30)
    assert ran.exit_status == 3 and not ran.timed_out
    assert ran.output.splitlines() == [f"{tmp_path} 1 -", f"{tmp_path} 2 v", f"{tmp_path} bad -"]
    (tmp_path / "data").mkdir()
    once = run_program(binary, tmp_path, (RunCommand(cwd="data"),), timeout=30)
    assert once.output.strip() == f"{tmp_path / 'data'} -" and once.exit_status == 0


def test_one_time_limit_covers_every_run(tmp_path):
    binary = _script(tmp_path / "slow", "import time; time.sleep(float(sys.argv[1]))")
    ran = run_program(binary, tmp_path, (RunCommand("", ("0.1",)), RunCommand("", ("30",))), timeout=1.5)
    assert ran.timed_out and ran.exit_status is None and ran.seconds < 10


def test_a_port_links_the_hip_libraries_it_includes(tmp_path):
    libs = tmp_path / "hip-libs"
    (libs / "lib").mkdir(parents=True)
    for name in ("hipblas", "hiprand", "hipfft"):
        (libs / "lib" / f"lib{name}.so").write_bytes(b"")
    folder = tmp_path / "tree" / "p"
    folder.mkdir(parents=True)
    (folder / "main.cu").write_text('#include <hipblas/hipblas.h>\n#include "local.h"\nint main() {}\n')
    (folder / "local.h").write_text("#include <hiprand/hiprand_kernel.h>\n#include <hipcub/hipcub.hpp>\n")
    (program,) = find_programs(tmp_path / "tree")
    names = included_libraries(tmp_path / "tree", program, available(libs))
    assert names == ["hipblas", "hiprand"]  # hipFFT is there but not used; hipCUB has no library
    flags = library_flags(libs, names)
    assert flags[0] == f"-L{(libs / 'lib').resolve()}" and flags[-2:] == ("-lhipblas", "-lhiprand")
    assert any("rpath" in f for f in flags) and library_flags(None, names) == ()


@needs_nvcc
def test_verify_run_builds_with_the_makefiles_flags_and_reports_its_arguments(tmp_path):
    src, out = tmp_path / "src" / "b", tmp_path / "out" / "b"
    makefile = "CFLAGS := -std=c++17 -DSCALE=3\nmain: main.cu\n\tnvcc $(CFLAGS) $< -o $@\nrun: main\n\t./main 4 5\n"
    code = (
        "#include <cstdio>\n#include <cstdlib>\n"
        "int main(int argc, char **argv) { printf(\"%d\\n\", SCALE * atoi(argv[1]) * atoi(argv[2])); }\n"
    )
    for tree, name in ((src, "main.cu"), (out, "main.cu")):
        tree.mkdir(parents=True)
        (tree / "Makefile").write_text(makefile)
        (tree / name).write_text(code)
    result = CliRunner().invoke(main, ["verify", str(out.parent), "--run", "--platform", "nvidia", "--hip-path",
                                       str(HIP_NVIDIA), "--compare-original", str(src.parent), "--json",
                                       str(tmp_path / "r.json")])  # fmt: skip
    data = json.loads((tmp_path / "r.json").read_text())["results"][0]
    assert data["port"]["built"] and data["original"]["built"], result.output  # SCALE came from CFLAGS
    assert data["runs"] == "./main 4 5" and data["runs_from"] == "Makefile"
    if data["status"] != "NO-GPU":
        assert data["status"] == "AGREE" and data["port"]["tail"] == "60", result.output


def _bench(name: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_the_library_build_fills_version_headers_and_installs_headers_as_rocm_does(tmp_path):
    libs = _bench("gpu_libs")
    tree = tmp_path / "hipFFT"
    (tree / "library" / "include" / "hipfft").mkdir(parents=True)
    (tree / "CMakeLists.txt").write_text('cmake_minimum_required(VERSION 3.16)\nset( VERSION_STRING "1.0.17" )\n')
    (tree / "library" / "include" / "hipfft" / "hipfft.h").write_text('#include "hipfft-export.h"\n')
    (tree / "library" / "include" / "hipfft" / "hipfft-version.h.in").write_text(
        "#define hipfftVersionMajor @hipfft_VERSION_MAJOR@\n#define N @hipfft_VERSION_NUMBER@\n"
    )
    headers_only = libs.Library("hipfft", "hipFFT", "library/include/hipfft", export="hipfft-export.h")
    libs.install_headers(headers_only, tree, tmp_path / "prefix")
    installed = tmp_path / "prefix" / "include" / "hipfft"
    assert (installed / "hipfft-version.h").read_text() == "#define hipfftVersionMajor 1\n#define N 100017\n"
    assert "#define HIPFFT_EXPORT __attribute__" in (installed / "hipfft-export.h").read_text()
    (tree / "library" / "include" / "hipfft" / "odd.h.in").write_text("@UNKNOWN@\n")
    with pytest.raises(libs.BuildError, match="@UNKNOWN@"):
        libs.install_headers(headers_only, tree, tmp_path / "prefix")


def test_the_gpu_table_counts_library_ports_and_programs_run_with_their_builds_arguments():
    corpus = _bench("gpu_corpus")
    ok = {"exit_status": 0}
    results = [
        {"program": "a", "status": "AGREE", "detail": "", "original": ok, "libraries": ["hipblas"], "runs": ""},
        {"program": "b", "status": "DIFFER", "detail": "token 3", "original": ok, "libraries": [], "runs": "./b 1"},
        {"program": "c", "status": "AGREE", "detail": "", "original": ok, "libraries": [], "runs": "./c 2"},
        {"program": "d", "status": "BUILD-FAIL", "detail": "original: x", "original": {"exit_status": None}},
    ]
    lines = corpus.table(results, 1.0)
    assert "  of them the port AGREEs: 2 (66.7%)" in lines
    assert "  the port links HIP's libraries (hipblas): 1, of them AGREE: 1" in lines
    assert "  run with their build's arguments: 2, of them AGREE: 1" in lines
    assert any(line.startswith("  DIFFER     b: token 3") for line in lines)


def test_a_makefile_that_compiles_its_c_files_as_cuda_says_so():
    recipe = read_makefile("CC = nvcc\nCFLAGS := -std=c++17 -arch=sm_90 --x cu\nsource = a.c b.c\nrun: main\n\t./main 4\n")
    assert "--x=cu" in recipe.nvcc_flags
    plain = read_makefile("CC = nvcc\nCFLAGS := -std=c++17\nsource = a.c\nrun: main\n\t./main\n")
    assert not any(f.startswith("--x") for f in plain.nvcc_flags)


def test_a_c_unit_is_host_c_unless_its_build_names_cuda(tmp_path):
    from hipport.toolchain import ToolSettings
    from hipport.toolchain.compdb import load

    unit = tmp_path / "a.c"
    unit.write_text("int main(void) { return 0; }\n")
    assert ToolSettings().compiles_as_c(unit)
    for extra, as_c in (([], True), (["--x=cu"], False), (["-x", "cu"], False)):
        database = tmp_path / "compile_commands.json"
        database.write_text(json.dumps([{"directory": str(tmp_path), "file": str(unit),
                                         "arguments": ["nvcc", *extra, "-c", str(unit)]}]))
        assert ToolSettings(database=load(database)).compiles_as_c(unit) is as_c, extra
