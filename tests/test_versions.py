"""--hip-version on both sides of real version boundaries from the reference data.

Each boundary is checked one release before it (the finding appears, or the old
path is written) and at it (clean, or the new path). The versions come from
../shared/reference/cuda-hip-mappings.csv via rules/generated; header moves
come from rules/headers.toml.
"""
from __future__ import annotations

import pytest

from conftest import options_from_args
from hipport.engine.port import port_source
from hipport.ruleset.loader import load_rules
from hipport.verify import INSTALL_HINT, compile_bytes, find_hipcc


def port(source: str, rules, *args: str):
    result = port_source(source.encode(), rules, options_from_args(args))
    # HP436 (the libraries a file needs, information) is the same at every version: test_semantics.py;
    # HP441 (names AMD's HIP alone declares, hipGraphInstantiateParams) too: test_platforms.py
    found = [(f.code, f.line, f.message) for f in result.findings if f.code not in ("HP436", "HP441")]
    return result.output.decode(), found


GRAPH = """\
#include <cuda_runtime.h>
void build(cudaGraph_t graph, cudaGraphExec_t *exec, cudaGraphInstantiateParams *params)
{
    cudaGraphInstantiateWithParams(exec, graph, params);
}
"""


def test_added_in_6_2_is_an_error_for_6_1_and_clean_for_6_2(rules):
    assert rules.names["cudaGraphInstantiateWithParams"].added == "6.2.0"
    _, found = port(GRAPH, rules, "--hip-version", "6.1")
    assert found == [
        ("HP201", 2, "'cudaGraphInstantiateParams' -> 'hipGraphInstantiateParams' needs HIP 6.2, target is 6.1"),
        ("HP201", 4, "'cudaGraphInstantiateWithParams' -> 'hipGraphInstantiateWithParams' needs HIP 6.2, "
                     "target is 6.1"),
    ]
    out, found = port(GRAPH, rules, "--hip-version", "6.2")
    assert found == []
    assert "    hipGraphInstantiateWithParams(exec, graph, params);\n" in out


POOL = """\
#include <cuda_runtime.h>
void scratch(float **p, size_t n, cudaStream_t s)
{
    cudaMallocAsync(reinterpret_cast<void **>(p), n * sizeof(float), s);
    cudaFreeAsync(*p, s);
}
"""


def test_stream_ordered_allocator_needs_5_2(rules):
    _, found = port(POOL, rules, "--hip-version", "5.1")
    assert found == [
        ("HP201", 4, "'cudaMallocAsync' -> 'hipMallocAsync' needs HIP 5.2, target is 5.1"),
        ("HP201", 5, "'cudaFreeAsync' -> 'hipFreeAsync' needs HIP 5.2, target is 5.1"),
    ]
    _, found = port(POOL, rules, "--hip-version", "5.2")
    assert found == []


SOLVER = """\
#include <cusolverDn.h>
int factor(cusolverDnHandle_t h, int n, float *A, float *work, int *ipiv, int *info)
{
    return cusolverDnSgetrf(h, n, n, A, n, work, ipiv, info);
}
"""


def test_hipsolver_compatibility_api_needs_5_1_and_its_header_directory_5_2(rules):
    out, found = port(SOLVER, rules, "--hip-version", "5.0")
    assert out.startswith("#include <hipsolver.h>\n")
    assert found == [
        ("HP205", 1, "'cusolverDn.h' -> 'hipsolver.h': HIP 5.0 predates 'hipsolver/hipsolver.h' (ROCm 5.2); "
                     "the flat path is deprecated from 5.2 and gone in 6.0"),
        ("HP201", 4, "'cusolverDnSgetrf' -> 'hipsolverDnSgetrf' needs HIP 5.1, target is 5.0"),
    ]
    out, found = port(SOLVER, rules, "--hip-version", "5.1")
    assert out.startswith("#include <hipsolver.h>\n")
    assert [code for code, _, _ in found] == ["HP205"]
    out, found = port(SOLVER, rules, "--hip-version", "5.2")
    assert out.startswith("#include <hipsolver/hipsolver.h>\n")
    assert found == []


PRIMARY_CONTEXT = """\
#include <cuda.h>
CUcontext retain(CUdevice dev)
{
    CUcontext ctx;
    cuDevicePrimaryCtxRetain(&ctx, dev);
    return ctx;
}
"""


def test_deprecated_in_6_1_warns_from_6_1_on(rules):
    _, found = port(PRIMARY_CONTEXT, rules, "--hip-version", "6.0")
    assert found == []
    message = ("'cuDevicePrimaryCtxRetain' -> 'hipDevicePrimaryCtxRetain': 'hipDevicePrimaryCtxRetain' "
               "is deprecated since HIP 6.1")
    for version in ("6.1", "6.2"):
        _, found = port(PRIMARY_CONTEXT, rules, "--hip-version", version)
        assert found == [("HP202", 5, message)]


SPARSE_TRIANGULAR = """\
#include <cusparse.h>
void solve(cusparseHandle_t h, csrsv2Info_t info)
{
    cusparseCreateCsrsv2Info(&info);
}
"""


def test_deprecated_in_5_6_is_quiet_for_5_5(rules):
    _, found = port(SPARSE_TRIANGULAR, rules, "--hip-version", "5.5")
    assert found == []
    _, found = port(SPARSE_TRIANGULAR, rules, "--hip-version", "5.6")
    assert found == [("HP202", 4, "'cusparseCreateCsrsv2Info' -> 'hipsparseCreateCsrsv2Info': "
                                  "'hipsparseCreateCsrsv2Info' is deprecated since HIP 5.6")]


