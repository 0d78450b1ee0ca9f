"""Library ports are judged by hipcc against ROCm 6.3's library headers (hipBLAS, hipFFT, ...).

A fixture with `compile_libraries = true` in its case.toml has its expected port, and hipport's
own output, compiled with HIP-amd's runtime headers and ROCm-libs' library headers at -std=c++17
(rocPRIM, hipCUB and rocThrust need C++14). Where those vendored headers are not beside this
checkout (../shared/vendor, or HIPPORT_VENDOR), the tests skip: nothing else installs them.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest

from conftest import CASES
from hipport.engine.port import port_source
from hipport.verify import compile_bytes, find_hipcc

ROOT = Path(__file__).resolve().parent.parent


def _vendor() -> Path | None:
    candidates = [os.environ.get("HIPPORT_VENDOR", ""), ROOT.parent / "shared/vendor"]
    candidates.append(ROOT.parent.parent / "shared/vendor")
    for candidate in candidates:
        root = Path(candidate)
        if candidate and (root / "ROCm-libs/include").is_dir() and (root / "HIP-amd/include").is_dir():
            return root
    return None


def _wants_libraries(case) -> bool:
    return tomllib.loads((case.directory / "case.toml").read_text(encoding="utf-8")).get("compile_libraries", False)


LIBRARY_CASES = [c for c in CASES if _wants_libraries(c)]
VENDOR = _vendor()


@pytest.fixture(scope="module")
def flags():
    if VENDOR is None:
        pytest.skip("ROCm-libs and HIP-amd headers are not beside this checkout (set HIPPORT_VENDOR)")
    hipcc = find_hipcc()
    if hipcc is None:
        pytest.skip("hipcc is not installed")
    extra = ("-std=c++17", "-isystem", str(VENDOR / "HIP-amd/include"), "-isystem", str(VENDOR / "ROCm-libs/include"))
    return hipcc, extra


def test_there_are_library_fixtures():
    assert LIBRARY_CASES, "no fixture sets compile_libraries"


@pytest.mark.hipcc
@pytest.mark.parametrize("case", LIBRARY_CASES, ids=[c.name for c in LIBRARY_CASES])
def test_expected_library_port_compiles(case, flags):
    hipcc, extra = flags
    result = compile_bytes(case.expected.read_bytes(), name="expected.hip", hipcc=hipcc, extra_flags=extra)
    assert result.ok, result.output


@pytest.mark.hipcc
@pytest.mark.parametrize("case", LIBRARY_CASES, ids=[c.name for c in LIBRARY_CASES])
def test_hipport_library_port_compiles(case, flags, rules):
    output = port_source(case.input.read_bytes(), rules, case.options()).output
    if output == case.expected.read_bytes():
        pytest.skip("identical to the expected output, compiled by the test above")
    hipcc, extra = flags
    result = compile_bytes(output, name="ported.hip", hipcc=hipcc, extra_flags=extra)
    assert result.ok, result.output


def test_library_compile_check_can_fail(flags):
    # Guards the guard: a call with a wrong argument type must fail, or the tests above are vacuous.
    hipcc, extra = flags
    bad = b'#include <hipfft/hipfft.h>\nvoid f() { hipfftHandle h; hipfftPlan1d(&h, 8, HIPFFT_C2C, "one"); }\n'
    result = compile_bytes(bad, name="bad.hip", hipcc=hipcc, extra_flags=extra)
    assert not result.ok
