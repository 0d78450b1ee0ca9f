"""The tree index: a rerun over an unchanged tree reads and writes nothing, and anything that
could make the last run's answer wrong sends the file through a real port again."""
from __future__ import annotations

import os
import pickle
import time
from pathlib import Path

import pytest

from hipport.project import ProjectHeaders
from hipport.tree import index as tree_index
from hipport.tree.run import TreeConversion
from test_tree import cli, convert, private_cache, project, report_of, tree_state  # noqa: F401 (fixtures)

SOURCES = 8  # the fixture's ported sources (test_tree: every source of the fixture)




@pytest.fixture
def no_racy_margin(monkeypatch):
    """Files a test made a moment ago count as settled: this file system's clock has nanoseconds,
    so a later change still changes the signature. The racy rule has its own test."""
    monkeypatch.setattr(tree_index, "RACY_MARGIN_NS", 0)
    monkeypatch.setattr(tree_index, "COARSE_MARGIN_NS", 0)


@pytest.fixture
def reads(monkeypatch) -> list[str]:
    """The sources, build files and project headers each run reads, by relative path or name."""
    seen: list[str] = []
    real_read, real_header = TreeConversion._read, ProjectHeaders._read

    def read(self, entry):
        seen.append(entry.rel)
        return real_read(self, entry)

    def header(self, path):
        seen.append(f"header:{Path(path).name}")
        return real_header(self, path)

    monkeypatch.setattr(TreeConversion, "_read", read)
    monkeypatch.setattr(ProjectHeaders, "_read", header)
    return seen


def files_as_they_are(root: Path) -> dict[str, tuple[int, int, int]]:
    """Each file's inode and times: any write, even of the same bytes, changes them."""
    found = {}
    for dirpath, _, filenames in os.walk(root):
        for name in filenames:
            path = os.path.join(dirpath, name)
            info = os.lstat(path)
            found[os.path.relpath(path, root)] = (info.st_ino, info.st_mtime_ns, info.st_ctime_ns)
    return found


def run(project: Path, out: Path, report: Path, *args) -> dict:
    convert(project, out, "--force", "--jobs", "1", "--report", report, *args)
    return report_of(report)


def cold(project: Path, tmp_path: Path, *args) -> tuple[dict, dict]:
    """What a first run with no cache at all makes of the tree as it is now."""
    out = tmp_path / f"cold-{len(list(tmp_path.glob('cold-*')))}"
    report = run(project, out, out.with_suffix(".json"), "--no-cache", *args)
    return tree_state(out), report


def same(report: dict, reference: dict) -> bool:
    report, reference = dict(report), dict(reference)
    report["summary"], reference["summary"] = dict(report["summary"]), dict(reference["summary"])
    report["summary"].pop("cached"), reference["summary"].pop("cached")
    return report == reference


def index_files(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "cache").rglob("trees/*.index"))


# -- a warm rerun ------------------------------------------------------------------------


def test_an_unchanged_tree_is_read_and_written_not_at_all(project, tmp_path, no_racy_margin, reads):
    out = tmp_path / "out"
    first = run(project, out, tmp_path / "a.json")
    assert first["summary"]["cached"] == 0
    before = files_as_they_are(out)
    reads.clear()
    second = run(project, out, tmp_path / "b.json")
    assert second["summary"]["cached"] == SOURCES
    assert same(second, first) and second["files"] == first["files"]
    assert first["summary"]["findings_by_code"] and first["summary"]["edits"] > 10  # the comparison has teeth
    # build files are migrated again (cheap); no source, no header is read, and nothing is written
    assert sorted(reads) == ["CMakeLists.txt", "Makefile", "kernels/CMakeLists.txt"]
    assert files_as_they_are(out) == before
    assert len(index_files(tmp_path)) == 1