TEXREF = "void f(CUtexref t, float *c) { cuTexRefGetBorderColor(c, t); }\n"


def test_added_and_deprecated_in_the_same_release(rules):
    rule = rules.names["cuTexRefGetBorderColor"]
    assert (rule.added, rule.deprecated) == ("6.1.0", "6.1.0")
    _, found = port(TEXREF, rules, "--hip-version", "6.0")
    assert [code for code, _, _ in found] == ["HP201"]
    _, found = port(TEXREF, rules, "--hip-version", "6.1")
    assert [code for code, _, _ in found] == ["HP202"]


def test_default_target_is_the_newest_version_in_the_data(rules):
    source = "cusolverDeterministicMode_t mode = CUSOLVER_DETERMINISTIC_RESULTS;\n"
    assert rules.names["cusolverDeterministicMode_t"].added == "6.3.0"
    assert rules.newest_hip == (6, 3, 0)
    assert port(source, rules)[1] == []
    assert [code for code, _, _ in port(source, rules, "--hip-version", "6.2")[1]] == ["HP201", "HP201"]


BLAS_AND_RAND = """\
#include <cublas_v2.h>
#include <curand_kernel.h>
"""


@pytest.mark.parametrize("version, blas, rand, flagged", [
    ("5.0", "hipblas.h", "hiprand_kernel.h", [1, 2]),
    ("5.1", "hipblas.h", "hiprand/hiprand_kernel.h", [1]),
    ("5.2", "hipblas/hipblas.h", "hiprand/hiprand_kernel.h", []),
    ("6.0", "hipblas/hipblas.h", "hiprand/hiprand_kernel.h", []),
])
def test_header_paths_follow_the_rocm_5_1_and_5_2_directory_moves(rules, version, blas, rand, flagged):
    out, found = port(BLAS_AND_RAND, rules, "--hip-version", version)
    assert out == f"#include <{blas}>\n#include <{rand}>\n"
    assert [(code, line) for code, line, _ in found] == [("HP205", line) for line in flagged]


def test_roc_header_paths_move_too(rules):
    out, found = port(BLAS_AND_RAND, rules, "--hip-version", "5.1", "--roc")
    assert out == "#include <rocblas.h>\n#include <rocrand/rocrand_kernel.h>\n"
    assert found == [("HP205", 1, "'cublas_v2.h' -> 'rocblas.h': HIP 5.1 predates 'rocblas/rocblas.h' "
                                  "(ROCm 5.2); the flat path is deprecated from 5.2 and gone in 6.0")]


def test_headers_that_never_had_a_flat_path_ignore_the_target(rules):
    source = "#include <nvrtc.h>\n#include <cub/cub.cuh>\n#include <cudnn.h>\n"
    out, found = port(source, rules, "--hip-version", "4.5")
    # hipCUB's headers choose their back end by __HIP_PLATFORM_AMD__: the runtime comes first (rules/cub-headers.toml)
    assert out == ("#include <hip/hip_runtime.h>\n#include <hip/hiprtc.h>\n#include <hipcub/hipcub.hpp>\n"
                   "#include <miopen/miopen.h>\n")
    assert found == []


def test_reference_data_marks_nothing_removed_yet(rules):
    # HP203 is exercised with a user rule below; if the data gains removals, test a real one here.
    assert not [r.cuda for r in rules.names.values() if r.removed and r.origin.builtin]


@pytest.fixture
def legacy_rules(tmp_path):
    mine = tmp_path / "legacy.toml"
    mine.write_text('schema = 1\nrename = [\n'
                    '  { cuda = "cudaLegacyCopy", hip = "hipLegacyCopy", added = "4.0", deprecated = "5.5", '
                    'removed = "6.0", replacement = "hipMemcpy" },\n]\n')
    return load_rules([mine], use_cache=False)


def test_removed_is_an_error_at_and_after_the_removal(legacy_rules):
    source = "void f(void *d, const void *s) { cudaLegacyCopy(d, s); }\n"
    assert port(source, legacy_rules, "--hip-version", "5.4")[1] == []
    assert [c for c, _, _ in port(source, legacy_rules, "--hip-version", "5.7")[1]] == ["HP202"]
    for version in ("6.0", "6.1"):
        _, found = port(source, legacy_rules, "--hip-version", version)
        assert [(c, line) for c, line, _ in found] == [("HP203", 1)]
        assert found[0][2].startswith(f"'cudaLegacyCopy' -> 'hipLegacyCopy': 'hipLegacyCopy' was removed in HIP 6.0, "
                                      f"target is {version}")


def test_removed_finding_names_the_replacement(legacy_rules):
    _, found = port("void f(void *d, const void *s) { cudaLegacyCopy(d, s); }\n", legacy_rules,
                    "--hip-version", "6.0")
    assert "hipMemcpy" in found[0][2]


@pytest.mark.hipcc
def test_5_2_output_compiles_with_debians_hip_5_2(rules):
    hipcc = find_hipcc()
    if hipcc is None:
        pytest.fail(INSTALL_HINT)
    source = ("#include <curand.h>\n#include <cusparse.h>\n"
              "void f(curandGenerator_t *g, cusparseHandle_t *h) {\n"
              "  curandCreateGenerator(g, CURAND_RNG_PSEUDO_DEFAULT);\n  cusparseCreate(h);\n}\n")
    out, found = port(source, rules, "--hip-version", "5.2")
    assert found == []
    assert out.startswith("#include <hiprand/hiprand.h>\n#include <hipsparse/hipsparse.h>\n")
    result = compile_bytes(out.encode(), name="v52.hip", hipcc=hipcc)
    assert result.ok, result.output
