"""The benchmark cannot rot: its corpus is deterministic, hipport ports it, and run.py completes.

No timings are asserted here; bench/run.py measures, tests only check it works.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from hipport.cli import main

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

import corpus  # noqa: E402  (bench/ is scripts, not a package)


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_same_seed_gives_the_same_bytes(tmp_path):
    first = corpus.generate(tmp_path / "a", 24, seed=7)
    again = corpus.generate(tmp_path / "b", 24, seed=7)
    corpus.generate(tmp_path / "c", 24, seed=8)
    assert len(first.files) == 24
    assert first.latin1 and first.crlf  # even a small corpus has one of each
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")
    assert _tree(tmp_path / "a") != _tree(tmp_path / "c")
    assert first.summary() == again.summary()


def test_big_file_is_deterministic_and_about_the_size_asked(tmp_path):
    size = corpus.big_file(tmp_path / "a.cu", 0.2, seed=3)
    corpus.big_file(tmp_path / "b.cu", 0.2, seed=3)
    assert (tmp_path / "a.cu").read_bytes() == (tmp_path / "b.cu").read_bytes()
    assert 200_000 <= size < 230_000


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    root = tmp_path_factory.mktemp("corpus")
    return corpus.generate(root / "src", 150, seed=1)


def test_corpus_has_every_promised_piece(mixed):
    texts = {p: p.read_bytes() for p in mixed.files}
    everything = b"".join(texts.values())
    for needle in (b"<<<", b"template <typename", b"cudaMemcpyAsync", b"cuModuleLoad", b"cublasSgemm",
                   b"curandCreateGenerator", b"cufftExecC2C", b"#define CUDA_CHECK(call)", b'"cudaMemcpy2D failed: "'):
        assert needle in everything, needle
    assert mixed.crlf and all(b"\r\n" in texts[p] for p in mixed.crlf)
    assert mixed.latin1
    for p in mixed.latin1:
        with pytest.raises(UnicodeDecodeError):
            texts[p].decode("utf-8")
    assert mixed.large and all(texts[p].count(b"\n") >= 5000 for p in mixed.large)
    includers = [p for p, t in texts.items() if b'#include "../common/cuda_check.cuh"' in t]
    assert len(includers) >= 3  # module headers and generated files share it
    assert any(p.suffix == ".cpp" and b"cuda" not in t.lower() for p, t in texts.items())  # plain C++
    assert any(p.suffix not in corpus.SOURCE_SUFFIXES for p in mixed.files)  # copied, not ported


def test_hipport_ports_the_corpus_without_errors(mixed, tmp_path, monkeypatch):
    monkeypatch.setenv("HIPPORT_CACHE_DIR", str(tmp_path / "cache"))  # port every file, not cached ports
    out, report = tmp_path / "out", tmp_path / "report.json"
    done = CliRunner().invoke(main, ["convert", str(mixed.root), "-o", str(out), "--report", str(report), "-q"])
    assert done.exit_code == 0, done.output
    entries = {e["path"]: e for e in json.loads(report.read_text())["files"]}
    sources = {p.relative_to(mixed.root).as_posix() for p in mixed.sources()}
    assert sources <= set(entries)
    assert sum(entries[s]["changed"] for s in sources) > len(sources) // 2
    for p in mixed.latin1:  # ported, and the latin-1 bytes kept
        ported = (out / p.relative_to(mixed.root)).read_bytes()
        if b"#include <cuda_runtime.h>" in p.read_bytes():
            assert b"#include <hip/hip_runtime.h>" in ported
        assert any(ch in ported for ch in (b"\xe9", b"\xf6", b"\xf1"))
    for p in mixed.crlf:
        assert b"\r\n" in (out / p.relative_to(mixed.root)).read_bytes()


def test_run_smoke_writes_results(tmp_path):
    results = tmp_path / "results.json"
    done = subprocess.run([sys.executable, str(BENCH / "run.py"), "--smoke", "--work", str(tmp_path / "work"),
                           "--results", str(results)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    data = json.loads(results.read_text())
    assert data["mode"] == "smoke"
    assert {"cpu", "cores", "python", "hipport", "git_commit"} <= set(data["machine"])
    measured = [r for r in data["rows"] if r["available"]]
    assert any(r["section"] == "batch" for r in measured)
    assert all(r["min_s"] <= r["median_s"] <= r["max_s"] for r in measured)
    assert data["breakdown"]["steps_s"]
    assert "[targets]" in done.stdout
