"""The `hipport` command's start and exit (hipport.launch): a plain check runs without click and
must say and exit exactly what hipport.cli's check says and exits; everything else goes to click."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hipport import launch

# The same command, through hipport.launch (what the console script and `python -m hipport` run)
# and through click alone, as the console script ran it before.
FAST = [sys.executable, "-c", "import sys; sys.argv[0] = 'hipport'; from hipport.launch import main; main()"]
CLICK = [sys.executable, "-c", "import sys; sys.argv[0] = 'hipport'; from hipport.cli import main; main()"]

UNSUPPORTED = "  cudaDeviceGetNvSciSyncAttributes(list, dev, 0);\n"
UNMAPPED = "  cudaMadeUpThing(p);\n"


def _source(*body: str) -> str:
    return "#include <cuda_runtime.h>\nvoid f(void* list, int dev, void* p) {\n" + "".join(body) + "}\n"


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("HIPPORT_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "bad.cu").write_text(_source(UNMAPPED, UNSUPPORTED))
    (tmp_path / "src" / "warn.cu").write_text(_source(UNMAPPED, "  // hipport: ignore[HP102]\n", UNMAPPED))
    (tmp_path / "src" / "ok.cu").write_text(_source("  cudaDeviceSynchronize();\n"))
    (tmp_path / "src" / "b\xe9.cu").write_text(_source(UNSUPPORTED))  # a latin-1 name
    return tmp_path


def _run(command: list[str], cwd: Path, *args: str) -> subprocess.CompletedProcess:
    # this checkout's hipport, not whichever one the virtual environment was installed from
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    return subprocess.run([*command, *args], cwd=cwd, capture_output=True, timeout=120, env=env)


def _same_as_click(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    fast, slow = _run(FAST, cwd, *args), _run(CLICK, cwd, *args)
    assert (fast.returncode, fast.stdout, fast.stderr) == (slow.returncode, slow.stdout, slow.stderr), args
    return fast


CASES = {
    "findings and summary": ("check", "src/bad.cu", "src/warn.cu", "src/ok.cu"),
    "quiet": ("check", "-q", "src/bad.cu", "src/warn.cu"),
    "fail on warning": ("check", "src/warn.cu", "--fail-on", "warning"),
    "fail on never": ("check", "--fail-on=never", "src/bad.cu"),
    "select and ignore": ("check", "--select", "HP101,HP3", "--ignore", "HP3", "--ignore=HP2", "src/bad.cu"),
    "ignore": ("check", "--ignore", "HP101", "src/bad.cu"),
    "hip version": ("check", "--hip-version", "5.2", "src/bad.cu"),
    "a tree": ("check", "src"),
    "a missing file": ("check", "src/bad.cu", "nope.cu"),
    "a name that is not UTF-8": ("check", "src/b\xe9.cu"),
    "format text": ("check", "--format", "text", "src/bad.cu"),
    # these go to click, and must still come out the same
    "a bad version": ("check", "--hip-version", "banana", "src/bad.cu"),
    "a bad fail-on": ("check", "--fail-on", "sometimes", "src/bad.cu"),
    "an unknown option": ("check", "--frobnicate", "src/bad.cu"),
    "no files": ("check",),
    "help": ("check", "--help"),
    "json": ("check", "--format", "json", "src/bad.cu"),
}


@pytest.mark.parametrize("args", CASES.values(), ids=list(CASES))
def test_a_check_says_and_exits_what_hipport_cli_does(project, args):
    args = tuple(a.encode("latin-1").decode(sys.getfilesystemencoding(), "surrogateescape") for a in args)
    done = _same_as_click(project, *args)
    if args in (CASES["findings and summary"], CASES["quiet"]):
        assert done.returncode == 1 and b"error HP101" in done.stdout  # the comparison has teeth


def test_config_baseline_and_user_rules_are_honoured(project):
    (project / "mine.toml").write_text('schema = 1\nrename = [ { cuda = "cudaMadeUpThing", hip = "hipMadeUp" } ]\n')
    (project / "pyproject.toml").write_text('[tool.hipport]\nhip-version = "5.2"\nfail-on = "warning"\n'
                                            'ignore = ["HP3"]\n')
    _same_as_click(project, "check", "src/bad.cu", "src/warn.cu")
    _same_as_click(project, "check", "--rules", "mine.toml", "src/warn.cu")
    recorded = _run(CLICK, project, "check", "--write-baseline", "base.json", "src/bad.cu")
    assert recorded.returncode == 0 and json.loads((project / "base.json").read_text())
    (project / "src" / "bad.cu").write_text(_source(UNMAPPED, UNSUPPORTED, UNSUPPORTED))
    done = _same_as_click(project, "check", "--baseline", "base.json", "src/bad.cu")
    assert b"in baseline" in done.stderr and done.stdout.count(b"HP101") == 1
    (project / "broken.toml").write_text("[tool.hipport\n")
    _same_as_click(project, "check", "--config", "broken.toml", "src/bad.cu")  # click says what is wrong


def test_a_plain_check_does_not_load_click(project):
    probe = ("import sys; from hipport import launch; "
             "status = launch._plain_check(['check', '-q', 'src/bad.cu']); "
             "print(status, *(m in sys.modules for m in ('click', 'hipport.cli', 'hipport.api', 'hipport.shim')))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=project, capture_output=True, text=True, timeout=120)
    assert done.stdout.splitlines()[-1] == "1 False False False False", done.stderr


@pytest.mark.parametrize("argv", [
    ["convert", "a.cu", "-o", "-"], ["check"], ["check", "--help"], ["check", "-h"], ["check", "-qq", "a.cu"],
    ["check", "--write-baseline", "b.json", "a.cu"], ["check", "--mode", "shim", "a.cu"],
    ["check", "--format", "sarif", "a.cu"], ["check", "--fail-on"], ["check", "--select"],
    ["check", "--hip-version", "5.2", "--hip-version", "6.0", "a.cu"], ["check", "--", "a.cu"],
    ["check", "-x.cu"], ["check", "--quiet=yes", "a.cu"], ["check", "--config", "missing.toml", "a.cu"],
])
def test_what_a_plain_check_leaves_to_click(argv, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert launch.plain_check_arguments(argv) is None


def test_every_check_option_is_known_to_the_plain_check():
    """An option added to `hipport check` must be taught to hipport.launch (or make it step aside):
    otherwise a plain check would run without it while click's would not."""
    from hipport.cli import main

    handled = {"paths", "fmt", "fail_on", "hip_version", "select", "ignore", "user_rules", "baseline",
               "config_path", "quiet", "mode", "platform", "all_findings"}
    left_to_click = {"write_baseline", "shim_header", "torch_version"}  # plain_check_arguments returns None for these
    assert {p.name for p in main.commands["check"].params} == handled | left_to_click
    for option in left_to_click:
        flag = "--" + option.replace("_", "-")
        assert launch.plain_check_arguments(["check", flag, "x", "a.cu"]) is None


