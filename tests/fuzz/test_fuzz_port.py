"""Fuzz the port with hypothesis: grammar-aware CUDA-ish files and raw bytes.

CI runs a short smoke pass (a few hundred examples, a few seconds).
`make fuzz` sets HIPPORT_FUZZ_EXAMPLES to run the same tests much longer;
atheris_port.py is the coverage-guided harness for the same oracle.
"""
from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings

from fuzz_invariants import check_port
from fuzz_strategies import cuda_programs, cuda_sources, fuzz_rules, port_options, random_bytes

# The composed grammar's repr is long; hypothesis warns when it prints it.
pytestmark = pytest.mark.filterwarnings("ignore:Generating overly large repr")

EXAMPLES = int(os.environ.get("HIPPORT_FUZZ_EXAMPLES", "0"))
SMOKE = settings(
    max_examples=EXAMPLES or 200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    derandomize=not EXAMPLES,  # CI is reproducible; a long run explores new seeds each time
    print_blob=True,
)


@SMOKE
@given(source=cuda_sources(), options=port_options())
def test_cuda_like_sources_keep_every_guarantee(source, options):
    check_port(source, fuzz_rules(), options)


@SMOKE
@given(source=random_bytes(), options=port_options())
def test_random_bytes_keep_every_guarantee(source, options):
    check_port(source, fuzz_rules(), options)


@SMOKE
@given(source=cuda_programs(), options=port_options())
def test_well_formed_programs_keep_every_guarantee_and_port_once(source, options):
    check_port(source, fuzz_rules(), options)
