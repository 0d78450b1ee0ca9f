"""A handful of HeCBench programs held to the nvcc oracle (bench/oracle.py): each unit whose CUDA
original compiles with nvcc and whose port compiled in the committed subset baseline must still
compile, in each column that this machine can build; the figures are recomputed from the verdicts.

Skipped without ../shared/corpora/hecbench, nvcc or hipcc. `make corpus CORPUS=../shared/corpora/hecbench`
measures the whole corpus. Refresh the baseline after an improvement with
    python bench/oracle.py --corpus ../shared/corpora/hecbench --samples bench/corpus-hecbench-subset.txt \\
        --baseline bench/corpus-hecbench-subset-baseline.json --results /tmp/r.json --write-baseline
"""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

import oracle  # noqa: E402  (bench/ is scripts, not a package)

SUBSET = BENCH / "corpus-hecbench-subset.txt"
BASELINE = BENCH / "corpus-hecbench-subset-baseline.json"
CORPUS = next((p / "shared" / "corpora" / "hecbench" for p in oracle.REPO.parents
               if (p / "shared" / "corpora" / "hecbench").is_dir()), None)

pytestmark = [
    pytest.mark.skipif(CORPUS is None, reason="no ../shared/corpora/hecbench beside the clone"),
    pytest.mark.skipif(shutil.which("hipcc") is None or shutil.which("nvcc") is None,
                       reason="the oracle needs nvcc and the port hipcc"),
]


def _names() -> list[str]:
    return [s.strip() for s in SUBSET.read_text().splitlines() if s.strip() and not s.startswith("#")]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    return oracle.measure(CORPUS, _names(), tmp_path_factory.mktemp("oracle"), 2, oracle.COLUMNS)


def test_every_listed_program_has_units_and_an_oracle_verdict(results):
    assert results["programs"] == len(_names())
    assert not results["no_units"]
    assert len(results["oracle"]) >= len(_names())


def test_no_unit_that_compiled_in_the_baseline_fails(results):
    lost = oracle.regressions(results, json.loads(BASELINE.read_text()))
    assert not lost, "\n".join(f"REGRESSION {u}" for u in lost)


def test_figures_are_recomputed_from_the_verdicts(results):
    counted = [u for u, v in results["oracle"].items() if v["ok"]]
    for column, units in results["columns"].items():
        f = results["figures"][column]
        assert f["oracle_compiles"] == len(counted)
        assert f["compiled"] == sum(units.get(u, {}).get("verdict") == "ok" for u in counted)
        failing = sorted(u for _, group in f["failures"] for u in group)
        assert failing == sorted(u for u in counted if units.get(u, {}).get("verdict") != "ok")