def test_a_rerun_reads_only_what_changed(project, tmp_path, no_racy_margin, reads):
    out = tmp_path / "out"
    run(project, out, tmp_path / "a.json")
    run(project, out, tmp_path / "b.json")
    main = project / "src" / "main.cu"
    main.write_bytes(main.read_bytes() + b"// edited\n")
    reads.clear()
    report = run(project, out, tmp_path / "c.json")
    assert report["summary"]["cached"] == SOURCES - 1
    assert sorted(r for r in reads if "/" in r or r.startswith("header:")) == [
        "header:check.cuh", "header:scale.cuh", "kernels/CMakeLists.txt", "src/main.cu"]
    state, reference = cold(project, tmp_path)
    assert tree_state(out) == state and same(report, reference)


def test_a_header_edit_that_keeps_its_macros_reads_only_the_header(project, tmp_path, no_racy_margin, reads):
    """The files that include it keep their macros, so their ports: they are not read again."""
    out = tmp_path / "out"
    run(project, out, tmp_path / "a.json")
    before = run(project, out, tmp_path / "b.json")
    check = project / "common" / "check.cuh"
    check.write_text(check.read_text() + "// a comment, no new macro\n")
    reads.clear()
    report = run(project, out, tmp_path / "c.json")
    assert report["summary"]["cached"] == SOURCES - 1  # the header itself is ported again
    # the header, as a source and for its macros (the other headers those files see come along)
    assert sorted(r for r in reads if r.endswith((".cu", ".cuh", ".cpp")) and ":" not in r) == ["common/check.cuh"]
    assert "header:check.cuh" in reads
    state, reference = cold(project, tmp_path)
    assert tree_state(out) == state and same(report, reference) and same(report, before)
    reads.clear()
    run(project, out, tmp_path / "d.json")  # and the index now has the header as it is
    assert not [r for r in reads if r.endswith((".cu", ".cuh", ".cpp")) or r.startswith("header:")]


def test_the_edits_of_a_port_from_the_index_are_there_if_asked_for(project, tmp_path, no_racy_margin):
    from hipport import api
    from hipport.options import Options
    from hipport.ruleset.loader import load_rules
    from hipport.tree.settings import TreeSettings

    rules = load_rules()
    settings = TreeSettings(jobs=1, force=True)
    first = api.convert_tree(project, tmp_path / "out", rules, Options(), settings)
    second = api.convert_tree(project, tmp_path / "out", rules, Options(), settings)
    assert second.cached == SOURCES
    for old, new in zip(first.results, second.results):
        assert new.path == old.path and new.changed == old.changed and new.findings == old.findings
        assert len(new.edits) == len(old.edits) and list(new.edits) == list(old.edits)


# -- what must send a file through a real port ------------------------------------------------


def _edit_source(project: Path, out: Path) -> None:
    main = project / "src" / "main.cu"
    main.write_bytes(main.read_bytes().replace(b"cudaFree(d)", b"cudaFree(d);cudaDeviceReset()"))


def _edit_source_keeping_size_and_times(project: Path, out: Path) -> None:
    """The same number of bytes and the old mtime, as a careful tool (or a coarse clock) leaves it."""
    main = project / "src" / "main.cu"
    info = main.stat()
    data = main.read_bytes()
    assert b"cudaMemcpyAsync" in data
    main.write_bytes(data.replace(b"cudaMemcpyAsync", b"cudaMemsetAsync"))
    os.utime(main, ns=(info.st_atime_ns, info.st_mtime_ns))


def _delete_output(project: Path, out: Path) -> None:
    (out / "src" / "main.cu").unlink()


def _edit_output(project: Path, out: Path) -> None:
    target = out / "kernels" / "scale.cu"
    target.write_bytes(target.read_bytes() + b"// my own fix\n")


def _edit_output_keeping_size_and_times(project: Path, out: Path) -> None:
    target = out / "src" / "main.cu"
    info = target.stat()
    data = target.read_bytes()
    assert b"hipMalloc" in data
    target.write_bytes(data.replace(b"hipMalloc", b"HIPMALLOC"))
    os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns))


def _replace_output_by_a_link(project: Path, out: Path) -> None:
    target = out / "src" / "main.cu"
    (out / "elsewhere.cu").write_bytes(b"// not the port\n")
    target.unlink()
    target.symlink_to(out / "elsewhere.cu")


def _edit_header(project: Path, out: Path) -> None:
    check = project / "common" / "check.cuh"
    check.write_text(check.read_text().replace("#define CUDA_CHECK", "#define CUDA_CHECKED"))


