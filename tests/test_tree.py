"""Whole-tree conversion: the mirrored tree, renames, cache, jobs, refusals, in-place safety."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import ROOT, Terminal
from hipport import api
from hipport.cli import main
from hipport.options import Options
from hipport.tree.settings import TreeSettings
from hipport.tree.walk import Filters, select

FIXTURE = ROOT / "fixtures" / "projects" / "tree"
BINARY = bytes(range(256)) * 4
BINARY_CU = b"\x7fELF\0\0cudaMalloc\0" + bytes(range(64))


def make_project(root: Path) -> Path:
    """The fixture as a checkout would have it, plus what git cannot hold or loses."""
    shutil.copytree(FIXTURE, root, symlinks=True)
    (root / "dot-gitignore").rename(root / ".gitignore")
    lf = root / "src" / "crlf_util.cu.lf"
    (root / "src" / "crlf_util.cu").write_bytes(lf.read_bytes().replace(b"\n", b"\r\n"))
    lf.unlink()
    (root / "data").mkdir()
    (root / "data" / "lut.bin").write_bytes(BINARY)
    (root / "kernels" / "blob.cu").write_bytes(BINARY_CU)  # a source name, binary bytes: copied
    (root / "include").mkdir()
    os.symlink("../kernels/scale.cuh", root / "include" / "scale.cuh")
    os.symlink("/usr/include", root / "system")  # a link out of the tree: kept, never entered
    (root.parent / "outside.txt").write_text("outside\n")
    os.symlink("../../outside.txt", root / "docs" / "outside.txt")
    (root / "empty").mkdir()
    return root


@pytest.fixture
def project(tmp_path) -> Path:
    return make_project(tmp_path / "repo")


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HIPPORT_CACHE_DIR", str(tmp_path / "cache"))


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def convert(src, out, *args):
    result = cli("convert", src, "-o", out, "-q", *args)
    assert result.exit_code == 0, result.output
    return result


def tree_state(root: Path) -> dict[str, object]:
    """Every file's bytes and every link's target, by relative path."""
    state: dict[str, object] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                state[rel] = ("link", os.readlink(path))
            elif path.is_file():
                state[rel] = path.read_bytes()
            else:
                state[rel] = "dir"
    return state


def report_of(path: Path) -> dict:
    data = json.loads(path.read_text())
    data["summary"].pop("seconds")
    return data


# -- the mirrored tree --------------------------------------------------------------


def test_mirror_ports_sources_migrates_build_files_copies_the_rest(project, tmp_path):
    out = tmp_path / "out"
    convert(project, out, "--report", tmp_path / "r.json")
    got = tree_state(out)

    assert not any(rel.startswith("vendor") for rel in got), "ignored vendor/ must not be mirrored"
    assert got[".gitignore"] == (project / ".gitignore").read_bytes()
    assert got["docs/notes.txt"] == b"cudaMalloc in prose is not code: copied unchanged.\n"
    assert got["data/lut.bin"] == BINARY and got["kernels/blob.cu"] == BINARY_CU
    assert got["empty"] == "dir"

    main_cu = got["src/main.cu"].decode()
    assert "hipMalloc(&d" in main_cu and "hipStreamCreate(&stream)" in main_cu
    assert '"mean %f (cudaMemcpy in a string stays)\\n"' in main_cu
    assert "CUDA_CHECK(hipFree(d))" in main_cu  # the project's own macro, from a header two sources include
    check = got["common/check.cuh"].decode()
    assert "#include <hip/hip_runtime.h>" in check and "hipGetErrorString(status_)" in check
    assert b"hiprandCreateGenerator" in got["kernels/random.cu"]
    assert got["src/plain.cpp"] == (project / "src" / "plain.cpp").read_bytes()

    crlf = got["src/crlf_util.cu"]
    assert b"hipDeviceSynchronize();\r\n" in crlf and crlf.count(b"\n") == crlf.count(b"\r\n")

    assert got["include/scale.cuh"] == ("link", "../kernels/scale.cuh")
    assert got["system"] == ("link", "/usr/include")
    assert got["docs/outside.txt"] == ("link", str(tmp_path / "outside.txt"))
    assert not any(rel.startswith("system/") for rel in got), "a link out of the tree is never followed"

    report = report_of(tmp_path / "r.json")
    paths = [f["path"] for f in report["files"]]
    assert paths == sorted(paths)
    assert paths == ["CMakeLists.txt", "Makefile", "common/check.cuh", "kernels/CMakeLists.txt", "kernels/random.cu",
                     "kernels/scale.cu", "kernels/scale.cuh", "src/crlf_util.cu", "src/host.cpp", "src/main.cu",
                     "src/plain.cpp"]
    summary = report["summary"]
    assert (summary["build_files"], summary["binary"], summary["skipped"], summary["cached"]) == (3, 1, 1, 0)
    assert summary["copied"] == 8  # README.md .gitignore notes.txt lut.bin blob.cu, and 3 links
    by_path = {f["path"]: f for f in report["files"]}
    assert [(f["code"], f["line"]) for f in by_path["kernels/CMakeLists.txt"]["findings"]] == [("HP501", 4)]
    assert [(f["code"], f["line"]) for f in by_path["Makefile"]["findings"]] == [("HP502", 4)]
    assert by_path["CMakeLists.txt"]["edits"] > 0 and by_path["src/plain.cpp"]["changed"] is False


def test_build_files_in_the_mirror(project, tmp_path):
    out = tmp_path / "out"
    convert(project, out)
    cmake = (out / "CMakeLists.txt").read_text()
    assert "project(treedemo LANGUAGES CXX HIP)" in cmake
    # kernels/ links CUDA::curand and has no find_package of its own: the root finds hiprand for it
    assert "find_package(hip REQUIRED)\nfind_package(hiprand REQUIRED)\n" in cmake
    assert 'set(CMAKE_HIP_FLAGS "${CMAKE_HIP_FLAGS}")' in cmake
    assert "set(CMAKE_HIP_ARCHITECTURES gfx90a;gfx942)" in cmake
    assert "add_executable(app src/main.cu src/crlf_util.cu)\n" \
           "set_source_files_properties(src/main.cu src/crlf_util.cu PROPERTIES LANGUAGE HIP)" in cmake
    kernels = (out / "kernels" / "CMakeLists.txt").read_text()
    assert "target_link_libraries(kernels PUBLIC hip::hiprand)" in kernels
    assert 'HIP_ARCHITECTURES "gfx90a;gfx942" CUDA_SEPARABLE_COMPILATION ON' in kernels
    make = (out / "Makefile").read_text()
    assert "NVCC      ?= hipcc" in make
    assert "ARCH      ?= --offload-arch=gfx90a --offload-arch=gfx942\n" in make
    assert "LDLIBS    := -lhiprand -lamdhip64" in make
    assert "-I. -Ikernels -Xcompiler -Wall" in make  # the no-op flag dropped, the nvcc-only one reported


def test_rename_rewrites_includes_build_files_and_links(project, tmp_path):
    out = tmp_path / "out"
    convert(project, out, "--rename", "--report", tmp_path / "r.json")
    got = tree_state(out)
    for old, new in [("src/main.cu", "src/main.hip"), ("kernels/scale.cuh", "kernels/scale.hip.h"),
                     ("common/check.cuh", "common/check.hip.h")]:
        assert old not in got and new in got
    assert "src/host.cpp" in got and "kernels/blob.cu" in got  # not CUDA sources by name / binary: kept
    assert b'#include "common/check.hip.h"\n#include "kernels/scale.hip.h"' in got["src/main.hip"]
    assert b'#include "../common/check.hip.h"\n#include "scale.hip.h"' in got["kernels/scale.hip"]
    assert b'#include "common/check.hip.h"' in got["kernels/random.hip"]  # found through the root
    assert got["include/scale.cuh"] == ("link", "../kernels/scale.hip.h")
    assert b"add_executable(app src/main.hip src/crlf_util.hip)\n" in got["CMakeLists.txt"]
    assert b"set_source_files_properties" not in got["CMakeLists.txt"]  # .hip is HIP to CMake already
    assert b"add_library(kernels STATIC scale.hip random.hip)" in got["kernels/CMakeLists.txt"]
    make = got["Makefile"].decode()
    assert "SRCS := src/main.hip src/crlf_util.hip kernels/scale.hip kernels/random.hip" in make
    assert "OBJS := $(SRCS:.hip=.o)" in make and "%.o: %.hip" in make
    report = report_of(tmp_path / "r.json")
    renamed = {f["path"]: f.get("renamed_to") for f in report["files"]}
    assert renamed["src/main.cu"] == "src/main.hip" and renamed["src/host.cpp"] is None
    assert report["summary"]["renamed"] == 6


def test_rename_never_replaces_an_existing_file(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cu").write_text("__global__ void k() {}\n")
    (src / "k.hip").write_text("// hand-written port\n")
    out = tmp_path / "out"
    convert(src, out, "--rename", "--report", tmp_path / "r.json")
    assert (out / "k.hip").read_text() == "// hand-written port\n"
    assert (out / "k.cu").exists()
    entry = next(f for f in report_of(tmp_path / "r.json")["files"] if f["path"] == "k.cu")
    assert [f["code"] for f in entry["findings"]] == ["HP504"]


def test_rename_suffix_scheme(project, tmp_path):
    out = tmp_path / "out"
    convert(project, out, "--rename-suffix", ".cuh=.hpp")
    assert (out / "kernels" / "scale.hpp").exists() and (out / "src" / "main.hip").exists()
    assert b'#include "kernels/scale.hpp"' in (out / "src" / "main.hip").read_bytes()


# -- selection ----------------------------------------------------------------------


def test_gitignore_nested_negation_exclude_and_include(tmp_path):
    root = tmp_path / "t"
    for rel in ["a.cu", "gen/x.cu", "gen/keep.cu", "sub/b.cu", "sub/c.log", "third/t.cu", "tools/tool.cu"]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("int x;\n")
    (root / ".gitignore").write_text("gen/*\n!gen/keep.cu\n*.log\n")
    (root / "sub" / ".gitignore").write_text("b.cu\n")
    kinds = {e.rel: e.kind for e in select(root, Filters(exclude=("third/",), include=("*.cu", "!tools/**")))
             .entries}
    assert kinds == {".gitignore": "copy", "a.cu": "source", "gen": "dir", "gen/keep.cu": "source",
                     "sub": "dir", "sub/.gitignore": "copy", "tools": "dir", "tools/tool.cu": "copy"}
    assert set(select(root, Filters(gitignore=False)).skipped) == set()


def test_source_suffix_option(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cuda").write_text("void f(void** p) { cudaMalloc(p, 4); }\n")
    convert(src, tmp_path / "a")
    assert b"cudaMalloc" in (tmp_path / "a" / "k.cuda").read_bytes()
    convert(src, tmp_path / "b", "--source-suffix", ".cuda")
    assert b"hipMalloc" in (tmp_path / "b" / "k.cuda").read_bytes()


# -- jobs and cache -------------------------------------------------------------------


def test_jobs_2_equals_jobs_1(project, tmp_path):
    convert(project, tmp_path / "one", "--jobs", "1", "--no-cache", "--report", tmp_path / "one.json")
    convert(project, tmp_path / "two", "--jobs", "2", "--no-cache", "--report", tmp_path / "two.json")
    assert tree_state(tmp_path / "one") == tree_state(tmp_path / "two")
    one, two = report_of(tmp_path / "one.json"), report_of(tmp_path / "two.json")
    one.pop("root"), two.pop("root")
    assert one == two


def test_a_bench_corpus_ports_the_same_alone_in_a_pool_and_from_the_cache(tmp_path, monkeypatch):
    """Chunks of files sent to workers, compact result and cache records, and writing each port
    as it comes must not change a byte of the output or of the report."""
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    import corpus  # bench/ is scripts, not a package

    src = corpus.generate(tmp_path / "src", 70, seed=5, large_lines=400).root
    # In place, every file is ported before anything is written: the plainest path, the reference.
    shutil.copytree(src, tmp_path / "in-place")
    result = cli("convert", tmp_path / "in-place", "--in-place", "-q", "--jobs", "1", "--no-cache",
                 "--backup-suffix", "", "--report", tmp_path / "in-place.json")
    assert result.exit_code == 0, result.output
    convert(src, tmp_path / "one", "--jobs", "1", "--no-cache", "--report", tmp_path / "one.json")
    convert(src, tmp_path / "two", "--jobs", "2", "--report", tmp_path / "two.json")
    convert(src, tmp_path / "warm", "--jobs", "2", "--report", tmp_path / "warm.json")
    expected = tree_state(tmp_path / "in-place")
    assert tree_state(tmp_path / "one") == tree_state(tmp_path / "two") == tree_state(tmp_path / "warm") == expected
    reports = [report_of(tmp_path / f"{name}.json") for name in ("in-place", "one", "two", "warm")]
    summary = reports[0]["summary"]
    assert summary["edits"] > 500 and summary["findings_by_code"]  # the comparison has teeth
    assert reports[-1]["summary"].pop("cached") == summary["files"] - summary["build_files"]
    for report in reports:
        report.pop("root")
        report["summary"].pop("cached", None)
    assert all(report == reports[0] for report in reports)


def test_second_run_is_served_from_the_cache(project, tmp_path):
    convert(project, tmp_path / "a", "--report", tmp_path / "a.json")
    convert(project, tmp_path / "b", "--report", tmp_path / "b.json")
    assert tree_state(tmp_path / "a") == tree_state(tmp_path / "b")
    first, second = report_of(tmp_path / "a.json"), report_of(tmp_path / "b.json")
    assert first["summary"].pop("cached") == 0
    assert second["summary"].pop("cached") == 8  # every source; build files are migrated again (cheap)
    assert first["files"] == second["files"] and first["summary"] == second["summary"]

    (project / "src" / "main.cu").write_bytes((project / "src" / "main.cu").read_bytes() + b"// edited\n")
    convert(project, tmp_path / "c", "--report", tmp_path / "c.json")
    assert report_of(tmp_path / "c.json")["summary"]["cached"] == 7
    assert (tmp_path / "c" / "src" / "main.cu").read_bytes().endswith(b"// edited\n")

    convert(project, tmp_path / "d", "--launch-syntax", "hip", "--report", tmp_path / "d.json")
    assert report_of(tmp_path / "d.json")["summary"]["cached"] == 0  # other options, other ports
    assert b"hipLaunchKernelGGL(scale_kernel" in (tmp_path / "d" / "kernels" / "scale.cu").read_bytes()


def test_a_header_change_invalidates_the_files_that_include_it(project, tmp_path):
    convert(project, tmp_path / "a")
    check = project / "common" / "check.cuh"
    check.write_text(check.read_text().replace("#define CUDA_CHECK", "#define CUDA_CHECKED"))
    convert(project, tmp_path / "b", "--report", tmp_path / "b.json")
    # check.cuh itself, and main.cu, scale.cu and random.cu, whose visible macros changed
    assert report_of(tmp_path / "b.json")["summary"]["cached"] == 4


def test_corrupt_cache_entries_are_rebuilt(project, tmp_path):
    convert(project, tmp_path / "a")
    entries = sorted((tmp_path / "cache" / "hipport" / "ports").rglob("*.pickle"))
    assert len(entries) == 8
    for entry in entries[:4]:
        entry.write_bytes(entry.read_bytes()[:20])  # truncated, as if killed mid-write without atomicity
    entries[4].write_bytes(b"garbage")
    convert(project, tmp_path / "b", "--report", tmp_path / "b.json")
    assert report_of(tmp_path / "b.json")["summary"]["cached"] == 3
    assert tree_state(tmp_path / "a") == tree_state(tmp_path / "b")
    convert(project, tmp_path / "c", "--report", tmp_path / "c.json")
    assert report_of(tmp_path / "c.json")["summary"]["cached"] == 8


def test_no_cache_writes_and_reads_nothing(project, tmp_path):
    convert(project, tmp_path / "a", "--no-cache", "--report", tmp_path / "a.json")
    assert not (tmp_path / "cache" / "hipport" / "ports").exists()


def _record_start(log: str, real, rules, options) -> None:
    with open(log, "a") as f:
        f.write(f"{os.getpid()}\n")
    real(rules, options)


def test_the_rule_set_goes_to_each_worker_once(project, tmp_path, monkeypatch):
    import functools
    import pickle

    from hipport.ruleset.loader import load_rules
    from hipport.tree import parallel

    log = tmp_path / "starts.log"
    monkeypatch.setattr(parallel, "_start_worker", functools.partial(_record_start, str(log), parallel._start_worker))
    rules = load_rules(use_cache=False)
    run = api.convert_tree(project, tmp_path / "out", rules, Options(), TreeSettings(jobs=2, use_cache=False))
    assert not run.errors and len(run.results) == 11
    starts = log.read_text().split()
    assert len(starts) == 2 and len(set(starts)) == 2 and str(os.getpid()) not in starts
    task = parallel.PortTask("a.cu", b"int x;", frozenset(), "/a.cu")
    assert len(pickle.dumps(task)) < 300 < len(pickle.dumps(rules)) // 1000  # tasks never carry rules


# -- refusals -------------------------------------------------------------------------


@pytest.mark.parametrize("where, message", [
    ("{src}", "must not be inside the source tree"),
    ("{src}/sub/out", "must not be inside the source tree"),
    ("{parent}", "contains the source tree"),
    ("{busy}", "exists and is not empty; pass --force"),
])
def test_output_directory_refusals(project, tmp_path, where, message):
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "x").write_text("x")
    out = where.format(src=project, parent=project.parent, busy=busy)
    before = tree_state(project)
    proc = subprocess.run([sys.executable, "-m", "hipport", "convert", str(project), "-o", out],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert tree_state(project) == before


def test_force_writes_into_a_non_empty_output(project, tmp_path):
    out = tmp_path / "out"
    convert(project, out)
    (out / "mine.txt").write_text("kept")
    convert(project, out, "--force")
    assert (out / "mine.txt").read_text() == "kept" and b"hipMalloc" in (out / "src" / "main.cu").read_bytes()


# -- in place ---------------------------------------------------------------------------


def git(repo: Path, *args: str) -> str:
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@e", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@e")
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env=env).stdout


@pytest.fixture
def repo(project):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "cuda")
    return project


def test_in_place_in_a_clean_git_tree_keeps_no_backups(repo, tmp_path):
    expected = tmp_path / "expected"
    convert(repo, expected)
    result = cli("convert", repo, "--in-place", "-q")
    assert result.exit_code == 0, result.output
    got, want = tree_state(repo), tree_state(expected)
    for rel, data in want.items():
        if not rel.startswith("docs/outside"):
            assert got[rel] == data, rel
    assert not [rel for rel in got if rel.endswith(".prehip")]
    assert (repo / "vendor" / "fastmath" / "fastmath.cu").read_bytes() == \
        (FIXTURE / "vendor" / "fastmath" / "fastmath.cu").read_bytes()
    changed = {line[3:] for line in git(repo, "status", "--porcelain").splitlines()}
    assert "src/main.cu" in changed and "src/plain.cpp" not in changed and "docs/notes.txt" not in changed


def test_in_place_refuses_uncommitted_changes_to_files_it_would_touch(repo):
    main_cu = repo / "src" / "main.cu"
    main_cu.write_bytes(main_cu.read_bytes() + b"// work in progress\n")
    before = tree_state(repo)
    proc = subprocess.run([sys.executable, "-m", "hipport", "convert", str(repo), "--in-place"],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert "refusing to rewrite 1 file(s) with uncommitted changes (src/main.cu)" in proc.stderr
    assert "--force" in proc.stderr and "Traceback" not in proc.stderr
    assert tree_state(repo) == before


def test_in_place_ignores_uncommitted_changes_it_would_not_touch(repo):
    (repo / "src" / "plain.cpp").write_text("int add(int a, int b) { return b + a; }\n")
    (repo / "docs" / "notes.txt").write_text("edited\n")
    result = cli("convert", repo, "--in-place", "-q")
    assert result.exit_code == 0, result.output
    assert b"hipMalloc" in (repo / "src" / "main.cu").read_bytes()
    assert not list(repo.rglob("*.prehip"))


def test_in_place_force_on_a_dirty_tree_keeps_originals(repo):
    main_cu = repo / "src" / "main.cu"
    edited = main_cu.read_bytes() + b"// work in progress\n"
    main_cu.write_bytes(edited)
    result = cli("convert", repo, "--in-place", "--force", "-q")
    assert result.exit_code == 0, result.output
    assert (repo / "src" / "main.cu.prehip").read_bytes() == edited
    assert b"hipMalloc" in main_cu.read_bytes()


def test_in_place_outside_git_keeps_originals_unless_told(project, tmp_path):
    original = (project / "src" / "main.cu").read_bytes()
    assert cli("convert", project, "--in-place", "-q").exit_code == 0
    assert (project / "src" / "main.cu.prehip").read_bytes() == original
    again = tmp_path / "again"
    make_project(again)
    assert cli("convert", again, "--in-place", "-q", "--backup-suffix", "").exit_code == 0
    assert not list(again.rglob("*.prehip"))


def test_in_place_rename(repo):
    result = cli("convert", repo, "--in-place", "--rename", "-q")
    assert result.exit_code == 0, result.output
    assert not (repo / "src" / "main.cu").exists()
    assert b'#include "kernels/scale.hip.h"' in (repo / "src" / "main.hip").read_bytes()
    assert os.readlink(repo / "include" / "scale.cuh") == "../kernels/scale.hip.h"
    assert b"src/main.hip" in (repo / "CMakeLists.txt").read_bytes()


def test_in_place_is_idempotent(project):
    assert cli("convert", project, "--in-place", "-q").exit_code == 0
    once = tree_state(project)
    assert cli("convert", project, "--in-place", "-q").exit_code == 0
    assert tree_state(project) == once


def _big_tree(root: Path, files: int) -> None:
    kernel = (FIXTURE / "kernels" / "scale.cu").read_bytes().replace(b"../common/check.cuh", b"check.cuh")
    main = (FIXTURE / "src" / "main.cu").read_bytes()
    root.mkdir(parents=True)
    shutil.copy(FIXTURE / "common" / "check.cuh", root / "check.cuh")
    shutil.copy(FIXTURE / "kernels" / "scale.cuh", root / "scale.cuh")
    for i in range(files):
        directory = root / f"d{i % 10}"
        directory.mkdir(exist_ok=True)
        # padding makes each write take a moment, so that kills land inside writes too
        (directory / f"k{i}.cu").write_bytes((kernel if i % 2 else main) + b"// " + b"x" * 20000 + b"\n")


def test_sigkill_during_in_place_leaves_every_file_old_or_new(tmp_path):
    old_tree, new_tree = tmp_path / "old", tmp_path / "new"
    _big_tree(old_tree, 240)
    convert(old_tree, new_tree, "--no-cache")
    old, new = tree_state(old_tree), tree_state(new_tree)
    env = dict(os.environ, HIPPORT_CACHE_DIR=str(tmp_path / "kcache"))
    outcomes = set()
    for attempt, delay in enumerate((0.0, 0.15, 0.3, 0.6)):
        work = tmp_path / f"work{attempt}"
        shutil.copytree(old_tree, work)
        proc = subprocess.Popen([sys.executable, "-m", "hipport", "convert", str(work), "--in-place", "-q",
                                 "--jobs", "1", "--backup-suffix", ""], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # wait for the first rewritten file, then kill in the middle of the writes
        deadline = time.monotonic() + 60
        probe = work / "d0" / "k0.cu"
        while time.monotonic() < deadline and proc.poll() is None and probe.read_bytes() == old["d0/k0.cu"]:
            time.sleep(0.002)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        got = tree_state(work)
        leftovers = [rel for rel in got if rel.endswith(".hipport-tmp")]
        states = []
        for rel, before in old.items():
            assert got[rel] in (before, new[rel]), f"{rel} is neither old nor new after SIGKILL"
            states.append(got[rel] == new[rel] and before != new[rel])
        outcomes.add((any(states), all(s for s, (rel, b) in zip(states, old.items()) if b != new[rel])))
        assert set(got) - set(old) <= set(leftovers)
        # a rerun finishes the job and ignores the dead run's temporary files
        proc = subprocess.run([sys.executable, "-m", "hipport", "convert", str(work), "--in-place", "-q",
                               "--backup-suffix", ""], env=env, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        final = {rel: data for rel, data in tree_state(work).items() if not rel.endswith(".hipport-tmp")}
        assert final == new
    assert (True, False) in outcomes, "no kill landed between the first and the last write"


# -- the command line -------------------------------------------------------------------


def test_summary_line(project, tmp_path):
    result = cli("convert", project, "-o", tmp_path / "out")
    assert result.exit_code == 0
    lines = result.output.strip().splitlines()
    assert lines[-1].startswith("hipport: 8 source file(s): 7 ported, 1 unchanged, 0 from cache; "
                                "3 build file(s), 3 migrated; 8 copied, 1 left out (vendor/); ")
    assert " edit(s); 0 error(s), 2 warning(s), 1 info; " in lines[-1]  # the info: a library the port needs
    # findings name the file as given, so an editor can open it
    assert f"{project.as_posix()}/Makefile:4:" in result.output


def test_progress_bar_counts_files_and_names_the_current_one(project, tmp_path, monkeypatch):
    from hipport.ruleset.loader import load_rules
    from hipport.cli import tree_flags as cli_options

    from hipport.console import Progress

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setattr(Progress, "SHOW_AFTER", 0.0)  # the fixture ports faster than a bar appears
    monkeypatch.setattr(Progress, "INTERVAL", 0.0)
    monkeypatch.setenv("COLUMNS", "160")
    monkeypatch.delenv("CI", raising=False)
    seen = []
    with cli_options.progress_bar(True) as update:
        settings = TreeSettings(progress=lambda *a: (seen.append(a), update(*a)), jobs=1)
        api.convert_tree(project, tmp_path / "out", load_rules(use_cache=False), Options(), settings)
    files = len([e for e in select(project).entries if e.kind != "dir"])
    assert [done for done, _, _ in seen] == sorted(done for done, _, _ in seen)
    assert seen[-1][:2] == (files, files) and {rel for _, _, rel in seen} >= {"src/main.cu", "CMakeLists.txt"}
    assert f"{files}/{files} files  100%" in terminal.text and "src/main.cu" in terminal.text
    assert terminal.text.endswith("\r\x1b[K")  # the line is erased for what follows


def test_progress_is_quiet_in_ci(monkeypatch):
    from hipport.cli.tree_flags import shows_progress

    monkeypatch.setenv("CI", "true")
    assert shows_progress(False) is False
    monkeypatch.delenv("CI")
    assert shows_progress(True) is False


def test_single_build_file(tmp_path):
    cmake = tmp_path / "CMakeLists.txt"
    cmake.write_text("project(p LANGUAGES CUDA)\nadd_executable(a a.cu)\n")
    result = CliRunner().invoke(main, ["convert", str(cmake), "-o", "-", "-q", "--rename"])
    assert result.exit_code == 0
    assert result.stdout == "project(p LANGUAGES HIP)\nadd_executable(a a.hip)\n"


# -- the result compiles -------------------------------------------------------------------


@pytest.mark.hipcc
def test_renamed_port_compiles_with_hipcc_through_hipport_verify(project, tmp_path):
    from hipport.verify import find_hipcc

    if find_hipcc() is None:
        pytest.skip("hipcc is not installed")
    out = tmp_path / "out"
    convert(project, out, "--rename")
    result = cli("verify", out, "-I", out, "--jobs", "2")
    lines = result.output.splitlines()
    assert result.exit_code == 0, result.output
    compiled = sorted(line.split()[1] for line in lines if line.startswith("OK"))
    assert compiled == sorted(str(out / rel) for rel in ["kernels/random.hip", "kernels/scale.hip", "src/crlf_util.hip",
                                                          "src/host.cpp", "src/main.hip", "src/plain.cpp"])
    assert lines[-1] == "hipport verify: 6 ok, 0 failed, 0 need a ROCm library that is not installed"


@pytest.mark.hipcc
def test_verify_takes_flags_from_the_cuda_build_compile_database(project, tmp_path):
    from hipport.verify import find_hipcc

    if find_hipcc() is None:
        pytest.skip("hipcc is not installed")
    out = tmp_path / "out"
    convert(project, out, "--rename")
    # The CUDA build's database: nvcc commands on the original .cu paths, with -I the port needs.
    (project / "inc2").mkdir()
    (project / "inc2" / "extra.h").write_text("#define EXTRA_VALUE 3\n")
    (out / "inc2").mkdir()
    (out / "inc2" / "extra.h").write_text("#define EXTRA_VALUE 3\n")
    main_hip = out / "src" / "main.hip"
    main_hip.write_bytes(b'#include "extra.h"\nstatic_assert(EXTRA_VALUE == 3 && WITH_DB, "");\n' + main_hip.read_bytes())
    database = [{"directory": str(project), "file": "src/main.cu",
                 "command": f"nvcc -x cu -I{out} -I{out}/inc2 -DWITH_DB=1 -Xcompiler -Wall -arch=sm_80 -c src/main.cu"}]
    (tmp_path / "compile_commands.json").write_text(json.dumps(database))
    without = cli("verify", main_hip, "-I", out)
    assert without.exit_code == 1 and "FAIL" in without.output
    with_db = cli("verify", main_hip, "-p", tmp_path / "compile_commands.json")
    assert with_db.exit_code == 0, with_db.output


def test_verify_without_hipcc_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    (tmp_path / "a.hip").write_text("int x;\n")
    proc = subprocess.run([sys.executable, "-m", "hipport", "verify", str(tmp_path)], capture_output=True, text=True,
                          env=dict(os.environ, PATH=str(tmp_path)))
    assert proc.returncode == 2 and "hipcc not found" in proc.stderr and "apt-get install" in proc.stderr


@pytest.mark.parametrize("args, message", [
    (["--rename-suffix", "cu=hip"], "wants OLD=NEW like .cu=.hip"),
    (["--source-suffix", "cu"], "is not a file suffix like .cu"),
    (["--jobs", "-1"], "-1 is not in the range"),
])
def test_bad_tree_options_are_usage_errors(project, tmp_path, args, message):
    proc = subprocess.run([sys.executable, "-m", "hipport", "convert", str(project), "-o", str(tmp_path / "o"), *args],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "o").exists()
