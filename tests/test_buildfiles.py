"""Build files: the self-tests in rules/buildfiles.toml, CMake and Makefile cases, real builds."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from hipport.buildfiles import BuildSettings, build_file_kind, port_build_file
from hipport.cli import main
from hipport.ruleset.loader import load_rules
from hipport.tree.rename import renamed_suffix
from hipport.versions import parse_version
from test_tree import make_project

SUFFIXES = ((".cu", ".hip"), (".cuh", ".hip.h"))


def settings_from_args(rules, args) -> BuildSettings:
    args, arches, rename, hip = list(args), None, False, None
    while args:
        flag = args.pop(0)
        if flag == "--rename":
            rename = True
        elif flag == "--offload-arch":
            arches = tuple(args.pop(0).split(";"))
        elif flag == "--hip-version":
            hip = parse_version(args.pop(0))
        else:
            raise ValueError(f"unknown build test arg {flag}")
    return BuildSettings(
        offload_arch=arches or rules.build.default_arches(hip),
        rename=(lambda path: renamed_suffix(path, SUFFIXES)) if rename else None,
    )


def port(rules, text: str, file: str = "CMakeLists.txt", *args: str):
    return port_build_file(text.encode(), rules, settings_from_args(rules, args), path=file)


BUILD_TESTS = load_rules(use_cache=False).build.tests


@pytest.mark.parametrize("test", BUILD_TESTS, ids=[f"{t.origin}:{t.line}" for t in BUILD_TESTS])
def test_build_rule_self_test(test, rules):
    result = port(rules, test.before, test.file, *test.args)
    assert result.output.decode() == test.after
    assert sorted(f"{f.code}:{f.line}" for f in result.findings) == sorted(test.findings)


def test_build_file_kinds():
    assert build_file_kind("CMakeLists.txt") == "cmake"
    assert build_file_kind("cmake/FindThing.cmake") == "cmake"
    assert build_file_kind("Makefile") == "make"
    assert build_file_kind("src/rules.mk") == "make"
    assert build_file_kind("GNUmakefile") == "make"
    assert build_file_kind("main.cu") is None
    assert build_file_kind("ext/setup.py") == "setup"
    assert build_file_kind("scripts/build.sh") == "shell"
    assert build_file_kind("setup.cfg") is None
    assert build_file_kind("README.md") is None


CASES = [
    # comments, bracket arguments and strings that only mention CUDA stay as written
    (
        "CMakeLists.txt",
        "# enable_language(CUDA) would need CUDA::cudart\n#[[ project(x LANGUAGES CUDA) ]]\n"
        'message(STATUS "CUDA::cublas is linked")\nset(DOC [=[CMAKE_CUDA_FLAGS]=])\n',
        None,
        [],
    ),
    # a CUDA version means nothing to ROCm's hip package; FindCUDA is reported
    (
        "CMakeLists.txt",
        "find_package(CUDAToolkit 11.4 REQUIRED)\nfind_package(CUDA 10 QUIET)\n",
        "find_package(hip REQUIRED)\nfind_package(hip QUIET)\n",
        ["HP501:2"],
    ),
    # an architecture list from a variable cannot be mapped; an unknown CUDA:: target is reported
    (
        "CMakeLists.txt",
        "set(CMAKE_CUDA_ARCHITECTURES ${MY_ARCHS})\ntarget_link_libraries(a CUDA::nvjitlink)\n",
        "set(CMAKE_HIP_ARCHITECTURES ${MY_ARCHS})\ntarget_link_libraries(a CUDA::nvjitlink)\n",
        ["HP503:1", "HP501:2"],
    ),
    # a version range keeps its upper bound; CRLF line endings stay
    (
        "CMakeLists.txt",
        "cmake_minimum_required(VERSION 3.18...3.28)\r\nproject(p CUDA)\r\n",
        "cmake_minimum_required(VERSION 3.21...3.28)\r\nproject(p HIP)\r\n",
        [],
    ),
    # generator expressions, compiler ids, flags in a quoted CMAKE_CUDA_FLAGS
    (
        "CMakeLists.txt",
        'string(APPEND CMAKE_CUDA_FLAGS " -lineinfo --default-stream per-thread -rdc=false")\n'
        "target_compile_definitions(t PRIVATE $<$<COMPILE_LANG_AND_ID:CUDA,NVIDIA>:FAST>)\n",
        'string(APPEND CMAKE_HIP_FLAGS " -gline-tables-only -fgpu-default-stream=per-thread")\n'
        "target_compile_definitions(t PRIVATE $<$<COMPILE_LANG_AND_ID:HIP,Clang>:FAST>)\n",
        [],
    ),
    # several architectures inside one unquoted generator expression: one expression per target
    (
        "CMakeLists.txt",
        "target_compile_options(t PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-arch=sm_80>)\n",
        "target_compile_options(t PRIVATE $<$<COMPILE_LANGUAGE:HIP>:--offload-arch=gfx90a> "
        "$<$<COMPILE_LANGUAGE:HIP>:--offload-arch=gfx942>)\n",
        [],
    ),
    # a glob of .cu files that keep their names is marked HIP; a mixed glob is reported
    (
        "CMakeLists.txt",
        "file(GLOB KS CONFIGURE_DEPENDS src/*.cu)\nfile(GLOB ALL src/*.cu src/*.cpp)\n",
        "file(GLOB KS CONFIGURE_DEPENDS src/*.cu)\nset_source_files_properties(${KS} PROPERTIES LANGUAGE HIP)\n"
        "file(GLOB ALL src/*.cu src/*.cpp)\n",
        ["HP501:2"],
    ),
    # continuation lines; -arch of another compiler; a variable's name is the user's
    (
        "Makefile",
        "NVCCFLAGS = -O3 \\\n\t--expt-extended-lambda \\\n\t-arch=sm_90\nCFLAGS = -arch x86_64\n"
        "NVCC_VER := $(shell nvcc --version)\n",
        "NVCCFLAGS = -O3 \\\n\t--offload-arch=gfx90a --offload-arch=gfx942\nCFLAGS = -arch x86_64\n"
        "NVCC_VER := $(shell hipcc --version)\n",
        [],
    ),
    # a C++ file compiled as CUDA is compiled as HIP; -x c++ stays
    (
        "Makefile",
        "a.o: a.cpp\n\t$(NVCC) -x cu -c a.cpp -o a.o\nb.o: b.c\n\t$(NVCC) -x c++ -c b.c\n",
        "a.o: a.cpp\n\t$(NVCC) -x hip -c a.cpp -o a.o\nb.o: b.c\n\t$(NVCC) -x c++ -c b.c\n",
        [],
    ),
    # -G is nvcc's device debug flag only where nvcc is concerned
    ("Makefile", "NVCCFLAGS += -G\nbuild:\n\tcmake -G Ninja -S . -B out\n", None, ["HP502:1"]),
    # setup.py: a CUDAExtension chosen through a name; flags given through the dict's key, in a
    # conditional and a comprehension; -Xptxas takes the next element as its value
    (
        "setup.py",
        "from torch.utils.cpp_extension import CUDAExtension\nextension = CUDAExtension\nargs = {'cxx': []}\n"
        "args['nvcc'] = ['-O2'] + (['-Xptxas', '-O3'] if FAST else [])\n"
        "args['nvcc'] += [f'-gencode=arch=compute_{a},code=sm_{a}' for a in ARCHS]\n"
        "extension('x', ['x.cu'], extra_compile_args=args)\n",
        None,
        ["HP505:2", "HP502:4", "HP502:5"],
    ),
    # a plain Python package's setup.py: nothing to say; an architecture list from an expression is reported
    ("setup.py", "from setuptools import setup\nsetup(name='x', extra_compile_args={'cxx': ['-O3']})\n", None, []),
    ("setup.py", "from setuptools import Extension\nExtension('x', extra_compile_args={'nvcc': ['-G']})\n", None, []),
    ("setup.py", "import os\nos.environ['TORCH_CUDA_ARCH_LIST'] = ';'.join(ARCHS)\n", None, ["HP503:2"]),
    ("setup.py", "def broken(:\n", None, ["HP901:1"]),
    # libraries ROCm does not have are reported with the line; nvcc-only flags too
    (
        "Makefile",
        "LDLIBS = -lcupti -lnvToolsExt\nNVCCFLAGS = -Xptxas -v -maxrregcount=32 -G\n",
        None,
        ["HP501:1", "HP501:1", "HP502:2", "HP502:2", "HP502:2"],
    ),
]


@pytest.mark.parametrize("file, before, after, findings", CASES)
def test_build_file_cases(rules, file, before, after, findings):
    result = port(rules, before, file)
    assert result.output.decode() == (before if after is None else after)
    assert [f"{f.code}:{f.line}" for f in result.findings] == findings


@pytest.mark.parametrize("test", BUILD_TESTS, ids=[f"{t.origin}:{t.line}" for t in BUILD_TESTS])
def test_porting_a_ported_build_file_changes_nothing(test, rules):
    once = port(rules, test.before, test.file, *test.args).output.decode()
    assert port(rules, once, test.file, *test.args).output.decode() == once


# -- the ported build files build, with Debian's HIP 5.2 ------------------------------------

DEBIAN_CMAKE = Path("/usr/lib/x86_64-linux-gnu/cmake")
DEBIAN_BITCODE = Path("/usr/lib/x86_64-linux-gnu/amdgcn/bitcode")


def _convert(src: Path, out: Path, *args: str) -> None:
    result = CliRunner().invoke(main, ["convert", str(src), "-o", str(out), "-q", "--no-cache", *args])
    assert result.exit_code == 0, result.output


def _needs(*tools: str) -> None:
    for tool in tools:
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")


@pytest.mark.hipcc
def test_ported_makefile_builds_with_hipcc(tmp_path):
    _needs("hipcc", "make")
    src = make_project(tmp_path / "repo")
    out = tmp_path / "out"
    _convert(src, out, "--hip-version", "5.2")  # gfx942 is newer than HIP 5.2's compiler: left out
    make = (out / "Makefile").read_text()
    assert "ARCH      ?= --offload-arch=gfx90a\n" in make
    proc = subprocess.run(
        ["make", "-C", str(out), "app"], capture_output=True, text=True, env=dict(os.environ, HIP_PLATFORM="amd")
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (out / "app").is_file()


def _debian_hip_cmake_args(tmp_path: Path) -> list[str]:
    """CMake's HIP language expects a ROCm prefix; Debian splits ROCm over /usr: give it one."""
    compilers = sorted(Path("/usr/bin").glob("clang++-*"))
    if not DEBIAN_CMAKE.joinpath("hip-lang").is_dir() or not DEBIAN_BITCODE.is_dir() or not compilers:
        pytest.skip("Debian's HIP CMake packages are not installed")
    root = tmp_path / "rocm"
    (root / "lib").mkdir(parents=True)
    os.symlink(DEBIAN_CMAKE, root / "lib" / "cmake")
    os.symlink("/usr/bin", root / "bin")
    return [
        f"-DCMAKE_HIP_COMPILER_ROCM_ROOT={root}",
        f"-DCMAKE_HIP_COMPILER={compilers[-1]}",
        f"-DCMAKE_HIP_FLAGS=--rocm-path=/usr --hip-device-lib-path={DEBIAN_BITCODE}",
        f"-DCMAKE_PREFIX_PATH={DEBIAN_CMAKE}",
    ]


@pytest.mark.hipcc
@pytest.mark.parametrize("rename", [False, True], ids=["cu-marked-hip", "renamed"])
def test_ported_cmake_project_configures_and_builds(tmp_path, rename):
    _needs("cmake", "make")
    args = _debian_hip_cmake_args(tmp_path)
    src = make_project(tmp_path / "repo")
    out = tmp_path / "out"
    _convert(src, out, "--offload-arch", "gfx90a", *(["--rename"] if rename else []))
    env = dict(os.environ, CMAKE_PREFIX_PATH=str(DEBIAN_CMAKE))  # CMake's compiler checks run without -D
    build = tmp_path / "build"
    configure = subprocess.run(
        ["cmake", "-S", str(out), "-B", str(build), *args], capture_output=True, text=True, env=env
    )
    assert configure.returncode == 0, configure.stdout + configure.stderr
    built = subprocess.run(["cmake", "--build", str(build), "-j2"], capture_output=True, text=True, env=env)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    assert (build / "app").is_file() and (build / "host_query").is_file()
