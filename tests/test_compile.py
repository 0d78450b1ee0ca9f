"""Ported code is judged by the real HIP compiler, not only by comparing text."""
from __future__ import annotations

import pytest

from conftest import CASES
from hipport.engine.port import port_source
from hipport.verify import INSTALL_HINT, compile_bytes, find_hipcc

COMPILED = [c for c in CASES if c.compile]


@pytest.fixture(scope="session")
def hipcc():
    path = find_hipcc()
    if path is None:
        pytest.fail(INSTALL_HINT)  # `make test` installs it; a missing compiler must not pass silently
    return path


@pytest.mark.hipcc
@pytest.mark.parametrize("case", COMPILED, ids=[c.name for c in COMPILED])
def test_expected_output_compiles_with_hipcc(case, hipcc):
    result = compile_bytes(case.expected.read_bytes(), name="expected.hip", hipcc=hipcc, include_dirs=(case.directory,))
    assert result.ok, result.output


@pytest.mark.hipcc
@pytest.mark.parametrize("case", COMPILED, ids=[c.name for c in COMPILED])
def test_hipport_output_compiles_with_hipcc(case, hipcc, rules):
    output = port_source(case.input.read_bytes(), rules, case.options(), path=case.input.name,
                         declared_elsewhere=case.declared()).output
    if output == case.expected.read_bytes():
        pytest.skip("identical to the expected output, compiled by the test above")
    result = compile_bytes(output, name="ported.hip", hipcc=hipcc, include_dirs=(case.directory,))
    assert result.ok, result.output


def test_compile_check_reports_a_real_error(hipcc):
    # Guards the guard: a broken file must fail, or every compile test above is vacuous.
    result = compile_bytes(b"#include <hip/hip_runtime.h>\n__global__ void k() { undeclared_thing(); }\n",
                           hipcc=hipcc)
    assert not result.ok
    assert "undeclared_thing" in result.first_error


def test_missing_rocm_library_is_not_a_failure_but_a_missing_project_header_is(rules):
    from hipport.verify import CompileResult, library_headers, status

    rocm = library_headers(rules)
    lib = CompileResult("a.hip", False, "a.hip:1:10: fatal error: 'hipblas/hipblas.h' file not found", "")
    own = CompileResult("a.hip", False, "a.hip:1:10: fatal error: 'inc/check.cuh' file not found", "")
    assert status(lib, rocm)[0] == "NO-LIB"
    assert status(own, rocm)[0] == "FAIL"
