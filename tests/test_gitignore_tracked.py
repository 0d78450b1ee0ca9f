"""Git never ignores a file it tracks; nor does the mirror (issue 28, defect 6), and what is left
out is named, not only counted."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from hipport.cli import main
from hipport.tree.walk import select

SGEMM = Path(__file__).resolve().parents[1] / "fixtures" / "projects" / "ux-sgemm"


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, check=True, capture_output=True
    )


@pytest.fixture
def repo(tmp_path, monkeypatch):
    if shutil.which("git") is None:
        pytest.skip("needs git")
    monkeypatch.setenv("HIPPORT_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "sgemm"
    shutil.copytree(SGEMM, root)
    (root / "dot-gitignore").rename(root / ".gitignore")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "add", "-f", "benchmark_results/.gitkeep")  # as the project's own repository tracks it
    _git(root, "commit", "-qm", "initial")
    (root / "benchmark_results" / "run1.csv").write_text("kernel,ms\n1,3.2\n")  # a result nobody commits
    (root / "build").mkdir()
    (root / "build" / "sgemm.o").write_bytes(b"\0ELF")
    return root


def test_a_tracked_file_under_an_ignored_folder_is_mirrored(repo, tmp_path):
    result = CliRunner().invoke(
        main, ["convert", str(repo), "-o", str(tmp_path / "out"), "--report", str(tmp_path / "r.json")]
    )
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out" / "benchmark_results" / ".gitkeep").is_file()
    assert not (tmp_path / "out" / "benchmark_results" / "run1.csv").exists()
    assert not (tmp_path / "out" / "build").exists()
    summary = result.stderr.strip().splitlines()[-1]
    assert "2 left out (benchmark_results/run1.csv, build/)" in summary
    assert json.loads((tmp_path / "r.json").read_text())["summary"]["left_out"] == [
        "benchmark_results/run1.csv",
        "build/",
    ]


def test_the_selection_keeps_tracked_files_and_their_folders(repo):
    selection = select(repo)
    kept = {entry.rel for entry in selection.entries}
    assert {"benchmark_results", "benchmark_results/.gitkeep"} <= kept
    assert selection.skipped == ["benchmark_results/run1.csv", "build/"]


def test_outside_git_the_gitignore_alone_decides(tmp_path):
    root = tmp_path / "plain"
    shutil.copytree(SGEMM, root)
    (root / "dot-gitignore").rename(root / ".gitignore")
    assert select(root).skipped == ["benchmark_results/"]


def test_many_left_out_are_named_by_the_first_few(tmp_path, monkeypatch):
    monkeypatch.setenv("HIPPORT_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "t"
    root.mkdir()
    (root / "a.cu").write_text("int x;\n")
    for n in range(5):
        (root / f"skip{n}.log").write_text("")
    (root / ".gitignore").write_text("*.log\n")
    result = CliRunner().invoke(main, ["convert", str(root), "-o", str(tmp_path / "out")])
    assert "5 left out (skip0.log, skip1.log, skip2.log and 2 more)" in result.stderr
