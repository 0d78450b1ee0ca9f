"""Hand-written input/expected pairs under fixtures/convert/, one concern each."""
from __future__ import annotations

import pytest

from conftest import CASES
from hipport.rules.engine import port_source


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_port_matches_hand_written_expectation(case, rules, file_regression):
    result = port_source(case.input.read_bytes(), rules, case.options(), path=case.input.name)
    file_regression.check(result.output, binary=True, fullpath=case.expected)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_findings_match_case_file(case, rules):
    result = port_source(case.input.read_bytes(), rules, case.options(), path=case.input.name)
    got = sorted(f"{f.code}:{f.line}" for f in result.findings)
    assert got == sorted(case.findings)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_porting_the_expected_output_again_makes_no_edits(case, rules):
    result = port_source(case.expected.read_bytes(), rules, case.options(), path=case.expected.name)
    assert result.edits == [], [(e.start, e.text) for e in result.edits]
