"""Issue 22: an error on a path named on the command line is one line (the path and what is
wrong, no traceback, no summary of nothing after it) and exit status 2, for every command.

Each case runs the real command in a fresh process: through hipport.launch (the console
script, which runs a plain check without click) and, for check, through click alone too."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FAST = [sys.executable, "-c", "import sys; sys.argv[0] = 'hipport'; from hipport.launch import main; main()"]
CLICK = [sys.executable, "-c", "import sys; sys.argv[0] = 'hipport'; from hipport.cli import main; main()"]


def _run(command: list[str], cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HIPPORT_CACHE_DIR": str(cwd / "cache")}
    return subprocess.run([*command, *args], cwd=cwd, capture_output=True, text=True, timeout=120, env=env)


def _one_line(result: subprocess.CompletedProcess, *expected: str) -> str:
    lines = (result.stdout + result.stderr).splitlines()
    assert len(lines) == 1, lines
    assert result.returncode == 2, (result.returncode, lines)
    assert all(text in lines[0] for text in expected), lines
    return lines[0]


MISSING = {
    "shim": ("shim", "missing", "-o", "g.h"),
    "shim --check": ("shim", "missing.cu", "-o", "g.h", "--check"),
    "check": ("check", "missing.cu"),
    "check a directory": ("check", "missing"),
    "check -q": ("check", "-q", "missing.cu"),
    "check --format json": ("check", "--format", "json", "missing.cu"),
    "check --write-baseline": ("check", "--write-baseline", "b.json", "missing.cu"),
    "convert -o file": ("convert", "missing.cu", "-o", "out.hip"),
    "convert -o -": ("convert", "missing.cu", "-o", "-"),
    "convert a tree": ("convert", "missing", "-o", "out", "--report", "r.json"),
    "report": ("report", "missing"),
    "report --format json": ("report", "missing.cu", "--format", "json"),
    "report --from": ("report", "--from", "missing.json"),
    "explain --rules": ("explain", "cudaMalloc", "--rules", "missing.toml"),
}


@pytest.mark.parametrize("args", MISSING.values(), ids=MISSING.keys())
def test_a_missing_path_is_one_line_and_exit_2(tmp_path, args):
    line = _one_line(_run(FAST, tmp_path, *args), "missing")
    assert line.startswith("hipport: missing") and "Traceback" not in line
    assert not (tmp_path / "g.h").exists() and not (tmp_path / "b.json").exists()
    assert not (tmp_path / "out.hip").exists() and not (tmp_path / "r.json").exists()


@pytest.mark.parametrize(
    "args", [("check", "missing.cu"), ("check", "-q", "missing"), ("check", "--format", "json", "missing.cu")]
)
def test_check_without_click_says_the_same_one_line(tmp_path, args):
    fast, slow = _run(FAST, tmp_path, *args), _run(CLICK, tmp_path, *args)
    assert (fast.returncode, fast.stdout, fast.stderr) == (slow.returncode, slow.stdout, slow.stderr)
    _one_line(fast, "missing")


def test_check_keeps_its_summary_when_some_files_were_checked(tmp_path):
    (tmp_path / "ok.cu").write_text("int x;\n")
    result = _run(FAST, tmp_path, "check", "ok.cu", "missing.cu")
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "hipport: missing.cu: no such file or directory",
        "hipport check: 1 file(s); 0 error(s), 0 warning(s), 0 info",
    ]


def test_convert_names_the_output_it_cannot_write_not_its_temporary_file(tmp_path):
    (tmp_path / "ok.cu").write_text("int x;\n")
    (tmp_path / "file").write_text("")
    line = _one_line(_run(FAST, tmp_path, "convert", "ok.cu", "-o", "file/sub/x.hip"), "file/sub")
    assert "hipport-tmp" not in line, line
