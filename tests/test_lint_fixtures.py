"""Porting-lint fixtures under fixtures/lints/: one lint each, firing (NN-...-fires) or
silent on its look-alikes (NN-...-silent). case.toml lists every finding, so a
lint that fires where it must not fails the test as surely as one that misses."""
from __future__ import annotations

import re

import pytest

from conftest import LINT_CASES
from hipport.verify import compile_bytes, find_hipcc

# Output, findings and idempotence are checked with the convert fixtures (test_fixtures.py).
COMPILED = [c for c in LINT_CASES if c.compile]


def test_every_lint_code_has_a_firing_and_a_silent_fixture(rules):
    lint_codes = {lint.code for lint in rules.structural_lints}
    fires = {code for c in LINT_CASES if c.name.endswith("-fires") for code in (f.split(":")[0] for f in c.findings)}
    silent = {m.group().upper() for c in LINT_CASES if c.name.endswith("-silent")
              for m in re.finditer(r"hp\d+", c.name)}
    assert lint_codes <= fires
    assert lint_codes <= silent


@pytest.mark.hipcc
@pytest.mark.parametrize("case", COMPILED, ids=[c.name for c in COMPILED])
def test_lint_fixture_output_compiles_with_hipcc(case):
    hipcc = find_hipcc()
    if hipcc is None:
        pytest.fail("hipcc is missing; `make test` installs it")
    result = compile_bytes(case.expected.read_bytes(), name="expected.hip", hipcc=hipcc)
    assert result.ok, result.output
