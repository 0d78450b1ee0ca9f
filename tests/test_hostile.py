"""Interruption and hostile trees: what convert, check and report promise when things go wrong.

Guarantees 4 and 5 of issue 8. Interruption: SIGINT or SIGKILL at any moment
leaves every file old or new (never truncated), no temporary files once a
run has ended on its own terms, a one-line message, and a rerun that
finishes the job; a killed or corrupt cache is a miss, never a wrong answer.
Hostile trees: symbolic-link loops and links out of the tree, unreadable
files and directories, a read-only or full output, FIFOs and devices, odd
file names, and two runs at once each get a clear one-line message and a
non-zero exit where something was not done.

How names that are not UTF-8 appear (decided here, checked below):
- text output (path:line:col findings, error lines, text/markdown/csv/html
  reports) carries the name's bytes exactly as on disk, as compilers do, so
  the line names the file; a newline in a name is printed as it is too;
- JSON (convert --report, report/check --format json) writes each byte that
  is not UTF-8 as a lone surrogate escape, \\udc80 to \\udcff (Python's
  surrogateescape): the JSON stays ASCII, and os.fsencode(path) gives back
  the name's bytes;
- SARIF URIs percent-encode the bytes (bad%FF.cu), as RFC 3986 says.

As root, chmod 000 does not stop reads; tests that need an unreadable file
run hipport under setpriv without CAP_DAC_OVERRIDE, or are skipped with
the reason. Tests that need a full or read-only file system mount a small
tmpfs when mounting is allowed (root in a sandbox), and are skipped if not;
an injected ENOSPC covers the same ground without privileges.
"""
from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from hipport.cli import main
from test_tree import _big_tree, tree_state

PORTABLE = b'#include <cuda_runtime.h>\nvoid f(void** p) { cudaMalloc(p, 4); cudaNotARealApi(p); }\n'
PORTED = b'#include <hip/hip_runtime.h>\nvoid f(void** p) { hipMalloc(p, 4); cudaNotARealApi(p); }\n'
WAIT = 120  # seconds a run may take before the test calls it hung


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HIPPORT_CACHE_DIR", str(tmp_path / "cache"))


def hipport(*args, prefix=(), timeout=WAIT, **kwargs) -> subprocess.CompletedProcess:
    """hipport in its own process, output as bytes (names may not be UTF-8); a hang fails the test."""
    try:
        return subprocess.run([*prefix, sys.executable, "-m", "hipport", *map(str, args)], capture_output=True,
                              timeout=timeout, **kwargs)
    except subprocess.TimeoutExpired:
        pytest.fail(f"hipport {' '.join(map(str, args))} hung for {timeout}s")


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def one_clean_line(stderr: bytes) -> str:
    text = stderr.decode("utf-8", "surrogateescape")
    assert "Traceback" not in text, text
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    return lines[0]


def temporaries(root: Path) -> list[str]:
    return [rel for rel in tree_state(root) if rel.endswith(".hipport-tmp")]


def children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def wait_until(condition, proc: subprocess.Popen, seconds: float = 60) -> None:
    """Until condition() holds, the process ends, or the time is up."""
    deadline = time.monotonic() + seconds
    while not condition():
        if proc.poll() is not None or time.monotonic() > deadline:
            return
        time.sleep(0.002)