def test_all_output_is_there_after_the_quick_exit(project):
    """os._exit skips the interpreter's teardown, not what was printed: a long report arrives whole."""
    body = "".join(f"  cudaMadeUpThing{i}(p);\n" for i in range(3000))
    (project / "src" / "many.cu").write_text(_source(body))
    done = _same_as_click(project, "check", "--all-findings", "src/many.cu")
    assert done.stdout.count(b"\n") == 3000
    grouped = _same_as_click(project, "check", "src/many.cu")  # by default, ten and a count of the rest
    assert grouped.stdout.count(b"\n") == 11 and grouped.stdout.endswith(b"... and 2,990 more HP102 in this file\n")


@pytest.mark.parametrize("code, status", [(None, 0), (0, 0), (1, 1), (2, 2), (130, 130), (256 + 3, 3)])
def test_exit_status(code, status):
    assert launch._status(code) == status


def test_a_message_exit_is_left_to_python():
    done = subprocess.run([sys.executable, "-c", "from hipport import launch; launch.leave('bye')"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and done.stderr == "bye\n"


def test_atexit_handlers_still_run(tmp_path):
    flag = tmp_path / "ran"
    code = (f"import atexit, pathlib; atexit.register(pathlib.Path({str(flag)!r}).write_text, 'yes'); "
            "from hipport import launch; launch.leave(3)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 3 and flag.read_text() == "yes"


def test_an_unreadable_path_is_left_to_click(tmp_path, monkeypatch):
    """click.Path refuses a named path that exists and cannot be read ('is not readable', a usage
    error): the plain check must not turn it into a read error of its own (tests/test_hostile.py
    runs it unprivileged)."""
    (tmp_path / "a.cu").write_text("int x;\n")
    monkeypatch.chdir(tmp_path)
    assert launch.plain_check_arguments(["check", "a.cu", "missing.cu"]) is not None
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    assert launch.plain_check_arguments(["check", "a.cu"]) is None
    assert launch.plain_check_arguments(["check", "missing.cu"]) is not None  # not there: read errors say so
