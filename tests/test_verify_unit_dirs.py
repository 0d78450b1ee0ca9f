"""verify compiles each unit with -I its own folder only (and the project's explicit ones): a header
name two programs of a tree share must not resolve to the other program's file."""
from __future__ import annotations

import subprocess
from pathlib import Path

from hipport.verify import check_units, unit_include_dirs


class _Recorder:
    """A toolchain whose compile check records the -I directories each unit got and succeeds."""

    def __init__(self) -> None:
        self.seen: dict[Path, tuple[Path, ...]] = {}

    def check_command(self, unit: Path, include_dirs: tuple[Path, ...] = ()):
        self.seen[unit] = include_dirs

        class _Command:
            argv = ("true", str(unit))
            env: dict = {}

            def run(self):
                return subprocess.CompletedProcess(self.argv, 0, "", "")

        return _Command()


def test_each_unit_gets_its_own_folder_and_the_explicit_ones_only(tmp_path):
    units = [tmp_path / "a-cuda" / "main.cu", tmp_path / "b-cuda" / "src" / "main.cu"]
    explicit = (tmp_path / "Common",)
    toolchain = _Recorder()
    results = check_units(units, toolchain, explicit, jobs=2, own_folder=True)
    assert all(r.ok for r in results)
    assert toolchain.seen[units[0]] == (tmp_path / "Common", tmp_path / "a-cuda")
    assert toolchain.seen[units[1]] == (tmp_path / "Common", tmp_path / "b-cuda" / "src")
    assert unit_include_dirs(units[1]) == (tmp_path / "b-cuda" / "src",)


def test_without_own_folder_every_unit_gets_the_same_directories(tmp_path):
    units = [tmp_path / "a" / "x.cu", tmp_path / "b" / "y.cu"]
    toolchain = _Recorder()
    check_units(units, toolchain, (tmp_path / "inc",))
    assert set(toolchain.seen.values()) == {(tmp_path / "inc",)}
