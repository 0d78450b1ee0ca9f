"""Hand-written input/expected pairs: fixtures/convert/ (one concern each) and
fixtures/lints/ (one lint each, firing or silent on its look-alikes)."""
from __future__ import annotations

import pytest

from conftest import CASES, LINT_CASES
from hipport.engine.port import port_source
from snapshots import check_snapshot, render_findings

ALL = CASES + LINT_CASES
IDS = [c.name for c in CASES] + [f"lints/{c.name}" for c in LINT_CASES]


@pytest.mark.parametrize("case", ALL, ids=IDS)
def test_port_matches_hand_written_expectation(case, rules, file_regression):
    result = port_source(case.input.read_bytes(), rules, case.options(), path=case.input.name,
                         declared_elsewhere=case.declared())
    file_regression.check(result.output, binary=True, fullpath=case.expected)


@pytest.mark.parametrize("case", ALL, ids=IDS)
def test_findings_match_case_file(case, rules):
    result = port_source(case.input.read_bytes(), rules, case.options(), path=case.input.name,
                         declared_elsewhere=case.declared())
    got = sorted(f"{f.code}:{f.line}" for f in result.findings)
    assert got == sorted(case.findings)


@pytest.mark.parametrize("case", ALL, ids=IDS)
def test_findings_match_snapshot(case, rules):
    """Messages, columns, severities and fixes too, as findings.snap beside the fixture records them."""
    result = port_source(case.input.read_bytes(), rules, case.options(), path=case.input.name,
                         declared_elsewhere=case.declared())
    check_snapshot(case.directory / "findings.snap", render_findings(case.input.name, result.findings))


@pytest.mark.parametrize("case", ALL, ids=IDS)
def test_porting_the_expected_output_again_makes_no_edits(case, rules):
    result = port_source(case.expected.read_bytes(), rules, case.options(), path=case.expected.name,
                         declared_elsewhere=case.declared(case.expected))
    assert result.edits == [], [(e.start, e.text) for e in result.edits]


def test_a_fixture_without_a_snapshot_fails_and_says_how_to_write_one(tmp_path, monkeypatch):
    monkeypatch.delenv("HIPPORT_UPDATE_SNAPSHOTS", raising=False)
    snap = tmp_path / "findings.snap"
    with pytest.raises(pytest.fail.Exception, match="make snapshots"):
        check_snapshot(snap, "no findings\n")
    snap.write_text("input.cu:1:1: warning HP102 old wording\n")
    with pytest.raises(pytest.fail.Exception, match=r"(?s)-input.cu:1:1: warning HP102 old wording.*\+no findings"):
        check_snapshot(snap, "no findings\n")
    monkeypatch.setenv("HIPPORT_UPDATE_SNAPSHOTS", "1")
    check_snapshot(snap, "no findings\n")
    assert snap.read_text() == "no findings\n"
