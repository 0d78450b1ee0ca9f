"""`hipport verify --run` on fixtures/run, ported for HIP 5.2, under the HIP CPU Runtime (64-lane wavefronts).

Every program PASSes as ported, except those that rely on 32-lane warps: they
FAIL as ported and PASS when ported with --fix-warp-size. Programs that do not
rely on 32 lanes port the same with and without the flag, so their PASS holds
for both without building them twice (builds are the cost: about 5 s of CPU each).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from hipport.cli import main
from hipport.options import Options
from hipport.run.execute import RunSettings, run_tree
from hipport.run.runtime import find_toolchain
from hipport.toolchain import ToolSettings
from hipport.versions import parse_version

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "fixtures" / "run"
RUNTIME = Path(os.environ.get("HIPPORT_HIP_CPU") or ROOT.parent / "shared" / "vendor" / "HIP-CPU")
PROGRAMS = sorted(p.name for p in CORPUS.iterdir() if p.is_dir())
RELIES_ON_32 = {name for name in PROGRAMS
                if tomllib.loads((CORPUS / name / "case.toml").read_text()).get("relies_on_32_lanes")}


def _tbb_links() -> bool:
    gxx = shutil.which("g++")
    if gxx is None:
        return False
    probe = subprocess.run([gxx, "-x", "c++", "-", "-o", os.devnull, "-ltbb"], input="int main(){}",
                           capture_output=True, text=True)
    return probe.returncode == 0


pytestmark = [
    pytest.mark.hipcpu,
    pytest.mark.skipif(not (RUNTIME / "include" / "hip" / "hip_runtime.h").is_file(),
                       reason=f"no HIP CPU Runtime at {RUNTIME} (set HIPPORT_HIP_CPU)"),
    pytest.mark.skipif(not _tbb_links(), reason="needs g++ and libtbb-dev (make test installs them)"),
]


def _port(rules, tmp: Path, names: list[str], fix_warp_size: bool) -> Path:
    from hipport.engine.port import port_source

    options = Options(hip_version=parse_version("5.2"), fix_warp_size=fix_warp_size)
    for name in names:
        target = tmp / name / "main.cu"
        target.parent.mkdir(parents=True)
        target.write_bytes(port_source((CORPUS / name / "main.cu").read_bytes(), rules, options).output)
    return tmp


@pytest.fixture(scope="module")
def outcomes(rules, tmp_path_factory):
    """Status per (program, ported with --fix-warp-size): two runs of the corpus, built two at a time."""
    toolchain = find_toolchain(RUNTIME)
    settings = RunSettings(timeout=60, tools=ToolSettings(jobs=2))
    plain = _port(rules, tmp_path_factory.mktemp("plain"), PROGRAMS, False)
    fixed = _port(rules, tmp_path_factory.mktemp("fixed"), sorted(RELIES_ON_32), True)
    found = {}
    for tree, fix in ((plain, False), (fixed, True)):
        for result in run_tree(tree, toolchain, rules, Options(), settings):
            found[(result.program.name.split("/")[0], fix)] = result
    return found, plain


def test_the_corpus_has_what_the_issue_asks(rules):
    assert len(PROGRAMS) >= 12
    assert len(RELIES_ON_32) >= 5


@pytest.mark.parametrize("name", sorted(RELIES_ON_32))
def test_a_program_relying_on_32_lanes_fails_as_ported_and_passes_with_the_fixes(name, outcomes):
    found, _ = outcomes
    plain, fixed = found[(name, False)], found[(name, True)]
    assert plain.status == "FAIL" and plain.detail == "exit status 1", (plain.detail, plain.tail)
    assert fixed.status == "PASS", (fixed.detail, fixed.tail)


@pytest.mark.parametrize("name", sorted(set(PROGRAMS) - RELIES_ON_32))
def test_other_programs_pass_as_ported_and_the_fixes_leave_them_alone(name, outcomes, rules):
    from hipport.engine.port import port_source

    found, _ = outcomes
    result = found[(name, False)]
    assert result.status == "PASS", (result.detail, result.tail)
    source = (CORPUS / name / "main.cu").read_bytes()
    options = Options(hip_version=parse_version("5.2"))
    assert port_source(source, rules, options.__class__(hip_version=options.hip_version, fix_warp_size=True)
                       ).output == port_source(source, rules, options).output


def test_running_leaves_the_ported_tree_as_it_was(outcomes, rules):
    from hipport.engine.port import port_source

    _, plain = outcomes
    options = Options(hip_version=parse_version("5.2"))
    for name in PROGRAMS:  # the bridge rewrote launches and shared arrays in a copy, not here
        expected = port_source((CORPUS / name / "main.cu").read_bytes(), rules, options).output
        assert (plain / name / "main.cu").read_bytes() == expected
    assert sorted(p.name for p in plain.rglob("*") if p.is_file()) == ["main.cu"] * len(PROGRAMS)


def test_cli_reports_each_program_and_the_tail_of_a_failure(tmp_path, rules):
    """One warp-reliant program through the command line: FAIL with its own output, exit status 1."""
    name = "11-ballot-count"
    _port(rules, tmp_path, [name], False)
    result = CliRunner().invoke(main, ["verify", str(tmp_path), "--run", "--hip-cpu", str(RUNTIME)])
    assert result.exit_code == 1, result.output
    assert f"FAIL       {name}/main.cu" in result.output
    assert "| count = " in result.output and "(expected " in result.output
    assert "0 passed, 1 failed" in result.output
