"""Argument rewrites ([[argument_rewrite]]): the engine's edge cases and the rule schema's guards."""
from __future__ import annotations

import pytest

from conftest import ROOT

from hipport.engine.port import port_source
from hipport.options import Options
from hipport.ruleset.loader import load_rules
from hipport.ruleset.schema import RuleFileError
from hipport.versions import parse_version

RUNTIME = b"#include <cuda_runtime.h>\n"


def _port(rules, body: bytes, **options):
    return port_source(RUNTIME + body, rules, Options(**options))


def _codes(result) -> list[str]:
    return [f"{f.code}:{f.line}" for f in result.findings]


def test_a_rest_placeholder_past_the_last_argument_writes_nothing(rules):
    body = b"__global__ void k() {}\nvoid f(int* g, int* b) { cudaOccupancyMaxPotentialBlockSize(g, b, k); }\n"
    result = _port(rules, body)
    assert b"hipOccupancyMaxPotentialBlockSize(g, b, reinterpret_cast<const void*>(k));" in result.output


def test_arguments_from_va_args_are_reported_not_rewritten(rules):
    body = b"#define CREATE(...) cudaEventCreate(__VA_ARGS__, cudaEventDefault)\n"
    result = _port(rules, body)
    assert b"CREATE(...) hipEventCreateWithFlags(__VA_ARGS__, hipEventDefault)" in result.output  # a rename only
    body = b"#define SPARSE(h, ...) cuOccupancyMaxPotentialBlockSize(h, __VA_ARGS__, 0, 0, 0, 0)\n"
    result = _port(rules, body)
    assert "HP105:2" in _codes(result)


def test_a_dropped_argument_with_a_comment_or_side_effects_is_left_for_a_person(rules):
    body = (b"void f(int* g, int* b, CUfunction k, int n) {\n"
            b"  cuOccupancyMaxPotentialBlockSize(g, b, k, /* callback */ 0, 256, 0);\n"
            b"  cuOccupancyMaxPotentialBlockSize(g, b, k, n++, 256, 0);\n}\n")
    result = _port(rules, body)
    assert _codes(result).count("HP105:3") == 1 and _codes(result).count("HP105:4") == 1
    assert b"/* callback */ 0, 256, 0)" in result.output and b"n++, 256, 0)" in result.output


def test_the_borrowed_argument_must_be_unambiguous(rules):
    body = (b"#include <cusparse.h>\n"
            b"void f(cusparseHandle_t h, cusparseSpMatDescr_t A, cusparseDnVecDescr_t x, cusparseDnVecDescr_t y,\n"
            b"       cusparseSpSVDescr_t d, const float* one, void* b1, void* b2) {\n"
            b"  cusparseSpSV_analysis(h, CUSPARSE_OPERATION_NON_TRANSPOSE, one, A, x, y, CUDA_R_32F, CUSPARSE_SPSV_ALG_DEFAULT, d, b1);\n"
            b"  cusparseSpSV_analysis(h, CUSPARSE_OPERATION_NON_TRANSPOSE, one, A, x, y, CUDA_R_32F, CUSPARSE_SPSV_ALG_DEFAULT, d, b2);\n"
            b"  cusparseSpSV_solve(h, CUSPARSE_OPERATION_NON_TRANSPOSE, one, A, x, y, CUDA_R_32F, CUSPARSE_SPSV_ALG_DEFAULT, d);\n}\n")
    result = _port(rules, body, hip_version=parse_version("5.7"))  # ROCm 6.0's solve takes no buffer
    assert "HP105:7" in _codes(result)
    assert b"HIPSPARSE_SPSV_ALG_DEFAULT, d);" in result.output


@pytest.mark.parametrize("version, buffer", [("5.2", True), ("5.6", False), ("5.6.1", True), ("5.7", True),
                                             ("6.0", False), ("7.0", False)])
