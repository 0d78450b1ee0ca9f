"""`make demo` on a machine without the HIP CPU Runtime (none vendored, no network to clone it):
the run step is skipped with one line and the demo succeeds (issue 22). The demo's commands run
against a stand-in hipport that records its arguments, so only the Makefile's logic is tested."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="no make")


def _demo(tmp_path: Path, hip_cpu: Path) -> tuple[subprocess.CompletedProcess, list[str]]:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / ".installed").touch()
    log = tmp_path / "calls"
    stub = venv / "bin" / "hipport"
    stub.write_text(f'#!/bin/sh\necho "$*" >> {log}\n')
    stub.chmod(0o755)
    # -o: the set-up targets (venv, bytecode, hipcc, g++/TBB, the runtime's clone) count as done
    result = subprocess.run(
        [
            "make",
            "-s",
            "-f",
            str(ROOT / "Makefile"),
            "demo",
            f"VENV={venv}",
            f"HIP_CPU={hip_cpu}",
            "-o",
            str(venv / ".installed"),
            "-o",
            "bytecode",
            "-o",
            "hipcc",
            "-o",
            "hipcpu",
        ],
        cwd=tmp_path,  # the demo's outputs (demo-out/) land there, not in the checkout
        capture_output=True,
        text=True,
        timeout=120,
    )
    calls = log.read_text().splitlines() if log.exists() else []
    return result, calls


def test_demo_skips_the_run_step_with_one_line_without_the_runtime(tmp_path):
    result, calls = _demo(tmp_path, tmp_path / "missing")
    assert result.returncode == 0, result.stderr
    skipped = [line for line in result.stdout.splitlines() if "HIP CPU Runtime" in line]
    assert skipped == [f"demo: no HIP CPU Runtime in {tmp_path / 'missing'}: the run step (verify --run) is skipped"]
    assert calls and not any("--run" in call for call in calls), calls
    assert calls[-1] == "verify demo-out --report demo-out.json"  # everything before the run step still ran


def test_demo_runs_the_programs_when_the_runtime_is_there(tmp_path):
    runtime = tmp_path / "HIP-CPU"
    (runtime / "include" / "hip").mkdir(parents=True)
    (runtime / "include" / "hip" / "hip_runtime.h").touch()
    result, calls = _demo(tmp_path, runtime)
    assert result.returncode == 0, result.stderr
    assert calls[-1] == f"verify demo-out --run --hip-cpu {runtime} -j 2"