def finish(proc: subprocess.Popen) -> tuple[int, bytes]:
    try:
        _, err = proc.communicate(timeout=WAIT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the run and its workers: each is started in its own session
        proc.communicate()
        pytest.fail("hipport hung")
    return proc.returncode, err


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> tuple[Path, dict, Path, dict]:
    """A 300-file tree and its port: (tree, its state, the ported mirror, its state)."""
    base = tmp_path_factory.mktemp("big")
    _big_tree(base / "old", 300)
    env = dict(os.environ, HIPPORT_CACHE_DIR=str(base / "cache"))
    proc = hipport("convert", base / "old", "-o", base / "new", "-q", "--no-cache", env=env)
    assert proc.returncode == 0, proc.stderr
    return base / "old", tree_state(base / "old"), base / "new", tree_state(base / "new")


# -- privileges, mounts -----------------------------------------------------------------------


def unprivileged(tmp_path: Path) -> list[str]:
    """A command prefix under which chmod 000 stops reads and chmod 555 stops writes."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root, where chmod does not stop reads, and setpriv is not installed")
    prefix = [setpriv, "--inh-caps=-dac_override,-dac_read_search",
              "--bounding-set=-dac_override,-dac_read_search"]
    probe = tmp_path / "probe-unreadable"
    probe.write_text("x")
    probe.chmod(0)
    try:
        readable = subprocess.run([*prefix, "cat", str(probe)], capture_output=True).returncode == 0
    finally:
        probe.unlink()
    if readable:
        pytest.skip("root without CAP_DAC_OVERRIDE still reads a chmod 000 file here")
    return prefix


class Tmpfs:
    def __init__(self, where: Path) -> None:
        self.where = where

    def mount(self, options: str) -> None:
        self.where.mkdir(exist_ok=True)
        proc = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "hipport-test", str(self.where)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {proc.stderr.strip()}")

    def remount(self, options: str) -> None:
        subprocess.run(["mount", "-o", f"remount,{options}", str(self.where)], check=True)


@pytest.fixture
def tmpfs(tmp_path):
    if shutil.which("mount") is None or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root and mount(8)")
    fs = Tmpfs(tmp_path / "mnt")
    yield fs
    subprocess.run(["umount", "-l", str(fs.where)], capture_output=True)


# -- interruption -------------------------------------------------------------------------------


def test_sigint_while_porting_or_writing_in_place(big, tmp_path):
    """Ctrl-C (SIGINT to the whole process group, workers too) stops with one line and status 130."""
    old_tree, old, _, new = big
    env = dict(os.environ, HIPPORT_CACHE_DIR=str(tmp_path / "cache"))
    landed = set()
    for attempt, moment in enumerate(["porting", "writing", "writing-later"]):
        work = tmp_path / f"work{attempt}"
        shutil.copytree(old_tree, work)
        proc = subprocess.Popen([sys.executable, "-m", "hipport", "convert", str(work), "--in-place", "-q",
                                 "--jobs", "2", "--no-cache", "--backup-suffix", ""], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        if moment == "porting":  # the process pool is up: its workers exist
            wait_until(lambda: children(proc.pid), proc)
        else:  # the first file has been rewritten
            wait_until(lambda: (work / "d0" / "k0.cu").read_bytes() != old["d0/k0.cu"], proc)
            time.sleep(0.0 if moment == "writing" else 0.2)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)
        status, err = finish(proc)
        got = tree_state(work)
        ported = [rel for rel in old if old[rel] != new[rel] and got[rel] == new[rel]]
        for rel, before in old.items():
            assert got[rel] in (before, new[rel]), f"{rel} is neither old nor new after SIGINT"
        assert set(got) == set(old), "an interrupted run leaves no temporary file behind"
        if status == -signal.SIGINT:
            # The signal arrived after the work was done, while the interpreter
            # was exiting: Python's default handler is back and it dies of SIGINT.
            # Legitimate only if every file is already in its final state.
            assert got == new, "died of SIGINT before finishing"
        elif status != 0:  # it had not finished before the signal
            assert status == 130
            line = one_clean_line(err)
            assert line.startswith("hipport: interrupted;") and "run the command again" in line
            landed.add("porting" if not ported else "writing" if len(ported) < 150 else "late")
        again = hipport("convert", work, "--in-place", "-q", "--backup-suffix", "", env=env)
        assert again.returncode == 0, again.stderr
        assert tree_state(work) == new
    assert {"porting", "writing"} <= landed, f"signals landed only while {landed}"


def test_sigkill_while_mirroring_leaves_no_truncated_file(big, tmp_path):
    old_tree, _, _, new = big
    env = dict(os.environ, HIPPORT_CACHE_DIR=str(tmp_path / "cache"))
    partial = False
    for attempt, delay in enumerate((0.0, 0.05)):
        out = tmp_path / f"out{attempt}"
        proc = subprocess.Popen([sys.executable, "-m", "hipport", "convert", str(old_tree), "-o", str(out), "-q",
                                 "--jobs", "1", "--no-cache"], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until(lambda: (out / "d0").is_dir() and any((out / "d0").iterdir()), proc)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        got = tree_state(out)
        for rel, data in got.items():
            if rel.endswith(".hipport-tmp"):
                assert rel.rsplit("/", 1)[-1].startswith("."), "a temporary file is hidden, never a real name"
                continue
            assert data == new[rel], f"{rel} was written partly"
        partial |= len([rel for rel in got if isinstance(got[rel], bytes)]) < len(new) - 10
        again = hipport("convert", old_tree, "-o", out, "-q", "--force", env=env)
        assert again.returncode == 0, again.stderr
        assert tree_state(out) == new, "the rerun completes the mirror and clears the dead run's temporary files"
    assert partial, "no kill landed before the mirror was complete"


def _entries(ports: Path) -> list[Path]:
    return sorted(ports.rglob("*.pickle"))


def test_a_killed_cache_keeps_whole_entries_and_odd_entries_are_misses(big, tmp_path):
    old_tree, _, _, new = big
    cache = tmp_path / "kcache"
    ports = cache / "hipport" / "ports"
    env = dict(os.environ, HIPPORT_CACHE_DIR=str(cache))
    proc = subprocess.Popen([sys.executable, "-m", "hipport", "convert", str(old_tree), "-o", str(tmp_path / "a"),
                             "-q", "--jobs", "1"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_until(lambda: ports.is_dir() and len(list(ports.iterdir())) > 3, proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    whole = len(_entries(ports))
    sources = 302  # 300 kernels and 2 headers

    def rerun(name: str) -> int:
        proc = hipport("convert", old_tree, "-o", tmp_path / name, "-q", "--report", tmp_path / f"{name}.json",
                       env=env)
        assert proc.returncode == 0, proc.stderr
        assert tree_state(tmp_path / name) == new, "the cache never serves a wrong port"
        return json.loads((tmp_path / f"{name}.json").read_text())["summary"]["cached"]

    # Every entry the kill left is whole: each is a hit (a torn one would be a miss, and fewer).
    assert 0 < whole < sources, "the kill did not land while entries were being written"
    assert rerun("b") == whole
    assert len(_entries(ports)) == sources

    entries = _entries(ports)
    entries[0].write_bytes(entries[1].read_bytes())  # a whole, loadable entry under another file's key
    entries[2].write_bytes(b"")
    entries[3].write_bytes(os.urandom(4096))
    entries[4].unlink()
    entries[4].mkdir()  # a directory where an entry should be: neither read nor replaceable
    assert rerun("c") == sources - 4
    assert rerun("d") == sources - 1  # rebuilt, but for the one in a directory's way


# -- hostile trees: links --------------------------------------------------------------------------


@pytest.fixture
def linked(tmp_path) -> tuple[Path, Path]:
    """A tree of links that loop or leave it, beside a directory outside it."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "ext.cu").write_bytes(PORTABLE)
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    (tree / "a.cu").write_bytes(PORTABLE)
    os.symlink("..", tree / "sub" / "up")  # a directory link to its parent: a loop
    os.symlink("../..", tree / "sub" / "top")
    os.symlink("self", tree / "self")  # a link to itself: ELOOP on every use
    os.symlink(outside, tree / "outdir")
    os.symlink(outside / "ext.cu", tree / "ext.cu")
    os.symlink("../../outside/ext.cu", tree / "sub" / "rel_ext.cu")
    os.symlink("missing.cu", tree / "dangling.cu")
    return tree, outside


def test_links_that_loop_or_leave_the_tree_stay_links(linked, tmp_path):
    tree, outside = linked
    before_outside = tree_state(outside)
    before = tree_state(tree)
    out = tmp_path / "out"
    proc = hipport("convert", tree, "-o", out, "-q", "--report", tmp_path / "r.json")
    assert proc.returncode == 0, proc.stderr
    got = tree_state(out)
    assert got["a.cu"] == PORTED
    assert got["sub/up"] == ("link", "..")
    assert got["self"] == ("link", "self")
    assert got["dangling.cu"] == ("link", "missing.cu")
    # links out of the tree keep pointing at the same file, now from the mirror's place
    assert got["outdir"] == ("link", str(outside)) and got["ext.cu"] == ("link", str(outside / "ext.cu"))
    assert got["sub/rel_ext.cu"] == ("link", str(outside / "ext.cu"))
    assert Path(os.readlink(out / "sub" / "top")).resolve() == tmp_path.resolve()
    assert not any(rel.startswith(("outdir/", "sub/up/", "sub/top/")) for rel in got), "a link was followed"
    assert [f["path"] for f in json.loads((tmp_path / "r.json").read_text())["files"]] == ["a.cu"]

    proc = hipport("convert", tree, "--in-place", "-q", "--backup-suffix", "")
    assert proc.returncode == 0, proc.stderr
    after = tree_state(tree)
    assert after.pop("a.cu") == PORTED
    before.pop("a.cu")
    assert after == before, "in place, links are neither followed nor rewritten"
    assert tree_state(outside) == before_outside, "nothing is written through a link"


def test_check_and_report_on_a_tree_with_loops(linked, tmp_path):
    tree, _ = linked
    for args in (["check", tree], ["check", tree / "sub" / "up"], ["report", tree],
                 ["report", tree, "--format", "json"]):
        proc = hipport(*args)
        assert proc.returncode in (0, 1), proc.stderr
        assert b"Traceback" not in proc.stderr
    report = json.loads(hipport("report", tree, "--format", "json").stdout)
    assert [f["path"] for f in report["files"]] == [f"{tree.as_posix()}/a.cu"], "links are never entered"
    proc = hipport("check", tree / "self")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr.decode()


def test_a_link_inside_out_is_not_written_through(tmp_path):
    """OUT from an earlier run where sub/ was a link: --force must not write into what it points at."""
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "sub" / "k.cu").write_bytes(PORTABLE)
    (src / "a.cu").write_bytes(PORTABLE)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "k.cu").write_bytes(b"// not hipport's to touch\n")
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(elsewhere, out / "sub")
    proc = hipport("convert", src, "-o", out, "-q", "--force")
    assert proc.returncode == 2
    line = one_clean_line(proc.stderr)
    assert f"{out}/sub: a symbolic link in the output" in line.replace("\\", "/")
    assert tree_state(elsewhere) == {"k.cu": b"// not hipport's to touch\n"}
    assert (out / "a.cu").read_bytes() == PORTED


