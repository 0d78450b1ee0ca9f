"""`hipport shim` and `convert --mode shim`: one source tree that builds with nvcc and hipcc.

The decisive tests compile the converted fixture project (fixtures/projects/shim)
with both compilers. The rest pin down what the header holds and that
regenerating it is stable.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest
from click.testing import CliRunner

from hipport.cli import main
from hipport.engine.port.shim_mode import shim_source
from hipport.shim import generate_shim, names_not_covered
from hipport.shim.render import hip_version_number
from hipport.verify import find_hipcc
from hipport.versions import parse_version

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ROOT / "fixtures" / "projects" / "shim" / "src"
NVCC = next((p for p in (shutil.which("nvcc"), "/usr/local/cuda/bin/nvcc") if p and Path(p).is_file()), None)
HIPCC = find_hipcc()
UNITS = sorted(p.name for p in PROJECT.iterdir() if p.suffix in (".cu", ".cpp"))


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def shim_project(tmp_path: Path, *extra: str) -> Path:
    """The fixture, converted the documented way: generate the header, then convert in place."""
    src = tmp_path / "src"
    shutil.copytree(PROJECT, src)
    header = src / "gpu_compat.h"
    result = run("shim", src, "-o", header, "--hip-version", "5.2", *extra)
    assert result.exit_code == 0, result.output
    result = run("convert", src, "--in-place", "--mode", "shim", "--hip-version", "5.2", "-q")
    assert result.exit_code == 0, result.output
    return src


@pytest.fixture(scope="module")
def converted(tmp_path_factory) -> Path:
    return shim_project(tmp_path_factory.mktemp("shim"))


def header_names(header: str) -> set[str]:
    """The names the header defines or typedefs (either branch)."""
    return set(re.findall(r"^#define (\w+) ", header, re.M)) | set(re.findall(r"^typedef \w+ (\w+);", header, re.M))


# -- compiling the converted project with both compilers ------------------------------


def _hipcc(path: Path, *flags: str) -> subprocess.CompletedProcess:
    cmd = [HIPCC, "-x", "hip", "--offload-arch=gfx90a", "-fsyntax-only", "-Wno-unused-command-line-argument",
           f"-I{path.parent}", *flags, str(path)]
    return subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, HIP_PLATFORM="amd"))


def _curand_include() -> Path | None:
    """cuRAND's headers: in the CUDA toolkit, or from the nvidia-curand wheel (a test dependency)."""
    candidates = [Path(NVCC).resolve().parents[1] / "include"] if NVCC else []
    candidates.append(Path(sysconfig.get_paths()["purelib"]) / "nvidia" / "cu13" / "include")
    return next((c for c in candidates if (c / "curand_kernel.h").is_file()), None)


@pytest.mark.hipcc
@pytest.mark.parametrize("unit", UNITS)
def test_converted_project_compiles_with_hipcc(converted, unit):
    if HIPCC is None:
        pytest.skip("hipcc is not installed (make test installs Debian's)")
    # The default -fsyntax-only run checks the host side; device code (the warp
    # wrappers, cuRAND's device API) is only instantiated in the device pass.
    for flags in ((), ("--cuda-device-only",)):
        result = _hipcc(converted / unit, *flags)
        assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("unit", UNITS)
