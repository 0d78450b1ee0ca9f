"""Hand-written input/expected pairs: fixtures/convert/ (one concern each) and
fixtures/lints/ (one lint each, firing or silent on its look-alikes)."""
from __future__ import annotations

import pytest

from conftest import CASES, LINT_CASES
from hipport.engine.port import port_source

ALL = CASES + LINT_CASES
IDS = [c.name for c in CASES] + [f"lints/{c.name}" for c in LINT_CASES]


@pytest.mark.parametrize("case", ALL, ids=IDS)
def test_port_matches_hand_written_expectation(case, rules, file_regression):
    result = port_source(case.input.read_bytes(), rules, case.options(), path=case.input.name)
    file_regression.check(result.output, binary=True, fullpath=case.expected)


@pytest.mark.parametrize("case", ALL, ids=IDS)
def test_findings_match_case_file(case, rules):
    result = port_source(case.input.read_bytes(), rules, case.options(), path=case.input.name)
    got = sorted(f"{f.code}:{f.line}" for f in result.findings)
    assert got == sorted(case.findings)


@pytest.mark.parametrize("case", ALL, ids=IDS)
def test_porting_the_expected_output_again_makes_no_edits(case, rules):
    result = port_source(case.expected.read_bytes(), rules, case.options(), path=case.expected.name)
    assert result.edits == [], [(e.start, e.text) for e in result.edits]