# -- hostile trees: unreadable, read-only, full ----------------------------------------------------


def test_unreadable_file_and_directory(tmp_path):
    prefix = unprivileged(tmp_path)
    tree = tmp_path / "tree"
    (tree / "locked_dir").mkdir(parents=True)
    (tree / "locked_dir" / "hidden.cu").write_bytes(PORTABLE)
    (tree / "ok.cu").write_bytes(PORTABLE)
    (tree / "locked.cu").write_bytes(PORTABLE)
    (tree / "locked.txt").write_bytes(b"data\n")
    for name in ("locked.cu", "locked.txt", "locked_dir"):
        (tree / name).chmod(0)
    try:
        out = tmp_path / "out"
        proc = hipport("convert", tree, "-o", out, "-q", prefix=prefix)
        err = proc.stderr.decode()
        assert proc.returncode == 2 and "Traceback" not in err
        assert sorted(err.strip().splitlines()) == [
            f"hipport: {tree}/locked.cu: cannot read: Permission denied",
            f"hipport: {tree}/locked.txt: cannot read: Permission denied",
            f"hipport: {tree}/locked_dir: cannot list directory: Permission denied",
        ]
        assert (out / "ok.cu").read_bytes() == PORTED and not (out / "locked.cu").exists()

        for command in ("check", "report"):
            proc = hipport(command, tree, prefix=prefix)
            err = proc.stderr.decode()
            assert proc.returncode == 2 and "Traceback" not in err, (command, err)
            assert f"hipport: {tree}/locked.cu: cannot read: Permission denied\n" in err
            assert f"hipport: {tree}/locked_dir: cannot list directory: Permission denied\n" in err
        proc = hipport("check", tree / "locked.cu", prefix=prefix)  # named on the command line: a usage error
        assert proc.returncode == 2 and "is not readable" in proc.stderr.decode()
        assert "Traceback" not in proc.stderr.decode()
    finally:
        for name in ("locked.cu", "locked.txt", "locked_dir"):
            (tree / name).chmod(0o755)