def _shadow_header(project: Path, out: Path) -> None:
    """src/common/check.cuh now exists: main.cu's #include "common/check.cuh" finds it first."""
    (project / "src" / "common").mkdir()
    (project / "src" / "common" / "check.cuh").write_text("#pragma once\n// no macros here\n")


def _remove_header(project: Path, out: Path) -> None:
    (project / "common" / "check.cuh").unlink()


CHANGES = {
    "source edited": _edit_source,
    "source edited, size and mtime kept": _edit_source_keeping_size_and_times,
    "output deleted": _delete_output,
    "output edited": _edit_output,
    "output edited, size and mtime kept": _edit_output_keeping_size_and_times,
    "output replaced by a link": _replace_output_by_a_link,
    "header edited": _edit_header,
    "header shadowed by a new one": _shadow_header,
    "header removed": _remove_header,
}


@pytest.mark.parametrize("change", CHANGES, ids=list(CHANGES))
def test_a_change_is_ported_as_a_cold_run_would(project, tmp_path, no_racy_margin, change):
    out = tmp_path / "out"
    run(project, out, tmp_path / "a.json")
    original = run(project, out, tmp_path / "b.json")
    assert original["summary"]["cached"] == SOURCES
    CHANGES[change](project, out)
    report = run(project, out, tmp_path / "c.json")
    state, reference = cold(project, tmp_path)
    left = tree_state(out)
    if change == "header removed":
        del left["common/check.cuh"]  # a mirror keeps what its source no longer has
    assert left == state | ({"elsewhere.cu": b"// not the port\n"} if "link" in change else {})
    assert same(report, reference)
    if "output" not in change:
        assert not same(report, original)  # the change shows in the report: the comparison has teeth


@pytest.mark.parametrize("args", [("--hip-version", "4.5"), ("--launch-syntax", "hip"), ("--rules", "RULES")],
                         ids=["hip-version", "launch-syntax", "user rules"])
def test_other_options_or_rules_are_another_index(project, tmp_path, no_racy_margin, args):
    rules = tmp_path / "mine.toml"
    rules.write_text('schema = 1\nrename = [ { cuda = "cudaFree", hip = "hipFree" } ]\n')
    args = tuple(str(rules) if a == "RULES" else a for a in args)
    out = tmp_path / "out"
    run(project, out, tmp_path / "a.json", *args)
    if "--rules" in args:
        rules.write_text('schema = 1\nrename = [ { cuda = "cudaFree", hip = "myFree" } ]\n')
    else:
        between = run(project, out, tmp_path / "b.json")  # the same OUT, default options
        state, reference = cold(project, tmp_path)
        assert tree_state(out) == state and same(between, reference)
    report = run(project, out, tmp_path / "c.json", *args)
    state, reference = cold(project, tmp_path, *args)
    assert tree_state(out) == state and same(report, reference)
    assert not same(report, cold(project, tmp_path)[1])  # these options show in the report
    if "--rules" in args:
        assert report["summary"]["cached"] == 0 and b"myFree(d)" in state["src/main.cu"]


# -- racy files -------------------------------------------------------------------------------


def test_a_source_changed_within_the_clock_tick_the_run_saw_is_not_trusted(project, tmp_path, monkeypatch):
    """On a file system that keeps whole seconds and no separate change time, an edit of the same
    size within the second the run read the file in leaves its signature as it was: only the racy
    rule (record nothing that changed too shortly before the run began) keeps the stale port out."""
    _coarse_clock(project, monkeypatch)
    out = tmp_path / "out"
    run(project, out, tmp_path / "a.json")
    time.sleep(0.2)  # the outputs settle
    assert run(project, out, tmp_path / "b.json")["summary"]["cached"] == SOURCES
    main = project / "src" / "main.cu"
    os.utime(main)  # just written, as far as the run can tell
    run(project, out, tmp_path / "c.json")
    _edit_source_keeping_size_and_times(project, out)  # ...and again within the same second
    report = run(project, out, tmp_path / "d.json")
    state, reference = cold(project, tmp_path)
    assert tree_state(out) == state and same(report, reference)