def test_the_spsv_solve_buffer_follows_the_hipsparse_release(rules, version, buffer):
    # hipSPARSE's hipsparse.h: the buffer through ROCm 5.7 except 5.6.0 (hipSPARSE 2.3.6), none from 6.0
    # (hipSPARSE 3.0). The generated arity finding (from HIP 5.2's header) must not win over these.
    body = (b"#include <cusparse.h>\n"
            b"void f(cusparseHandle_t h, cusparseSpMatDescr_t A, cusparseDnVecDescr_t x, cusparseDnVecDescr_t y,\n"
            b"       cusparseSpSVDescr_t d, const float* one, void* work) {\n"
            b"  cusparseSpSV_analysis(h, CUSPARSE_OPERATION_NON_TRANSPOSE, one, A, x, y, CUDA_R_32F, CUSPARSE_SPSV_ALG_DEFAULT, d, work);\n"
            b"  cusparseSpSV_solve(h, CUSPARSE_OPERATION_NON_TRANSPOSE, one, A, x, y, CUDA_R_32F, CUSPARSE_SPSV_ALG_DEFAULT, d);\n}\n")
    result = _port(rules, body, hip_version=parse_version(version))
    solved = b"HIPSPARSE_SPSV_ALG_DEFAULT, d, work);" if buffer else b"HIPSPARSE_SPSV_ALG_DEFAULT, d);"
    assert solved in result.output
    assert not [c for c in _codes(result) if c.startswith("HP10")]


def test_the_call_layout_is_kept_when_arguments_move(rules):
    body = (b"#include <cudnn.h>\n"
            b"void f(cudnnHandle_t h, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w, cudnnConvolutionDescriptor_t c,\n"
            b"       cudnnTensorDescriptor_t y, cudnnConvolutionFwdAlgo_t a, size_t* n) {\n"
            b"  cudnnGetConvolutionForwardWorkspaceSize(h, x, w, c, y,\n"
            b"                                          a, n);\n}\n")
    result = _port(rules, body)
    assert b"miopenConvolutionForwardGetWorkSpaceSize(h, w, x, c, y,\n                                          n);" in result.output


def test_version_gated_rules_follow_the_target(rules):
    body = (b"#include <cusparse.h>\n"
            b"void f(cusparseHandle_t h, cusparseSpMatDescr_t A, cusparseDnVecDescr_t x, cusparseDnVecDescr_t y,\n"
            b"       const float* one, size_t* n) {\n"
            b"  cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, one, A, x, one, y, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, n);\n}\n")
    new = _port(rules, body, roc=True, hip_version=parse_version("6.0"))
    old = _port(rules, body, roc=True, hip_version=parse_version("5.7"))
    assert b"rocsparse_spmv_alg_default, rocsparse_spmv_stage_buffer_size, n, nullptr);" in new.output
    assert b"rocsparse_spmv_alg_default, n, nullptr);" in old.output


def test_hip_rules_still_apply_to_runtime_calls_under_roc(rules):
    result = _port(rules, b"void f(cudaEvent_t* e) { cudaEventCreate(e, cudaEventDisableTiming); }\n", roc=True)
    assert b"hipEventCreateWithFlags(e, hipEventDisableTiming)" in result.output



