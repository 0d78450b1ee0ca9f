"""Inputs that once broke a guarantee (tests/fuzz/regressions/) keep every guarantee now."""
from __future__ import annotations

from pathlib import Path

import pytest

from fuzz_invariants import check_port
from fuzz_strategies import fuzz_rules, options_from_byte

REGRESSIONS = sorted((Path(__file__).parent / "regressions").glob("*.bin"))


@pytest.mark.parametrize("path", REGRESSIONS, ids=[p.stem for p in REGRESSIONS])
def test_regression_input_keeps_every_guarantee(path):
    data = path.read_bytes()
    check_port(data[1:], fuzz_rules(), options_from_byte(data[0]))


def test_there_are_regressions_to_run():
    assert len(REGRESSIONS) >= 8