def _coarse_clock(project: Path, monkeypatch) -> None:
    """Make the project's files look as a file system keeping whole seconds and no separate change
    time shows them, and ten seconds old (the outputs keep their real stamps)."""
    sources = set()
    old = time.time_ns() - 10 * 10**9
    for directory, _, names in os.walk(project):
        for name in names:
            path = os.path.join(directory, name)
            if not os.path.islink(path):
                os.utime(path, ns=(old, old))
                sources.add(os.stat(path).st_ino)
    real = tree_index.signature

    def coarse(info):
        if info is None or info.st_ino not in sources:
            return real(info)
        second = info.st_mtime_ns - info.st_mtime_ns % 1_000_000_000
        return (info.st_mode, info.st_size, second, second, info.st_ino, info.st_dev)

    monkeypatch.setattr(tree_index, "signature", coarse)


def test_a_header_changed_within_the_clock_tick_the_run_saw_is_read_again(project, tmp_path, monkeypatch):
    """As above, for a header whose edit kept its macros: the files that include it are served
    without reading them, but the header's racy signature must not be what the next run trusts."""
    _coarse_clock(project, monkeypatch)
    out = tmp_path / "out"
    run(project, out, tmp_path / "a.json")
    time.sleep(0.2)  # the outputs settle
    assert run(project, out, tmp_path / "b.json")["summary"]["cached"] == SOURCES
    check = project / "common" / "check.cuh"
    text = check.read_text().replace("// check.cuh", "// CHECK.cuh")
    check.write_text(text)  # the same macros, just now
    run(project, out, tmp_path / "c.json")
    info = check.stat()
    check.write_text(text.replace("#define CUDA_CHECK", "#define CUDA_CHECX"))  # same size, within the second
    os.utime(check, ns=(info.st_atime_ns, info.st_mtime_ns))
    report = run(project, out, tmp_path / "d.json")
    state, reference = cold(project, tmp_path)
    assert tree_state(out) == state and same(report, reference)
    assert reference["summary"]["findings_by_code"].get("HP102")  # CUDA_CHECK is unknown now: teeth


def test_an_output_written_just_before_the_index_is_not_trusted(tmp_path):
    from types import SimpleNamespace

    from hipport.engine.port import FileResult
    from hipport.tree.cache import PortCache

    now = time.time_ns()

    def stat(ctime_ns: int, ino: int):
        return SimpleNamespace(st_mode=0o100644, st_size=10, st_mtime_ns=ctime_ns - 5, st_ctime_ns=ctime_ns,
                               st_ino=ino, st_dev=1)

    def index(path: Path) -> tree_index.TreeIndex:
        return tree_index.TreeIndex(path, b"salt", PortCache(None, "", None), False, ProjectHeaders(), tmp_path, now)

    def saved(output_ctime: int) -> dict:
        path = tmp_path / f"index-{output_ctime}"
        first = index(path)
        first.record("a.cu", stat(now - 10 * 10**9, 1), (frozenset(), frozenset(), ()), "key",
                     FileResult("a.cu", b"x", b"y"), stat(output_ctime, 2))
        first.save()
        return index(path)._old

    assert "a.cu" in saved(now - 10 * 10**9)
    assert "a.cu" not in saved(time.time_ns())  # written this instant: a change now would not show


# -- the index file itself ------------------------------------------------------------------

class _Boom:
    def __reduce__(self):
        return (os.system, ("echo planted > planted.txt",))


def _truncate(index: Path) -> None:
    index.write_bytes(index.read_bytes()[:40])


def _garbage(index: Path) -> None:
    index.write_bytes(b"garbage")


def _planted_code(index: Path) -> None:
    index.write_bytes(pickle.dumps(_Boom()))


def _wrong_shapes(index: Path) -> None:
    """A well-formed index whose entries are nonsense, claiming every file."""
    layout, salt, deps, entries = pickle.loads(index.read_bytes())
    shapes = [("x", None, [], 3, (), 4, 5), 5, None, "text", (1,), ([],), {"a": 1}, (None,) * 7]
    index.write_bytes(pickle.dumps((layout, salt, {1: 2}, {rel: shapes[i % len(shapes)]
                                                           for i, rel in enumerate(entries)})))