def test_converted_project_compiles_with_nvcc(converted, unit, tmp_path):
    if NVCC is None:
        pytest.skip("nvcc is not installed (expected at /usr/local/cuda/bin/nvcc)")
    curand = _curand_include() if unit == "random.cu" else None  # the other units must not need cuRAND
    if curand is None and unit == "random.cu":
        pytest.skip("cuRAND headers not found; pip install nvidia-curand (in the test extra)")
    extra = [f"-I{curand}"] if curand else []
    cmd = [NVCC, "-c", f"-I{converted}", *extra, str(converted / unit), "-o", str(tmp_path / "unit.o")]
    result = subprocess.run(cmd, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_host_code_builds_with_a_plain_cxx_compiler_on_amd(converted):
    # Host-only files are often built by g++ against the HIP headers: __HIP_PLATFORM_AMD__
    # alone picks the HIP branch, and the device-only wrappers stay out of the way.
    gxx = shutil.which("g++")
    if gxx is None or HIPCC is None:
        pytest.skip("needs g++ and the HIP headers")
    result = subprocess.run([gxx, "-std=c++17", "-D__HIP_PLATFORM_AMD__", "-fsyntax-only", f"-I{converted}",
                             str(converted / "host.cpp")], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_compilers_reject_a_broken_unit(converted, tmp_path):
    # Guards the two tests above: a use the header does not cover must fail on both sides.
    broken = tmp_path / "broken.cu"
    broken.write_text('#include "gpu_compat.h"\nint f() { return undeclared_thing(); }\n')
    shutil.copy(converted / "gpu_compat.h", tmp_path / "gpu_compat.h")
    if HIPCC is not None:
        assert _hipcc(broken).returncode != 0
    if NVCC is not None:
        assert subprocess.run([NVCC, "-c", str(broken), "-o", str(tmp_path / "b.o")],
                              capture_output=True).returncode != 0


# -- what the header holds ---------------------------------------------------------


def _code_tokens(text: str) -> set[str]:
    """Identifiers outside comments and string literals: an oracle independent of the parser."""
    text = re.sub(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"", " ", text, flags=re.S)
    return set(re.findall(r"[A-Za-z_]\w*", text))


def test_header_aliases_exactly_the_cuda_names_the_code_uses(converted, rules):
    header = (converted / "gpu_compat.h").read_text()
    tokens = set().union(*(_code_tokens(p.read_text()) for p in PROJECT.iterdir() if p.suffix != ".md"))
    renamed = {n for n in tokens if n in rules.names and rules.names[n].hip not in (None, n)}
    renamed.discard("cudaStreamCreate")  # only a struct member in the fixture, never the API
    assert header_names(header) - {"GPU_WARP_SIZE", "GPU_FULL_MASK", "HIP_ENABLE_WARP_SYNC_BUILTINS"} == renamed
    for not_code in ("cudaDeviceReset", "cudaGraphLaunch", "cudaStreamCreate"):  # comment, comment, member
        assert not re.search(rf"\b{not_code}\b", header)
    assert "__shfl_down_sync(MaskT" in header  # used as code, so wrapped for HIP 5.2


def test_types_become_typedefs_unless_used_as_struct_tags(converted):
    header = (converted / "gpu_compat.h").read_text()
    assert "typedef hipStream_t cudaStream_t;" in header  # a template type argument in stream_pool.cuh
    assert "typedef hipEvent_t cudaEvent_t;" in header
    assert "#define CUstream_st ihipStream_t" in header  # `struct CUstream_st`: a typedef would break it
    assert "#define cudaDeviceProp hipDeviceProp_t" in header  # a struct: the tag must keep working


def test_cuda_branch_has_the_original_includes_and_hip_branch_their_ports(converted):
    header = (converted / "gpu_compat.h").read_text()
    base, curand = header.split("#endif /* HIPPORT_GPU_COMPAT_H */")
    hip, cuda = base.split("\n#else\n")
    assert re.findall(r"#include <([^>]+)>", cuda) == ["cuda_runtime.h", "cuda_runtime_api.h"]
    assert re.findall(r"#include <([^>]+)>", hip) == ["hip/hip_runtime.h", "hip/hip_runtime_api.h"]
    assert "#if defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__)" in hip
    assert "#define GPU_WARP_SIZE warpSize" in hip and "#define GPU_FULL_MASK 0xffffffffffffffffull" in hip
    assert "#define GPU_WARP_SIZE 32" in cuda and "#define GPU_FULL_MASK 0xffffffffu" in cuda
    assert "hip" not in "".join(re.findall(r"^(?:#define|typedef).*$", cuda, re.M))
    # a library is a block of its own, for the files that ask for it where they included its CUDA header
    assert "#if defined(HIPPORT_SHIM_CURAND) && !defined(HIPPORT_GPU_COMPAT_H_CURAND)" in curand
    rand_hip, rand_cuda = curand.split("\n#else\n")
    assert re.findall(r"#include <([^>]+)>", rand_hip) == ["hiprand/hiprand_kernel.h"]
    assert re.findall(r"#include <([^>]+)>", rand_cuda) == ["curand_kernel.h"]
    assert "#define curandState hiprandState" in rand_hip and "curand" not in hip.replace("GPU", "")


def test_cuda_header_guards_the_code_tests_are_defined_under_hip_once_their_hip_header_is_in(converted):
    header = (converted / "gpu_compat.h").read_text()
    base, curand = header.split("#endif /* HIPPORT_GPU_COMPAT_H */")
    hip = base.split("\n#else\n")[0]
    for cuda, hip_guard in (("__DRIVER_TYPES_H__", "HIP_INCLUDE_HIP_HIP_RUNTIME_API_H"),
                            ("__CUDA_RUNTIME_H__", "HIP_INCLUDE_HIP_HIP_RUNTIME_H")):
        assert f"#if defined({hip_guard}) && !defined({cuda})\n#define {cuda}\n#endif" in hip
    assert "#if defined(HIPRAND_H_) && !defined(CURAND_H_)\n#define CURAND_H_\n#endif" in curand.split("#else")[0]
    assert "__CUDA_RUNTIME_API_H__" not in header  # no source tests it


def test_only_the_file_that_includes_a_library_gets_it(converted):
    assert (converted / "random.cu").read_text().startswith(
        "// Monte Carlo estimate of pi with the cuRAND device API.\n#define HIPPORT_SHIM_CURAND 1\n"
        '#include "gpu_compat.h"\n')
    if HIPCC is None:
        pytest.skip("hipcc is not installed")
    for unit, needs in (("reduce.cu", False), ("warp_vote.cu", False), ("random.cu", True)):
        result = _hipcc(converted / unit, "-M")
        assert result.returncode == 0, result.stderr
        assert ("hiprand" in result.stdout) is needs, unit


def test_hip_version_number_matches_hip_version_h():
    # hip/hip_version.h: HIP_VERSION = MAJOR * 10000000 + MINOR * 100000 + PATCH
    assert hip_version_number((5, 2, 0)) == 50200000
    assert hip_version_number((6, 2, 0)) == 60200000
    assert hip_version_number((5, 2, 21153)) == 50221153  # Debian's 5.2.3, whose PATCH is a build number


# -- determinism and regeneration ---------------------------------------------------


def test_same_project_gives_the_same_bytes_whatever_the_path_order(tmp_path, rules):
    files = sorted(PROJECT.iterdir())
    first = generate_shim(files, tmp_path / "a.h", rules, parse_version("5.2"), write=False).text
    second = generate_shim(list(reversed(files)), tmp_path / "a.h", rules, parse_version("5.2"), write=False).text
    assert first == second
    assert generate_shim([PROJECT], tmp_path / "a.h", rules, parse_version("5.2"), write=False).text == first


def test_regenerating_after_conversion_changes_nothing(tmp_path):
    src = shim_project(tmp_path)
    header = src / "gpu_compat.h"
    before, stamp = header.read_bytes(), header.stat().st_mtime_ns
    result = run("shim", src, "-o", header, "--hip-version", "5.2")
    assert result.exit_code == 0 and "up to date" in result.output
    assert header.read_bytes() == before and header.stat().st_mtime_ns == stamp  # not even rewritten
    assert run("shim", src, "-o", header, "--hip-version", "5.2", "--check").exit_code == 0
    # Converting again is a no-op too.
    sources = {p: p.read_bytes() for p in src.iterdir()}
    assert run("convert", src, "--in-place", "--mode", "shim", "-q").exit_code == 0
    assert {p: p.read_bytes() for p in src.iterdir()} == sources


def test_check_flag_reports_an_out_of_date_header_without_writing(tmp_path):
    src = shim_project(tmp_path)
    header = src / "gpu_compat.h"
    before = header.read_bytes()
    (src / "more.cu").write_text('#include "gpu_compat.h"\nvoid reset() { cudaDeviceReset(); }\n')
    result = run("shim", src, "-o", header, "--hip-version", "5.2", "--check")
    assert result.exit_code == 1 and "out of date" in result.output
    assert header.read_bytes() == before
    assert run("shim", src, "-o", header, "--hip-version", "5.2").exit_code == 0
    assert "#define cudaDeviceReset hipDeviceReset" in header.read_text()


def test_refuses_to_overwrite_a_header_it_did_not_generate(tmp_path):
    own = tmp_path / "gpu_compat.h"
    own.write_text("// the team's hand-written header\n")
    result = run("shim", PROJECT, "-o", own)
    assert result.exit_code == 2 and "not generated by hipport shim" in result.output
    assert own.read_text() == "// the team's hand-written header\n"


def test_a_missing_path_writes_nothing(tmp_path):
    header = tmp_path / "gpu_compat.h"
    result = run("shim", PROJECT, tmp_path / "nope", "-o", header)
    assert result.exit_code == 2 and "nope: no such file or directory" in result.output
    assert not header.exists()  # a header from a partial scan would silently lose names


@pytest.mark.parametrize("flag", [["--rename"], ["--launch-syntax", "hip"]])
def test_shim_conversion_refuses_options_that_would_break_the_nvcc_side(tmp_path, flag):
    result = run("convert", PROJECT, "-o", tmp_path / "out", "--mode", "shim", *flag)
    assert result.exit_code == 2 and "does not apply to --mode shim" in result.output
    assert not (tmp_path / "out").exists()


def test_bad_prefix_is_a_usage_error(tmp_path):
    result = run("shim", PROJECT, "-o", tmp_path / "g.h", "--prefix", "9x")
    assert result.exit_code == 2 and "--prefix" in result.output


# -- version guards, names HIP lacks, warp builtins ----------------------------------


def _mini_project(tmp_path: Path, code: str, *args: str) -> tuple[Path, str]:
    unit = tmp_path / "k.cu"
    unit.write_text(code)
    result = run("shim", unit, "-o", tmp_path / "gpu_compat.h", *args)
    assert result.exit_code == 0, result.output
    assert run("convert", unit, "--in-place", "--mode", "shim", "-q").exit_code == 0
    return unit, (tmp_path / "gpu_compat.h").read_text()


def test_names_newer_than_the_target_are_guarded_by_hip_version(tmp_path):
    unit, header = _mini_project(tmp_path, "#include <cuda_runtime.h>\n"
                                           "__device__ float f() { return CUDART_INF_F; }\n", "--hip-version", "5.2")
    assert "#if HIP_VERSION >= 50300000\n#define CUDART_INF_F HIP_INF_F\n" in header
    if HIPCC is None:
        pytest.skip("hipcc is not installed")
    result = _hipcc(unit)  # Debian's HIP is 5.2: the guard must stop the build, with a clear message
    assert result.returncode != 0 and "CUDART_INF_F needs HIP 5.3 or newer" in result.stderr
    result = _hipcc(unit, "-DGPU_COMPAT_ALLOW_UNPORTED")
    assert result.returncode != 0 and "CUDART_INF_F" in result.stderr and "#error" not in result.stderr


def test_a_guard_the_installed_hip_passes(tmp_path):
    # Added in HIP 5.2; a 5.1 target guards it, and Debian's 5.2.3 (HIP_VERSION 50221153) passes the guard.
    unit, header = _mini_project(tmp_path, "#include <cuda_runtime.h>\n"
                                           "void f(cudaMemPool_t* p) { cudaDeviceGetDefaultMemPool(p, 0); }\n",
                                 "--hip-version", "5.1")
    assert "#if HIP_VERSION >= 50200000" in header
    if HIPCC is None:
        pytest.skip("hipcc is not installed")
    result = _hipcc(unit)
    assert result.returncode == 0, result.stderr


def test_names_without_hip_equivalent_stop_the_hip_build_with_error(tmp_path, rules):
    missing = next(n for n, r in sorted(rules.names.items()) if r.hip is None and n.startswith("cudaArrayGet"))
    unit = tmp_path / "k.cu"
    unit.write_text(f"#include <cuda_runtime.h>\nvoid f() {{ {missing}(0, 0); }}\n")
    result = run("shim", unit, "-o", tmp_path / "gpu_compat.h", "--hip-version", "5.2")
    assert result.exit_code == 0
    assert f"k.cu:2:12: error HP101 '{missing}'" in result.output
    header = (tmp_path / "gpu_compat.h").read_text()
    assert f'#error "hipport: {missing} has no HIP equivalent"' in header
    assert f"#define {missing}" not in header


def test_match_sync_has_no_fallback_for_old_hip(tmp_path):
    unit, header = _mini_project(tmp_path, "__global__ void k(int* p) { p[0] = __match_any_sync(0xffffffffu, p[1]); }\n",
                                 "--hip-version", "5.2")
    assert "__match_any_sync needs HIP 6.2 or newer (older HIP has no equivalent)" in header
    assert "__match_any_sync(MaskT" not in header


def test_targets_with_the_sync_builtins_get_no_wrappers(tmp_path, rules):
    text = generate_shim([PROJECT / "reduce.cu"], tmp_path / "g.h", rules, parse_version("6.2"), write=False).text
    assert "__shfl_down_sync(MaskT" not in text and "HIP_VERSION < 60200000" not in text
    assert "#define HIP_ENABLE_WARP_SYNC_BUILTINS 1" in text  # 6.2 to 6.4 declare them only on request


# -- vendor-neutral names ----------------------------------------------------------------


def test_prefix_defines_neutral_names_on_both_sides(tmp_path):
    src = shim_project(tmp_path, "--prefix", "gpu")
    header = (src / "gpu_compat.h").read_text()
    hip, cuda = header.split("#endif /* HIPPORT_GPU_COMPAT_H */")[0].split("\n#else\n")
    assert "#define gpuMalloc hipMalloc" in hip and "#define gpuMalloc cudaMalloc" in cuda
    assert "typedef hipStream_t gpuStream_t;" in hip and "typedef cudaStream_t gpuStream_t;" in cuda


def test_code_written_with_neutral_names_compiles_on_both_sides(tmp_path):
    unit = tmp_path / "neutral.cu"
    unit.write_text('#include "gpu_compat.h"\n'
                    "__global__ void fill(float* p) { p[threadIdx.x] = 1.0f; }\n"
                    "int run(gpuStream_t s) {\n"
                    "  float* p = nullptr;\n"
                    "  if (gpuMalloc(&p, 64 * sizeof(float)) != gpuSuccess) return 1;\n"
                    "  fill<<<1, 64, 0, s>>>(p);\n"
                    "  gpuStreamSynchronize(s);\n"
                    "  return gpuFree(p) == gpuSuccess ? 0 : 1;\n"
                    "}\n")
    header = tmp_path / "gpu_compat.h"
    assert run("shim", unit, "-o", header, "--prefix", "gpu", "--hip-version", "5.2").exit_code == 0
    assert {"gpuMalloc", "gpuFree", "gpuStream_t", "gpuSuccess", "gpuStreamSynchronize"} <= header_names(header.read_text())
    if HIPCC is not None:
        result = _hipcc(unit)
        assert result.returncode == 0, result.stderr
    if NVCC is not None:
        result = subprocess.run([NVCC, "-c", f"-I{tmp_path}", str(unit), "-o", str(tmp_path / "n.o")],
                                capture_output=True, text=True)
        assert result.returncode == 0, result.stderr


# -- convert --mode shim -----------------------------------------------------------------


def test_shim_conversion_leaves_build_files_to_nvcc(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    cmake = "project(demo LANGUAGES CXX CUDA)\nadd_executable(demo k.cu)\n"
    (src / "CMakeLists.txt").write_text(cmake)
    (src / "k.cu").write_text("#include <cuda_runtime.h>\nvoid f() { cudaDeviceSynchronize(); }\n")
    out = tmp_path / "out"
    assert run("convert", src, "-o", out, "--mode", "shim", "-q").exit_code == 0
    assert (out / "CMakeLists.txt").read_text() == cmake
    assert (out / "k.cu").read_text() == '#include "gpu_compat.h"\nvoid f() { cudaDeviceSynchronize(); }\n'


def test_shim_conversion_swaps_includes_and_keeps_names(rules):
    source = (b"#include <cstdio>\r\n#include <cuda_runtime.h>\r\n#include <curand_kernel.h>\r\n"
              b"void f() { cudaDeviceSynchronize(); }\r\n")
    output, _ = shim_source(source, rules, "gpu_compat.h")
    # the library include asks for the header's cuRAND block (defined once, before it)
    assert output == (b'#include <cstdio>\r\n#include "gpu_compat.h"\r\n#define HIPPORT_SHIM_CURAND 1\r\n'
                      b'#include "gpu_compat.h"\r\nvoid f() { cudaDeviceSynchronize(); }\r\n')


def test_shim_conversion_keeps_one_include_per_conditional_branch(rules):
    source = (b"#ifdef FAST\n#include <cuda_fp16.h>\n#else\n#include <cuda_runtime.h>\n#endif\n"
              b"#include <cuda_runtime_api.h>\n")
    output, _ = shim_source(source, rules, "gpu_compat.h")
    assert output == (b'#ifdef FAST\n#include "gpu_compat.h"\n#else\n#include "gpu_compat.h"\n#endif\n'
                      b'#include "gpu_compat.h"\n')


def test_shim_conversion_adds_the_include_nvcc_implied(rules):
    source = b"#include <vector>\n__global__ void k(float* x) { x[threadIdx.x] = 0; }\n"
    output, _ = shim_source(source, rules, "common/gpu_compat.h")
    assert output == b'#include "common/gpu_compat.h"\n' + source


def test_shim_conversion_leaves_plain_cpp_and_the_header_alone(rules, converted):
    plain = b"#include <vector>\nint f() { return 1; } // cudaMalloc in a comment\n"
    assert shim_source(plain, rules, "gpu_compat.h")[0] == plain
    header = (converted / "gpu_compat.h").read_bytes()
    assert shim_source(header, rules, "gpu_compat.h")[0] == header


# -- check --mode shim ---------------------------------------------------------------------


def test_check_mode_shim_flags_names_the_header_misses(tmp_path, rules):
    src = shim_project(tmp_path)
    header = src / "gpu_compat.h"
    result = run("check", src, "--mode", "shim", "--shim-header", header, "--hip-version", "5.2")
    assert result.exit_code == 0, result.output
    (src / "new.cu").write_text('#include "gpu_compat.h"\n#include <cuda_fp16.h>\n'
                                "void f(cudaStream_t s) { cudaStreamQuery(s); }\n")
    gaps = names_not_covered([src], header, rules)
    assert [(g.path.rsplit("/", 1)[-1], g.line, g.column, g.name) for g in gaps] == [
        ("new.cu", 2, 11, "cuda_fp16.h"), ("new.cu", 3, 26, "cudaStreamQuery")]
    result = run("check", src, "--mode", "shim", "--shim-header", header, "--hip-version", "5.2")
    assert result.exit_code == 1
    assert "new.cu:3:26: error HP601 'cudaStreamQuery' is not in gpu_compat.h" in result.output
    assert "HP601 <cuda_fp16.h>" in result.output


def test_check_mode_shim_needs_the_header(tmp_path):
    result = run("check", PROJECT, "--mode", "shim")
    assert result.exit_code == 2 and "--shim-header" in result.output
    result = run("check", PROJECT, "--mode", "shim", "--shim-header", tmp_path / "missing.h")
    assert result.exit_code == 2 and "cannot read shim header" in result.output
