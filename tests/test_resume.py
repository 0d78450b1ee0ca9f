"""Ctrl-C during `convert SRC -o OUT`: the advice it prints works (issue 28, defect 4).

The rerun used to stop at "OUT: exists and is not empty; pass --force" although the message
said to run the command again. Now the rerun resumes; a finished OUT still needs --force."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from hipport.cli import main
from hipport.tree import mirror

KERNEL = (
    "#include <cuda_runtime.h>\n__global__ void k{n}(float *p) {{ p[threadIdx.x] = {n}; }}\n"
    "void run{n}(float *p) {{ k{n}<<<1, 32>>>(p); cudaDeviceSynchronize(); }}\n"
)


def _tree(root: Path, files: int) -> Path:
    for n in range(files):
        path = root / f"d{n % 7}" / f"k{n}.cu"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(KERNEL.format(n=n))
    (root / "notes.txt").write_text("copied as it is\n")
    return root


def _state(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("HIPPORT_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


def _interrupt_after(monkeypatch, writes: int) -> None:
    real = mirror.MirrorWriting._write
    count = [0]

    def write(self, *args, **kwargs):
        count[0] += 1
        if count[0] > writes:
            raise KeyboardInterrupt
        return real(self, *args, **kwargs)

    monkeypatch.setattr(mirror.MirrorWriting, "_write", write)


def test_an_interrupted_mirror_is_finished_by_the_same_command(env, monkeypatch):
    src, out, whole = _tree(env / "src", 40), env / "out", env / "whole"
    assert CliRunner().invoke(main, ["convert", str(src), "-o", str(whole), "-q", "--jobs", "1"]).exit_code == 0
    with monkeypatch.context() as patch:
        _interrupt_after(patch, 10)
        stopped = CliRunner().invoke(main, ["convert", str(src), "-o", str(out), "-q", "--jobs", "1", "--no-cache"])
    assert stopped.exit_code == 130
    assert stopped.stderr.strip() == (
        "hipport: interrupted; each file written is complete, and none is partly written; "
        "run the command again to finish: it resumes where this one stopped"
    )
    assert 0 < len(_state(out)) < len(_state(whole))
    again = CliRunner().invoke(main, ["convert", str(src), "-o", str(out), "--jobs", "1", "--no-cache"])
    assert again.exit_code == 0, again.output
    assert "resuming the conversion" in again.stderr
    assert _state(out) == _state(whole)
    # finished now: a third run into it is refused again, as for any directory that is not empty
    third = CliRunner().invoke(main, ["convert", str(src), "-o", str(out), "-q"])
    assert third.exit_code == 2 and "pass --force" in third.stderr


def test_without_a_record_the_advice_is_force(env, monkeypatch):
    src, out = _tree(env / "src", 12), env / "out"
    (env / "cache").write_text("not a directory: nothing can be recorded under it")
    _interrupt_after(monkeypatch, 3)
    stopped = CliRunner().invoke(main, ["convert", str(src), "-o", str(out), "-q", "--jobs", "1", "--no-cache"])
    assert stopped.exit_code == 130
    assert stopped.stderr.strip().endswith("run the command again with --force to finish")


def test_another_trees_unfinished_mirror_is_no_licence(env, monkeypatch):
    one, other, out = _tree(env / "one", 12), _tree(env / "other", 3), env / "out"
    with monkeypatch.context() as patch:
        _interrupt_after(patch, 3)
        assert CliRunner().invoke(main, ["convert", str(one), "-o", str(out), "-q", "--jobs", "1"]).exit_code == 130
    refused = CliRunner().invoke(main, ["convert", str(other), "-o", str(out), "-q"])
    assert refused.exit_code == 2 and "not empty" in refused.stderr


def test_sigint_in_a_real_process_gives_the_advice_that_works(env):
    src, out = _tree(env / "src", 600), env / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "hipport", "convert", str(src), "-o", str(out), "-q", "--jobs", "1", "--no-cache"],
        stderr=subprocess.PIPE,
        start_new_session=True,
        env=dict(os.environ),
    )
    deadline = time.monotonic() + 60
    while proc.poll() is None and not (out / "d0").is_dir() and time.monotonic() < deadline:
        time.sleep(0.005)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    if proc.returncode == 0:
        pytest.skip("the run finished before the signal came")
    assert proc.returncode == 130
    assert "run the command again to finish" in err.decode()
    again = subprocess.run(
        [sys.executable, "-m", "hipport", "convert", str(src), "-o", str(out), "-q"], capture_output=True, text=True
    )
    assert again.returncode == 0, again.stderr
    assert len(_state(out)) == 601