def test_a_borrow_may_match_another_position_in_any_listed_callee(rules):
    # --roc: rocsparse_csrsv_zero_pivot takes the descriptor (argument 4) of the csrsv2 analysis, of whichever
    # precision, whose info (its argument 8, the zero-pivot call's 1) is the same; borrow_key and borrow_also
    body = (b"#include <cusparse.h>\n"
            b"void f(cusparseHandle_t h, cusparseMatDescr_t lo, cusparseMatDescr_t up, csrsv2Info_t i, csrsv2Info_t j,\n"
            b"       int m, int nnz, const double* v, const int* r, const int* c, void* b, int* p) {\n"
            b"  cusparseDcsrsv2_analysis(h, CUSPARSE_OPERATION_NON_TRANSPOSE, m, nnz, up, v, r, c, j, CUSPARSE_SOLVE_POLICY_NO_LEVEL, b);\n"
            b"  cusparseZcsrsv2_analysis(h, CUSPARSE_OPERATION_NON_TRANSPOSE, m, nnz, lo, v, r, c, i, CUSPARSE_SOLVE_POLICY_NO_LEVEL, b);\n"
            b"  cusparseXcsrsv2_zeroPivot(h, i, p);\n"
            b"  cusparseXcsrsv2_zeroPivot(h, j, p);\n"
            b"  cusparseXcsrsv2_zeroPivot(h, p == 0 ? i : j, p);\n}\n")
    result = _port(rules, body, roc=True)
    assert b"rocsparse_csrsv_zero_pivot(h, lo, i, p);" in result.output
    assert b"rocsparse_csrsv_zero_pivot(h, up, j, p);" in result.output
    assert "HP105:9" in _codes(result) and b"rocsparse_csrsv_zero_pivot(h, p == 0 ? i : j, p);" in result.output

def test_a_call_in_a_macro_body_is_rewritten_in_place(rules):
    result = _port(rules, b"#define MARK(e) cudaEventCreate(&(e), cudaEventDisableTiming)\n")
    assert b"#define MARK(e) hipEventCreateWithFlags(&(e), hipEventDisableTiming)" in result.output


def test_a_name_that_is_not_called_keeps_its_rename(rules):
    result = _port(rules, b"auto p = &cudaEventCreate;\n")
    assert b"auto p = &hipEventCreate;" in result.output


def test_a_user_rule_replaces_the_builtin_one_for_the_same_call_shape(tmp_path):
    user = tmp_path / "mine.toml"
    user.write_text('schema = 1\nargument_rewrite = [\n'
                    '  { cuda = "cudaStreamWaitEvent", count = 2, arguments = "{0}, {1}, cudaEventWaitDefault" },\n]\n')
    rules = load_rules([user], use_cache=False)
    result = port_source(RUNTIME + b"void f(cudaStream_t s, cudaEvent_t e) { cudaStreamWaitEvent(s, e); }\n", rules)
    assert b"hipStreamWaitEvent(s, e, cudaEventWaitDefault)" in result.output


@pytest.mark.parametrize("entry, message", [
    ('{ cuda = "cudaX", arguments = "{0}, {x}" }', "unknown placeholder"),
    ('{ cuda = "cudaX", arguments = "{0}, {0}" }', "used twice"),
    ('{ cuda = "cudaX", arguments = "{0}); system(\\"rm\\"" }', "may only hold"),
    ('{ cuda = "cudaX", count = 2, arguments = "{0}, {2}" }', "beyond the 2"),
    ('{ cuda = "cudaX", arguments = "{0..}, {1}" }', "no argument may follow"),
    ('{ cuda = "cudaX", arguments = "{0:int; x}" }', "pointer type"),
    ('{ cuda = "cudaX", arguments = "{borrowed}" }', "borrow_call"),
    ('{ cuda = "cudaX", target = "rocm", hip = "hipX" }', "target must be"),
    ('{ cuda = "cudaX" }', "at least one of"),
    ('{ cuda = "cudaX", arguments = "{0}, x = 1" }', "no assignment"),
    ('{ cuda = "cudaX", arguments = "{0} <<= 1" }', "no assignment"),
    ('{ cuda = "cudaX", when_declared = "T", arguments = "{0}" }', "needs when_argument"),
    ('{ cuda = "cudaX", when_argument = 0, arguments = "{0}" }', "needs when_declared or when_matches"),
    ('{ cuda = "cudaX", count = 2, when_argument = 2, when_matches = "a", message = "m" }', "no argument 2"),
    ('{ cuda = "cudaX", when_argument = 0, when_matches = "(", message = "m" }', "not a regular expression"),
    ('{ cuda = "cudaX", when_argument = 0, when_declared = "int x", message = "m" }', "a type name"),
    ('{ cuda = "cudaX", when_argument = 0, when_declared = "T", arguments = "{0}, {1}, {1}" }', "used twice"),
])
def test_unsafe_argument_rules_are_rejected_with_their_line(tmp_path, entry, message):
    user = tmp_path / "bad.toml"
    user.write_text(f"schema = 1\nargument_rewrite = [\n  {entry},\n]\n")
    with pytest.raises(RuleFileError) as caught:
        load_rules([user], use_cache=False)
    assert message in str(caught.value) and ":3:" in str(caught.value)


