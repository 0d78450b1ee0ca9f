"""How verify --run --platform nvidia runs a port and its CUDA original (hipport/run/gpu.py), with
the runs themselves replaced by scripted outputs: no GPU and no nvcc needed."""

from __future__ import annotations

from pathlib import Path

import pytest

from hipport.run import gpu
from hipport.run.programs import Program
from hipport.run.settings import RunSettings


def _script(monkeypatch, outputs: dict[str, list[tuple[str, float]]]) -> list[tuple[str, float]]:
    """Each side's runs, in turn, print the scripted output and take the scripted seconds (a run
    whose seconds pass its limit times out); returns each run's (side, limit)."""
    calls: list[tuple[str, float]] = []

    def execute(side, binary: Path, cwd: Path, timeout: float, program) -> None:
        name = binary.parent.name
        text, seconds = outputs[name].pop(0)
        calls.append((name, timeout))
        side.limit, side.run_seconds = timeout, min(seconds, timeout)
        side.timed_out = seconds > timeout
        side.exit_status, side.output = (None, "") if side.timed_out else (0, text)

    monkeypatch.setattr(gpu, "_execute", execute)
    return calls


def _sides(tmp_path: Path, outputs, monkeypatch, once: bool):
    calls = _script(monkeypatch, outputs)
    program = Program("p/main.cu", (Path("p/main.cu"),))
    result = gpu.GpuResult(program, "BUILD-FAIL")
    result.port, result.original = gpu.Side(built=True), gpu.Side(built=True)
    sides = [("port", result.port, tmp_path), ("original", result.original, tmp_path)]
    run = RunSettings(timeout=20, once=once, compare_original=tmp_path)
    gpu._run_sides(result, sides, tmp_path / "scratch", program, run, tmp_path)
    gpu._judge(result, program, tmp_path, run)
    return result, calls


def test_once_runs_again_where_the_outputs_differ_and_leaves_out_what_varies(tmp_path, monkeypatch):
    outputs = {
        "original": [("time 0.42 s checksum 204.3", 1.0), ("time 0.47 s checksum 204.3", 1.0)],
        "port": [("time 0.53 s checksum 204.3", 1.0), ("time 0.51 s checksum 204.3", 1.0)],
    }
    result, calls = _sides(tmp_path, outputs, monkeypatch, once=True)
    assert result.status == "AGREE", result.detail
    assert [side for side, _ in calls] == ["original", "port", "port", "original"]


def test_once_runs_each_side_once_where_they_agree(tmp_path, monkeypatch):
    outputs = {"original": [("PASS 3.5", 1.0)], "port": [("PASS 3.5", 1.0)]}
    result, calls = _sides(tmp_path, outputs, monkeypatch, once=True)
    assert result.status == "AGREE" and len(calls) == 2


def test_a_difference_both_runs_agree_on_is_reported(tmp_path, monkeypatch):
    outputs = {
        "original": [("checksum 204.3", 1.0), ("checksum 204.3", 1.0)],
        "port": [("checksum 198.0", 1.0), ("checksum 198.0", 1.0)],
    }
    result, _ = _sides(tmp_path, outputs, monkeypatch, once=True)
    assert result.status == "DIFFER" and "198.0" in result.detail


@pytest.mark.parametrize(("port_seconds", "status"), [(30.0, "AGREE"), (40.0, "TIMEOUT")])
def test_the_port_may_take_twice_its_originals_time(tmp_path, monkeypatch, port_seconds, status):
    outputs = {"original": [("PASS", 17.0)], "port": [("PASS", port_seconds)]}
    result, calls = _sides(tmp_path, outputs, monkeypatch, once=True)
    assert calls[1] == ("port", 34.0)
    assert result.status == status
    if status == "TIMEOUT":
        assert result.detail == "port: still running after 34 s"


def test_a_quick_originals_port_keeps_the_time_limit(tmp_path, monkeypatch):
    outputs = {"original": [("PASS", 2.0)], "port": [("PASS", 25.0)]}
    result, calls = _sides(tmp_path, outputs, monkeypatch, once=True)
    assert calls[1] == ("port", 20) and result.status == "TIMEOUT"
