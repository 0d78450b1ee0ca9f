"""Long runs show progress to a person at a terminal and stay quiet through a pipe; a file with
thousands of findings of one kind prints a few and counts the rest; a quiet hook prints no
information findings (issue 28, gap 1)."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import Terminal
from hipport.cli import main

KERNEL = (
    "#include <cuda_runtime.h>\n__global__ void k{n}(float *p) {{\n"
    "  unsigned m = __ballot_sync(0xffffffff, p[threadIdx.x] > 0);\n  if (m) p[0] = 1;\n}}\n"
)


@pytest.fixture
def clock(monkeypatch):
    from hipport import console

    now = [100.0]
    monkeypatch.setattr(console, "_now", lambda: now[0])
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setenv("COLUMNS", "120")
    return now


def test_the_line_has_a_bar_counts_rate_time_left_and_the_file(clock):
    from hipport.console import Progress

    terminal = Terminal()
    with Progress("hipport convert", stream=terminal) as progress:
        clock[0] += 2.0
        progress.update(250, 1000, "src/kernels/k250.cu")
    drawn = terminal.text.split("\r")[1]
    assert drawn == (
        "hipport convert  [######..................]  250/1,000 files  25%  125/s  ~6s left  src/kernels/k250.cu\x1b[K"
    )
    assert terminal.text.endswith("\r\x1b[K")  # closing erases it: what follows starts on a clean line


def test_a_quick_run_draws_nothing(clock):
    from hipport.console import Progress

    terminal = Terminal()
    with Progress("hipport report", stream=terminal) as progress:
        clock[0] += 0.1
        progress.update(3, 3, "a.cu")
    assert terminal.text == ""


def test_redraws_are_few_however_many_files(clock):
    from hipport.console import Progress

    terminal = Terminal()
    with Progress("hipport convert", stream=terminal) as progress:
        clock[0] += 1.0
        for done in range(1, 10_001):
            clock[0] += 0.0001  # 10,000 files in one second
            progress.update(done, 10_000, f"f{done}.cu")
    assert 5 <= terminal.text.count("\r") <= 15
    assert "10,000/10,000 files  100%" in terminal.text  # the last state is always drawn


def test_nothing_through_a_pipe_in_ci_or_on_a_dumb_terminal(clock, monkeypatch, tmp_path):
    from hipport.console import Progress

    with open(tmp_path / "log", "w") as pipe_like:
        assert not Progress("x", stream=pipe_like).enabled
    assert Progress("x", stream=Terminal()).enabled
    monkeypatch.setenv("CI", "1")
    assert not Progress("x", stream=Terminal()).enabled
    monkeypatch.delenv("CI")
    monkeypatch.setenv("TERM", "dumb")
    assert not Progress("x", stream=Terminal()).enabled


def _tree(root: Path, files: int) -> Path:
    for n in range(files):
        (root / f"d{n % 9}").mkdir(parents=True, exist_ok=True)
        (root / f"d{n % 9}" / f"k{n}.cu").write_text(KERNEL.format(n=n))
    return root


def _in_a_terminal(args: list[str], cwd: Path) -> str:
    """What a terminal shows of a hipport run whose stdout and stderr are a pseudo-terminal."""
    leader, follower = pty.openpty()
    env = dict(os.environ, TERM="xterm", COLUMNS="120")
    env.pop("CI", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "hipport", *args],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=follower,
        env=env,
    )
    os.close(follower)
    seen = b""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        elif proc.poll() is not None:
            break
    proc.wait(timeout=30)
    os.close(leader)
    return seen.decode("utf-8", "replace")


def test_convert_of_a_big_tree_shows_progress_in_a_terminal_and_none_through_a_pipe(tmp_path):
    _tree(tmp_path / "src", 1500)
    shown = _in_a_terminal(["convert", "src", "-o", "out", "--no-cache", "--jobs", "1"], tmp_path)
    assert "hipport convert  [" in shown and "/1,500 files" in shown and " left" in shown
    piped = subprocess.run(
        [sys.executable, "-m", "hipport", "convert", "src", "-o", "out2", "--no-cache", "--jobs", "1", "-q"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert piped.returncode == 0 and piped.stdout == "" and piped.stderr == ""


# -- a cap on output ------------------------------------------------------------------------


def _many(tmp_path: Path, count: int) -> Path:
    body = "".join(f"  m += __ballot_sync(0xffffffff, p[{i}] > 0);\n" for i in range(count))
    path = tmp_path / "gen.cu"
    path.write_text("__global__ void k(float *p) {\n  unsigned long long m = 0;\n" + body + "  p[0] = m;\n}\n")
    return path


def test_a_files_findings_of_one_code_are_listed_ten_then_counted(tmp_path):
    path = _many(tmp_path, 40)
    result = CliRunner().invoke(main, ["check", str(path), "--select", "HP401"])
    lines = result.stdout.splitlines()
    assert len(lines) == 11 and all(": warning HP401 " in line for line in lines[:10])
    assert lines[10] == f"{path.as_posix()}: ... and 30 more HP401 in this file"
    assert "40 warning(s)" in result.stderr  # the summary counts them all
    every = CliRunner().invoke(main, ["check", str(path), "--select", "HP401", "--all-findings"])
    assert len(every.stdout.splitlines()) == 40


def test_convert_groups_them_too(tmp_path):
    path = _many(tmp_path, 25)
    result = CliRunner().invoke(main, ["convert", str(path), "-o", str(tmp_path / "gen.hip")])
    assert f"{path.as_posix()}: ... and 15 more HP401 in this file" in result.stderr
    assert result.stderr.count(": warning HP401 ") == 10


def test_the_fast_check_path_groups_them_as_click_does(tmp_path):
    path = _many(tmp_path, 12)
    fast = subprocess.run(
        [sys.executable, "-m", "hipport", "check", path.name, "--select", "HP401"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert fast.stdout.splitlines()[-1] == "gen.cu: ... and 2 more HP401 in this file"


# -- a quiet hook ---------------------------------------------------------------------------


def test_a_quiet_check_prints_no_information(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "g.cu").write_text(
        "#include <cublas_v2.h>\nvoid f() { cublasHandle_t h; cublasCreate(&h); }\n"
        "__global__ void k(float *p) { if (threadIdx.x % 32 == 0) p[0] = 1; }\n"
    )
    for run in (
        lambda *a: subprocess.run([sys.executable, "-m", "hipport", *a], cwd=tmp_path, capture_output=True, text=True),
        lambda *a: CliRunner().invoke(main, list(a)),
    ):
        loud = run("check", "g.cu")
        assert " info HP436 " in loud.stdout
        quiet = run("check", "g.cu", "-q")
        assert " info " not in quiet.stdout and " warning HP403 " in quiet.stdout
        assert quiet.stderr == ""
        # what fails the hook is always shown
        failing = run("check", "g.cu", "-q", "--fail-on", "info")
        assert " info HP436 " in failing.stdout


def test_verify_counts_units_as_they_compile(clock, monkeypatch):
    import hipport.verify as verify
    from hipport.cli.verify import _compiled

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)

    def compile_one(toolchain, unit, include_dirs):
        clock[0] += 1.0  # a hipcc -fsyntax-only takes about a second
        return f"result of {unit.name}"

    monkeypatch.setattr(verify, "check_unit", compile_one)
    units = [Path(f"out/k{n}.hip") for n in range(6)]
    assert _compiled(units, object(), jobs=2) == [f"result of k{n}.hip" for n in range(6)]
    assert "hipport verify  [" in terminal.text and "/6 units" in terminal.text and "s left" in terminal.text
    assert terminal.text.endswith("\r\x1b[K")


def test_report_on_a_tree_passes_progress_through_the_analysis(tmp_path):
    from hipport.ruleset.loader import load_rules
    from hipport.options import Options
    from hipport.report import analyze_paths

    _tree(tmp_path / "src", 12)
    seen = []
    analyze_paths([tmp_path / "src"], load_rules(), Options(), progress=lambda *a: seen.append(a))
    assert [done for done, _, _ in seen] == list(range(1, 13)) and {total for _, total, _ in seen} == {12}