def test_a_condition_on_an_argument_chooses_the_rule(tmp_path):
    # One call shape, three rules: the declared-type condition wins over the text pattern, which wins
    # over none; a template may read the declared argument twice (a name has no side effects).
    user = tmp_path / "conditions.toml"
    user.write_text(
        "schema = 1\nargument_rewrite = [\n"
        '  { cuda = "cudaStreamWaitEvent", count = 2, arguments = "{0}, {1}, 7" },\n'
        '  { cuda = "cudaStreamWaitEvent", count = 2, when_argument = 1, when_matches = "^ev", '
        'code = "HP105", message = "an ev* event" },\n'
        '  { cuda = "cudaStreamWaitEvent", count = 2, when_argument = 1, when_declared = "Wrapped", '
        'arguments = "{0}, {1}.ok != 0 ? {1}.event : nullptr, 0" },\n]\n'
    )
    rules = load_rules([user], use_cache=False)
    body = (b"struct Wrapped { int ok; cudaEvent_t event; };\n"
            b"void f(cudaStream_t s, cudaEvent_t e, cudaEvent_t ev2) {\n  Wrapped w, evw;\n"
            b"  cudaStreamWaitEvent(s, e);\n  cudaStreamWaitEvent(s, ev2);\n  cudaStreamWaitEvent(s, evw);\n"
            b"  cudaStreamWaitEvent(s, w);\n}\n")
    result = _port(rules, body)
    lines = result.output.decode().splitlines()
    assert lines[4] == "  hipStreamWaitEvent(s, e, 7);"
    assert lines[5] == "  hipStreamWaitEvent(s, ev2);" and _codes(result) == ["HP105:6"]
    assert lines[6] == "  hipStreamWaitEvent(s, evw.ok != 0 ? evw.event : nullptr, 0);"
    assert lines[7] == "  hipStreamWaitEvent(s, w.ok != 0 ? w.event : nullptr, 0);"


NEW_FIXTURES = sorted((p for p in (ROOT / "fixtures" / "convert").iterdir() if p.name[:2] in
                       {"80", "81", "82", "83", "84", "85", "86", "87", "88", "89", "90", "91", "92", "93"}),
                      key=lambda p: p.name)


@pytest.mark.parametrize("case", NEW_FIXTURES, ids=[p.name for p in NEW_FIXTURES])
def test_truncated_and_spliced_sources_port_without_raising(case, rules):
    # Half-typed code is the common odd input: cut the file anywhere, or drop a slice of it.
    source = next(case.glob("input.*")).read_bytes()
    for options in (Options(), Options(launch_syntax="hip", roc=True)):
        for cut in range(0, len(source), 29):
            for odd in (source[:cut], source[:cut] + source[cut + 17 :]):
                _assert_nothing_lost(odd, port_source(odd, rules, options), rules)


def _assert_nothing_lost(source: bytes, result, rules) -> None:
    """The port of odd input is still a port: edits in order, inside the file and not overlapping,
    every byte they do not touch kept as it was, and findings that point into the file with known codes."""
    kept, at = [], 0
    for edit in result.edits:
        assert at <= edit.start <= edit.end <= len(source), (edit.start, edit.end, len(source))
        kept += [source[at : edit.start], edit.text]
        at = edit.end
    assert result.output == b"".join(kept) + source[at:]
    for finding in result.findings:
        assert 0 <= finding.start <= finding.end <= len(source) and finding.code in rules.codes, finding