def _lies(index: Path) -> None:
    """Entries that match the files' stats but claim other findings: only its owner can write it."""
    layout, salt, deps, entries = pickle.loads(index.read_bytes())
    forged = {rel: (*e[:4], (e[4][0], [], e[4][2], e[4][3]), *e[5:]) if len(e) > 1 else e
              for rel, e in entries.items()}
    index.write_bytes(pickle.dumps((layout, salt, deps, forged)))
    index.chmod(0o666)


INDEX_DAMAGE = {"truncated": _truncate, "garbage": _garbage, "planted code": _planted_code,
                "wrong shapes": _wrong_shapes, "writable by others": _lies}


@pytest.mark.parametrize("damage", INDEX_DAMAGE, ids=list(INDEX_DAMAGE))
def test_a_damaged_or_planted_index_is_no_index(project, tmp_path, no_racy_margin, monkeypatch, damage):
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    run(project, out, tmp_path / "a.json")
    first = run(project, out, tmp_path / "b.json")
    assert first["summary"]["findings_by_code"]
    (index,) = index_files(tmp_path)
    INDEX_DAMAGE[damage](index)
    if damage != "writable by others":
        index.chmod(0o600)
    report = run(project, out, tmp_path / "c.json")
    assert not (tmp_path / "planted.txt").exists()
    state, reference = cold(project, tmp_path)
    assert tree_state(out) == state and same(report, reference)
    assert oct(index.stat().st_mode & 0o777) == "0o600"  # rewritten, private
    assert run(project, out, tmp_path / "d.json")["summary"]["cached"] == SOURCES


def test_no_cache_keeps_no_index(project, tmp_path):
    convert(project, tmp_path / "out", "--no-cache")
    convert(project, tmp_path / "out", "--no-cache", "--force")
    assert index_files(tmp_path) == []


def test_rename_keeps_no_index(project, tmp_path, no_racy_margin):
    convert(project, tmp_path / "out", "--rename")
    assert index_files(tmp_path) == []


# -- in place ---------------------------------------------------------------------------------


def test_in_place_reruns_read_only_what_changed(project, tmp_path, no_racy_margin, reads):
    def in_place(name: str) -> dict:
        result = cli("convert", project, "--in-place", "-q", "--jobs", "1", "--backup-suffix", "",
                     "--report", tmp_path / name)
        assert result.exit_code == 0, result.output
        return report_of(tmp_path / name)

    in_place("a.json")
    ported = tree_state(project)
    second = in_place("b.json")  # ports the ported files: they are left as they are now
    assert tree_state(project) == ported
    reads.clear()
    third = in_place("c.json")
    assert third["summary"]["cached"] == SOURCES and same(third, second)
    assert not [r for r in reads if r.endswith((".cu", ".cuh", ".cpp")) or r.startswith("header:")]
    assert tree_state(project) == ported

    main = project / "src" / "main.cu"
    main.write_bytes(main.read_bytes().replace(b"return 0;", b"cudaDeviceReset(); return 0;"))
    fourth = in_place("d.json")
    assert b"hipDeviceReset(); return 0;" in main.read_bytes()
    assert fourth["summary"]["cached"] == SOURCES - 1


def test_in_place_after_a_refusal_ports_what_it_refused(project, tmp_path, no_racy_margin):
    """A refused run wrote nothing: the files it ported are still there to port, not in the index."""
    import shutil

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    from test_tree import git

    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "cuda")
    main = project / "src" / "main.cu"
    main.write_bytes(main.read_bytes() + b"// work in progress\n")
    refused = cli("convert", project, "--in-place", "-q", "--jobs", "1")
    assert refused.exit_code == 2 and "uncommitted changes" in refused.output
    result = cli("convert", project, "--in-place", "-q", "--jobs", "1", "--force")
    assert result.exit_code == 0, result.output
    assert b"hipMalloc" in main.read_bytes() and b"cudaMalloc" in (project / "src" / "main.cu.prehip").read_bytes()
