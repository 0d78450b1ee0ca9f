"""HP101 says what to write instead where a next step exists, from the rules' `replacement`
field; `hipport explain` shows it too (issue 28, gap 2)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from hipport.cli import main
from hipport.engine.port import port_source
from hipport.explain import explain, render_explain
from hipport.ruleset.loader import load_rules


def _hp101(source: bytes, rules) -> list[str]:
    return [f.message for f in port_source(source, rules).findings if f.code == "HP101"]


def test_the_tensor_op_gemm_algorithm_names_hipblas_default(rules):
    (message,) = _hp101(b"#include <cublas_v2.h>\ncublasGemmAlgo_t a = CUBLAS_GEMM_DEFAULT_TENSOR_OP;\n", rules)
    assert message.startswith(
        "'CUBLAS_GEMM_DEFAULT_TENSOR_OP' (cuBLAS) has no HIP equivalent; use HIPBLAS_GEMM_DEFAULT"
    )


def test_a_load_that_must_fetch_again_names_a_volatile_load(rules):
    (message,) = _hp101(b"__global__ void k(int *p, int *q) { *q = __ldcv(p); }\n", rules)
    assert "use a load through a volatile pointer (*(volatile T *)ptr)" in message


def test_a_name_without_a_next_step_says_only_that_hip_lacks_it(rules):
    (message,) = _hp101(b"__global__ void k() { __barrier_sync(0); }\n", rules)
    assert message == "'__barrier_sync' (CUDA device API) has no HIP equivalent"


def test_explain_shows_the_next_step(rules):
    result = explain("CUBLAS_GEMM_DEFAULT_TENSOR_OP", rules)
    assert result["entries"][0]["replacement"].startswith("HIPBLAS_GEMM_DEFAULT")
    text = render_explain(result)
    assert "instead, use:      HIPBLAS_GEMM_DEFAULT" in text
    shown = CliRunner().invoke(main, ["explain", "__ldcv"])
    assert "instead, use:" in shown.output and "volatile pointer" in shown.output


def test_a_user_rule_file_gives_its_own_next_step(tmp_path):
    rule_file = tmp_path / "mine.toml"
    rule_file.write_text(
        'schema = 1\nunsupported = [\n  { cuda = "cudaMyThing", library = "CUDA_Runtime_API", '
        'kind = "function", replacement = "myPortableThing(), in src/portable.h" },\n]\n'
    )
    (tmp_path / "a.cu").write_text("void f() { cudaMyThing(); }\n")
    rules = load_rules([rule_file], use_cache=False)
    (message,) = _hp101(b"void f() { cudaMyThing(); }\n", rules)
    assert message.endswith("has no HIP equivalent; use myPortableThing(), in src/portable.h")
    shown = CliRunner().invoke(main, ["explain", "cudaMyThing", "--rules", str(rule_file), "--format", "json"])
    assert json.loads(shown.output)["entries"][0]["replacement"] == "myPortableThing(), in src/portable.h"
