"""A dozen real CUDA samples, ported and compiled: a unit that compiled in the committed subset
baseline must still compile, and the clean-verdict precision must not drop.

The samples (bench/corpus-subset.txt) were chosen to cover every failure class; `make corpus`
runs the whole corpus. Skipped without the corpus (../shared beside the clone) or hipcc.
Refresh the baseline after an improvement with
    python bench/realcode.py --samples bench/corpus-subset.txt \\
        --baseline bench/corpus-subset-baseline.json --results /tmp/r.json --write-baseline
"""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

import realcode  # noqa: E402  (bench/ is scripts, not a package)

SUBSET = BENCH / "corpus-subset.txt"
BASELINE = BENCH / "corpus-subset-baseline.json"
CORPUS = realcode.default_corpus()
NVIDIA = shutil.which("nvcc") is not None and realcode.hip_nvidia() is not None

pytestmark = [
    pytest.mark.skipif(CORPUS is None, reason="no ../shared/corpora/cuda-samples beside the clone"),
    pytest.mark.skipif(shutil.which("hipcc") is None or shutil.which("hipconfig") is None,
                       reason="hipcc is not installed"),
]


def _samples() -> list[str]:
    return [line.strip() for line in SUBSET.read_text().splitlines() if line.strip() and not line.startswith("#")]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    work = tmp_path_factory.mktemp("realcode")
    tree = realcode.stage(CORPUS, _samples(), ["Common"], work / "staged" / CORPUS.name)
    # the NVIDIA column where nvcc and HIP's NVIDIA headers are here (they are on CI's machine)
    return realcode.run(tree, ["Common"], work, jobs=2, nvidia_column=NVIDIA)


def test_no_unit_that_compiled_in_the_baseline_fails(results):
    baseline = json.loads(BASELINE.read_text())
    lost = realcode.regressions(results, baseline)
    assert not lost, "\n".join(f"REGRESSION {u}: {results['units'].get(u, {}).get('detail')}" for u in lost)


def test_clean_verdict_precision_is_recomputed_and_does_not_drop(results):
    units = results["units"].values()
    clean = [u for u in units if u.get("clean")]
    honest = [u for u in clean if u["verdict"] in ("ok", "no-lib", "no-include")]
    precision = round(100.0 * len(honest) / len(clean), 1) if clean else None
    assert results["summary"]["clean_precision"] == precision
    assert results["summary"]["compiled"] == sum(u["verdict"] == "ok" for u in units)
    baseline = json.loads(BASELINE.read_text())["summary"]["clean_precision"]
    if baseline is not None and precision is not None:
        assert precision >= baseline


def test_the_subset_still_covers_the_failure_classes():
    """The baseline had a unit of each class; a subset that lost one would test less."""
    baseline = json.loads(BASELINE.read_text())
    assert set(_samples()) and {u["verdict"] for u in baseline["units"].values()} >= {"ok", "no-lib", "expected",
                                                                                       "port-fault"}


@pytest.mark.skipif(not NVIDIA, reason="nvcc or HIP's NVIDIA headers (../shared/vendor/HIP-nvidia) absent")
def test_the_nvidia_column_compiles_the_runtime_only_units_and_classes_each_failure(results):
    nvidia = results["nvidia"]
    assert nvidia is not None and set(nvidia["units"]) == set(results["units"])
    classes = {u["verdict"] for u in nvidia["units"].values()}
    assert "ok" in classes and classes <= {"ok", "no-lib", "no-include", "expected", "semantic", "port-fault"}
    # vectorAdd needs only the runtime: its port builds with nvcc through HIP's NVIDIA headers
    vector_add = next(u for name, u in nvidia["units"].items() if name.endswith("vectorAdd/vectorAdd.cu"))
    assert vector_add["verdict"] == "ok"
