"""The Porter hides what it hands over from the collector only while it is open."""
from __future__ import annotations

import gc

import pytest

from hipport.options import Options
from hipport.ruleset.loader import load_rules
from hipport.tree.parallel import Porter, PortTask

SOURCES = {f"k{i}.cu": f"__global__ void k{i}(float* x) {{ }}\nvoid f() {{ cudaFree(0); }}\n".encode()
           for i in range(6)}


def port_all(jobs: int) -> dict[str, bytes]:
    rules = load_rules()
    out = {}
    with Porter(rules, Options(), jobs, expected=len(SOURCES)) as porter:
        for rel, source in SOURCES.items():
            for task, result in porter.submit(PortTask(rel, source, frozenset(), rel)):
                out[task.rel] = result.output
        assert gc.get_freeze_count() > 0 or not out, "what was handed over is frozen while the Porter is open"
        for task, result in porter.finish():
            out[task.rel] = result.output
    return out


@pytest.fixture
def thawed():
    gc.unfreeze()
    yield
    gc.unfreeze()


@pytest.mark.parametrize("jobs", [1, 2])
def test_ports_are_the_same_and_nothing_stays_frozen(thawed, jobs):
    out = port_all(jobs)
    assert gc.get_freeze_count() == 0
    assert sorted(out) == sorted(SOURCES)
    assert all(b"hipFree" in output for output in out.values())


def test_objects_someone_else_froze_stay_frozen(thawed):
    gc.freeze()
    frozen = gc.get_freeze_count()
    port_all(1)
    assert gc.get_freeze_count() >= frozen > 0