@pytest.mark.parametrize("how", ["chmod", "read-only mount"])
def test_read_only_output(how, tmp_path, request):
    src = tmp_path / "src"
    src.mkdir()
    for i in range(20):
        (src / f"k{i}.cu").write_bytes(PORTABLE)
    if how == "chmod":
        prefix = unprivileged(tmp_path)
        out = tmp_path / "out"
        out.mkdir()
        out.chmod(0o555)
        reason = "Permission denied"
    else:
        prefix = []
        fs = request.getfixturevalue("tmpfs")
        fs.mount("size=1m,ro")
        out = fs.where
        reason = "Read-only file system"
    for args in (["-o", out, "--force"], ["-o", out / "sub"]):
        proc = hipport("convert", src, *args, "-q", prefix=prefix)
        assert proc.returncode == 2
        assert one_clean_line(proc.stderr) == f"hipport: {args[1]}: cannot write: {reason}"
        assert tree_state(out) == {}


def test_full_disk_while_mirroring(tmpfs, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for i in range(40):
        (src / f"k{i:02}.cu").write_bytes(PORTABLE + b"// " + b"x" * 4000 + b"\n")
    expected = PORTED + b"// " + b"x" * 4000 + b"\n"
    tmpfs.mount("size=64k")
    out = tmpfs.where / "out"
    proc = hipport("convert", src, "-o", out, "-q", "--report", tmp_path / "r.json")
    assert proc.returncode == 2
    line = one_clean_line(proc.stderr)
    assert line.startswith(f"hipport: {out}/k") and ": cannot write: No space left on device; stopped with " in line
    got = tree_state(out)
    assert not temporaries(out), "temporary files are removed when a write fails"
    assert 0 < len(got) < 40 and all(data == expected for data in got.values()), "a file is complete or absent"
    assert not (tmp_path / "r.json").exists(), "no report claims a finished run"

    tmpfs.remount("size=1m")
    proc = hipport("convert", src, "-o", out, "-q", "--force")
    assert proc.returncode == 0, proc.stderr
    assert tree_state(out) == {f"k{i:02}.cu": expected for i in range(40)}


def test_full_disk_in_place(tmpfs, tmp_path):
    tmpfs.mount("size=512k")  # 128 pages: 40 files, 40 backups, and ballast
    tree = tmpfs.where / "tree"
    tree.mkdir()
    originals = {}
    for i in range(40):
        originals[f"k{i:02}.cu"] = PORTABLE + b"// " + b"x" * 3000 + b"\n"  # one page
        (tree / f"k{i:02}.cu").write_bytes(originals[f"k{i:02}.cu"])
    (tmpfs.where / "ballast").write_bytes(b"\0" * (128 - 40 - 3) * 4096)  # room for a file and a backup
    proc = hipport("convert", tree, "--in-place", "-q")  # not in git: keeps .prehip backups
    assert proc.returncode == 2
    assert "cannot write: No space left on device; stopped with " in one_clean_line(proc.stderr)
    got = tree_state(tree)
    assert not temporaries(tree)
    for rel, data in originals.items():
        assert got[rel] in (data, data.replace(PORTABLE, PORTED)), rel
        backup = got.get(rel + ".prehip")
        assert backup in (None, data), "a backup is whole and holds the original"
        if got[rel] != data:
            assert backup == data, "no file is rewritten before its backup is safe"

    (tmpfs.where / "ballast").unlink()
    proc = hipport("convert", tree, "--in-place", "-q")
    assert proc.returncode == 0, proc.stderr
    got = tree_state(tree)
    assert {rel: got[rel] for rel in originals} == {rel: d.replace(PORTABLE, PORTED) for rel, d in originals.items()}
    assert all(got[rel + ".prehip"] == data for rel, data in originals.items())


def test_injected_enospc_in_place(tmp_path, monkeypatch):
    """Without a tmpfs: fsync (where delayed allocation and NFS report a full disk) fails on the 4th file."""
    tree = tmp_path / "tree"
    tree.mkdir()
    for i in range(10):
        (tree / f"k{i}.cu").write_bytes(PORTABLE)
    real_fsync, calls = os.fsync, []

    def fsync(fd):
        calls.append(fd)
        if len(calls) >= 4:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    result = cli("convert", tree, "--in-place", "-q", "--backup-suffix", "", "--jobs", "1")
    assert result.exit_code == 2
    assert result.output == (f"hipport: {tree}/k3.cu: cannot write: No space left on device; stopped with 3 file(s) "
                             "written, none of them partly\n")
    assert tree_state(tree) == {f"k{i}.cu": PORTED if i < 3 else PORTABLE for i in range(10)}


# -- hostile trees: special files and names -------------------------------------------------------


def test_fifo_socket_and_device_are_left_out_with_a_message(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.cu").write_bytes(PORTABLE)
    os.mkfifo(tree / "pipe.cu")  # reading it would wait for a writer for ever
    os.mkfifo(tree / "notes.txt")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(tree / "sock.cu"))
    kinds = {"pipe.cu": "FIFO", "notes.txt": "FIFO", "sock.cu": "socket"}
    try:
        os.mknod(tree / "null.cu", stat.S_IFCHR | 0o600, os.makedev(1, 3))
        kinds["null.cu"] = "character device"
    except OSError:
        pass  # not root: the FIFOs and the socket still count
    try:
        out = tmp_path / "out"
        proc = hipport("convert", tree, "-o", out, "--report", tmp_path / "r.json")
        err = proc.stderr.decode()
        assert proc.returncode == 0 and "Traceback" not in err
        for name, kind in kinds.items():
            assert f"hipport: {tree}/{name}: a {kind}, not a regular file; left out\n" in err
        assert f", {len(kinds)} left out (" in err
        assert tree_state(out) == {"a.cu": PORTED}
        assert json.loads((tmp_path / "r.json").read_text())["summary"]["skipped"] == len(kinds)

        proc = hipport("convert", tree, "--in-place", "-q", "--backup-suffix", "")
        assert proc.returncode == 0 and (tree / "a.cu").read_bytes() == PORTED
        assert stat.S_ISFIFO((tree / "pipe.cu").lstat().st_mode)
        for command in ("check", "report"):
            proc = hipport(command, tree)
            assert proc.returncode in (0, 1) and b"Traceback" not in proc.stderr
    finally:
        server.close()


NAMES = ["with space.cu", "new\nline.cu", os.fsdecode(b"bad\xff\xfe.cu"), "d\xe9j\xe0 vu.cu",
         os.fsdecode(b"dir \xff/inner.cu")]


def test_odd_file_names_are_ported_and_reported(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    for name in NAMES:
        (tree / name).parent.mkdir(exist_ok=True)
        (tree / name).write_bytes(PORTABLE)
    out = tmp_path / "out"
    # a strict UTF-8 stdout/stderr, as under en_US.UTF-8: printing a surrogate would raise there
    env = dict(os.environ, PYTHONIOENCODING="utf-8:strict")
    proc = hipport("convert", tree, "-o", out, "--report", tmp_path / "r.json", env=env)
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr, proc.stderr
    assert tree_state(out) == {**{name: PORTED for name in NAMES}, os.fsdecode(b"dir \xff"): "dir"}
    # path:line:col carries the name's bytes as on disk
    assert os.fsencode(tree) + b"/bad\xff\xfe.cu:2:38: warning HP102 " in proc.stderr
    assert os.fsencode(tree) + b"/new\nline.cu:2:38: warning HP102 " in proc.stderr

    raw = (tmp_path / "r.json").read_bytes()
    assert raw.isascii() and b'"bad\\udcff\\udcfe.cu"' in raw
    paths = [f["path"] for f in json.loads(raw)["files"]]
    assert sorted(map(os.fsencode, paths)) == sorted(map(os.fsencode, NAMES))

    proc = hipport("check", tree, env=env)
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr
    assert os.fsencode(tree) + b"/bad\xff\xfe.cu:2:38: warning HP102 " in proc.stdout
    for fmt in ("json", "sarif"):
        proc = hipport("check", tree, "--format", fmt, env=env)
        assert proc.returncode == 0 and proc.stdout.isascii(), proc.stderr
        json.loads(proc.stdout)
    for given, uri in ((tree, tree.as_uri() + "/bad%FF%FE.cu"), (Path("tree"), "tree/bad%FF%FE.cu")):
        sarif = json.loads(hipport("check", given, "--format", "sarif", cwd=tmp_path).stdout)
        results = sarif["runs"][0]["results"]
        assert uri in {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}

    for fmt in ("text", "json", "markdown", "html", "sarif", "csv"):
        proc = hipport("report", tree, "--format", fmt, "-o", tmp_path / f"report.{fmt}", env=env)
        assert proc.returncode == 0 and b"Traceback" not in proc.stderr, (fmt, proc.stderr)
        assert b"bad" in (tmp_path / f"report.{fmt}").read_bytes()
        proc = hipport("report", tree, "--format", fmt, env=env)
        assert proc.returncode == 0 and b"Traceback" not in proc.stderr, (fmt, proc.stderr)
    assert b"/bad\xff\xfe.cu" in (tmp_path / "report.csv").read_bytes()

    proc = hipport("convert", tree, "--in-place", "-q", "--backup-suffix", "", env=env)
    assert proc.returncode == 0, proc.stderr
    assert all((tree / name).read_bytes() == PORTED for name in NAMES)


# -- two runs at once ---------------------------------------------------------------------------------


def test_two_runs_in_place_at_once(big, tmp_path):
    old_tree, old, _, new = big
    for attempt, stagger in enumerate((0.0, 0.3)):
        work = tmp_path / f"work{attempt}"
        shutil.copytree(old_tree, work)
        env = dict(os.environ, HIPPORT_CACHE_DIR=str(tmp_path / f"cache{attempt}"))  # one cache for both
        procs = []
        for _ in range(2):
            procs.append(subprocess.Popen([sys.executable, "-m", "hipport", "convert", str(work), "--in-place",
                                           "-q", "--jobs", "1"], env=env, start_new_session=True,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))
            time.sleep(stagger)
        for proc in procs:
            status, err = finish(proc)
            assert status == 0 and not err, err
        got = tree_state(work)
        for rel, data in old.items():
            assert got[rel] == new[rel], f"{rel} is not a correct port"
            if data != new[rel]:
                assert got[rel + ".prehip"] == data, f"{rel}.prehip does not hold the original"
        assert set(got) == set(old) | {rel + ".prehip" for rel in old if old[rel] != new[rel]}


def test_a_run_never_backs_up_or_overwrites_what_changed_under_it(tmp_path, rules):
    """The interleavings two runs (or a run and an editor) produce, made deterministic."""
    from hipport.options import Options
    from hipport.tree.run import TreeConversion
    from hipport.tree.settings import TreeSettings

    tree = tmp_path / "tree"
    tree.mkdir()
    for name in ("ported_meanwhile.cu", "edited_meanwhile.cu", "untouched.cu"):
        (tree / name).write_bytes(PORTABLE)
    slow = TreeConversion(tree, rules, Options(), TreeSettings(use_cache=False, jobs=1))
    slow.prepare()  # it has read every file, and now...
    (tree / "ported_meanwhile.cu").write_bytes(PORTED)  # ...a faster run ports one, without a backup
    (tree / "edited_meanwhile.cu").write_bytes(PORTABLE + b"// the user's edit\n")
    slow.write_in_place()
    assert tree_state(tree) == {
        "ported_meanwhile.cu": PORTED,  # no backup holding a port where the original should be
        "edited_meanwhile.cu": PORTABLE + b"// the user's edit\n",
        "untouched.cu": PORTED, "untouched.cu.prehip": PORTABLE,
    }
    assert slow.run.errors == [f"{tree}/edited_meanwhile.cu: changed while hipport ran; left as it is "
                               "(run again to port it)"]


def test_stale_temporaries_are_removed_only_when_their_writer_is_gone(tmp_path):
    from hipport.emit.writer import remove_stale_temporaries

    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.cu").write_bytes(PORTABLE)
    dead = subprocess.Popen(["true"])
    dead.wait()
    gone = tree / f".a.cu.{dead.pid}.k2j4x9a1.hipport-tmp"
    alive = tree / f".a.cu.{os.getpid()}.q8w7e6r5.hipport-tmp"
    for path in (gone, alive):
        path.write_bytes(PORTED[:10])
    proc = hipport("convert", tree, "--in-place", "-q", "--backup-suffix", "")
    assert proc.returncode == 0, proc.stderr
    assert not gone.exists() and alive.exists()
    assert remove_stale_temporaries([alive]) == 0


def test_a_signal_waits_until_the_file_at_hand_is_done(tmp_path, rules, monkeypatch):
    """--rename in place writes the new name, then removes the old: a signal between the two waits."""
    from hipport import api
    from hipport.options import Options
    from hipport.tree import mirror  # where TreeConversion's in-place writes are made
    from hipport.tree.settings import TreeSettings

    tree = tmp_path / "tree"
    tree.mkdir()
    for name in ("a.cu", "b.cu"):
        (tree / name).write_bytes(PORTABLE)
    real_write = mirror.write_atomic

    def write_then_signal(*args, **kwargs):
        real_write(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C right after a.hip is written, before a.cu goes

    monkeypatch.setattr(mirror, "write_atomic", write_then_signal)
    with pytest.raises(KeyboardInterrupt):
        api.convert_tree_in_place(tree, rules, Options(),
                                  TreeSettings(rename=True, backup_suffix="", use_cache=False, jobs=1))
    assert tree_state(tree) == {"a.hip": PORTED, "b.cu": PORTABLE}
