"""--hip-version installed and [tool.hipport] hip-version = "installed": the target is what
`hipconfig --version` says (issue 22); without hipconfig, one line and exit status 2."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from hipport.cli import main
from hipport.ruleset.loader import load_rules
from hipport.versions import format_version

ROOT = Path(__file__).resolve().parents[1]
# cudaGraphInstantiateWithParams arrived in HIP 6.1: HP201 for a 5.2 target, nothing for 6.3
SOURCE = "void f(cudaGraphExec_t *e, cudaGraph_t g, cudaGraphInstantiateParams *p) { cudaGraphInstantiateWithParams(e, g, p); }\n"


@pytest.fixture
def hipconfig_says(tmp_path, monkeypatch):
    """A PATH whose only hipconfig prints the given text (None: no hipconfig at all)."""

    def install(text: str | None, status: int = 0) -> Path:
        bin_dir = tmp_path / "bin"
        bin_dir.mkdir(exist_ok=True)
        if text is not None:
            fake = bin_dir / "hipconfig"
            fake.write_text(f"#!/bin/sh\nprintf '%s' '{text}'\nexit {status}\n")
            fake.chmod(0o755)
        monkeypatch.setenv("PATH", str(bin_dir))
        return bin_dir

    return install


@pytest.fixture
def source(tmp_path) -> Path:
    path = tmp_path / "k.cu"
    path.write_text(SOURCE)
    return path


def _invoke(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def _codes(output: str) -> set[str]:
    return set(re.findall(r"\b(HP\d{3})\b", output))


@pytest.mark.parametrize("command", ["convert", "check", "report"])
def test_installed_is_what_hipconfig_says(hipconfig_says, source, command):
    hipconfig_says("5.2.21153-0")
    extra = ["-o", "-"] if command == "convert" else []
    old = _invoke(command, str(source), *extra, "--hip-version", "installed")
    assert "HP201" in _codes(old.output), old.output
    hipconfig_says("6.3.42131-0")
    new = _invoke(command, str(source), *extra, "--hip-version", "installed")
    assert "HP201" not in _codes(new.output), new.output


def test_the_report_records_the_installed_version(hipconfig_says, source):
    hipconfig_says("5.2.21153-0")
    result = _invoke("report", str(source), "--hip-version", "installed", "--format", "json")
    assert json.loads(result.output)["options"]["hip_version"] == "5.2"


def test_shim_takes_installed_too(hipconfig_says, source, tmp_path):
    hipconfig_says("5.2.21153-0")
    result = _invoke("shim", str(source), "-o", str(tmp_path / "g.h"), "--hip-version", "installed")
    assert result.exit_code == 0, result.output
    assert "#if HIP_VERSION >=" in (tmp_path / "g.h").read_text()  # 6.1's name is guarded for a 5.2 target


def test_config_installed(hipconfig_says, source, tmp_path):
    hipconfig_says("5.2.21153-0")
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.hipport]\nhip-version = "installed"\n')
    result = _invoke("check", "--config", str(config), str(source))
    assert "HP201" in _codes(result.output)
    assert "HP201" not in _codes(_invoke("check", "--config", str(config), "--hip-version", "6.3", str(source)).output)


@pytest.mark.parametrize("command", ["convert", "check", "report", "shim"])
def test_no_hipconfig_is_one_line(hipconfig_says, source, tmp_path, command):
    hipconfig_says(None)
    extra = {"convert": ["-o", "-"], "shim": ["-o", str(tmp_path / "g.h")]}.get(command, [])
    result = CliRunner().invoke(main, [command, str(source), *extra, "--hip-version", "installed"])
    assert result.exit_code == 2
    assert result.output.splitlines() == [
        "hipport: --hip-version installed: hipconfig is not on PATH; name the target instead (--hip-version X.Y)"
    ]


def test_hipconfig_without_a_version_is_one_line(hipconfig_says, source):
    hipconfig_says("no idea", status=1)
    result = CliRunner().invoke(main, ["check", str(source), "--hip-version", "installed"])
    assert result.exit_code == 2
    (line,) = result.output.splitlines()
    assert line.startswith("hipport: --hip-version installed: 'hipconfig --version' gave no version")


def test_plain_check_without_click_resolves_installed(hipconfig_says, source):
    """hipport.launch runs a plain check without click: it must resolve `installed` the same way."""
    bin_dir = hipconfig_says("5.2.21153-0")
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{Path(sys.executable).parent}", "PYTHONPATH": str(ROOT)}
    launch = [sys.executable, "-c", "import sys; sys.argv[0] = 'hipport'; from hipport.launch import main; main()"]
    done = subprocess.run(
        [*launch, "check", str(source), "--hip-version", "installed"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert "HP201" in _codes(done.stdout), (done.stdout, done.stderr)
    os.remove(bin_dir / "hipconfig")
    done = subprocess.run(
        [*launch, "check", str(source), "--hip-version", "installed"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1 and "hipconfig is not on PATH" in done.stderr


def test_readme_states_the_default_target():
    """The README and docs/convert.md name the default target, the newest HIP the rule data knows."""
    newest = format_version(load_rules().newest_hip)
    readme = (ROOT / "README.md").read_text()
    assert f"The target is the newest HIP the rules know ({newest})" in readme
    convert = (ROOT / "docs" / "convert.md").read_text()
    target = convert[convert.index("## The target HIP") : convert.index("## Output and exit status")]
    assert f"HIP {newest}" in target and "default" in target.lower()
