"""hipport check: output format, exit codes, suppressions, config, baseline."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from hipport.cli import main

UNSUPPORTED = "  cudaDeviceGetNvSciSyncAttributes(list, dev, 0);\n"
UNMAPPED = "  cudaMadeUpThing(p);\n"


def _source(*body: str) -> str:
    return "#include <cuda_runtime.h>\nvoid f(void* list, int dev, void* p) {\n" + "".join(body) + "}\n"


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _check(*args: str):
    return CliRunner().invoke(main, ["check", *args], catch_exceptions=False)


def test_clean_file_exits_0(project):
    (project / "ok.cu").write_text(_source("  cudaDeviceSynchronize();\n"))
    done = _check("ok.cu")
    assert done.exit_code == 0
    assert done.stdout == ""


def test_error_exits_1_with_compiler_style_lines_sorted(project):
    (project / "b.cu").write_text(_source(UNMAPPED, UNSUPPORTED))
    (project / "a.cu").write_text(_source(UNSUPPORTED))
    done = _check("b.cu", "a.cu")
    assert done.exit_code == 1
    lines = done.stdout.splitlines()
    assert lines == [
        "a.cu:3:3: error HP101 'cudaDeviceGetNvSciSyncAttributes' (CUDA Runtime API) has no HIP equivalent",
        "b.cu:3:3: warning HP102 'cudaMadeUpThing' looks like a CUDA API but no rule maps it; port it by hand",
        "b.cu:4:3: error HP101 'cudaDeviceGetNvSciSyncAttributes' (CUDA Runtime API) has no HIP equivalent",
    ]


def test_fail_on_warning_and_never(project):
    (project / "w.cu").write_text(_source(UNMAPPED))
    assert _check("w.cu").exit_code == 0
    assert _check("--fail-on", "warning", "w.cu").exit_code == 1
    (project / "e.cu").write_text(_source(UNSUPPORTED))
    assert _check("--fail-on", "never", "e.cu").exit_code == 0


def test_missing_file_is_a_usage_error(project):
    done = _check("nope.cu")
    assert done.exit_code == 2
    assert "nope.cu: no such file or directory" in done.stderr


def test_broken_links_say_what_is_wrong_with_them(project):
    (project / "loop.cu").symlink_to("loop.cu")
    (project / "dangling.cu").symlink_to("gone.cu")
    done = _check("loop.cu", "dangling.cu")
    assert done.exit_code == 2
    assert "loop.cu: a symbolic link that loops back on itself" in done.stderr
    assert "dangling.cu: a symbolic link to gone.cu, which does not exist" in done.stderr


def test_suppression_needs_a_code_and_unused_ones_are_reported(project):
    (project / "s.cu").write_text(_source(
        "  // hipport: ignore[HP101]\n", UNSUPPORTED,                   # suppressed from the line before
        "  cudaDeviceGetNvSciSyncAttributes(list, dev, 1);  // hipport: ignore\n",  # no code: still reported
        "  cudaDeviceSynchronize();  // hipport: ignore[HP102]\n",      # matches nothing
    ))
    done = _check("s.cu")
    assert done.exit_code == 1
    codes = [line.split()[2] for line in done.stdout.splitlines()]
    assert codes == ["HP101", "HP801", "HP802"]
    assert "s.cu:5:" in done.stdout.splitlines()[0]
    assert "1 suppressed" in done.stderr


def test_file_ignore_and_prefixes(project):
    (project / "f.cu").write_text("// hipport: file-ignore[HP1]\n" + _source(UNSUPPORTED, UNMAPPED))
    done = _check("f.cu")
    assert done.exit_code == 0, done.stdout
    assert done.stdout == ""


def test_select_ignore_and_config_severity(project):
    (project / "m.cu").write_text(_source(UNSUPPORTED, UNMAPPED))
    assert [l.split()[2] for l in _check("--select", "HP102", "m.cu").stdout.splitlines()] == ["HP102"]
    assert _check("--ignore", "HP101", "m.cu").exit_code == 0
    (project / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.hipport]\nfail-on = "warning"\n'
        'severity = { HP101 = "warning", HP102 = "info" }\n')
    done = _check("m.cu")
    assert [l.split()[1:3] for l in done.stdout.splitlines()] == [["warning", "HP101"], ["info", "HP102"]]
    assert done.exit_code == 1  # fail-on warning from the config
    assert _check("--fail-on", "error", "m.cu").exit_code == 0  # the flag wins


def test_bad_config_points_at_the_line(project):
    (project / "pyproject.toml").write_text('[tool.hipport]\nhip-version = "5.2"\nfial-on = "error"\n')
    (project / "a.cu").write_text(_source())
    done = _check("a.cu")
    assert done.exit_code == 2
    assert "pyproject.toml:3: [tool.hipport] unknown key 'fial-on'" in done.stderr


def test_config_hip_version_applies(project):
    body = _source("  cudaGraphExec_t e; cudaGraph_t g; cudaGraphInstantiateParams p;\n"
                   "  cudaGraphInstantiateWithParams(&e, g, &p);\n")
    (project / "g.cu").write_text(body)
    assert "HP201" not in _check("g.cu").stdout
    (project / "pyproject.toml").write_text('[tool.hipport]\nhip-version = "5.2"\n')
    assert "HP201" in _check("g.cu").stdout
    assert "HP201" not in _check("--hip-version", "6.4", "g.cu").stdout


def test_baseline_survives_line_shifts_and_flags_new_findings(project):
    path = project / "legacy.cu"
    path.write_text(_source(UNSUPPORTED))
    done = _check("--write-baseline", "hipport-baseline.json", "legacy.cu")
    assert done.exit_code == 0
    recorded = json.loads((project / "hipport-baseline.json").read_text())
    assert [e["code"] for e in recorded["findings"]] == ["HP101"]

    # Ten unrelated lines above the known finding: still known.
    path.write_text("// notes\n" * 10 + _source(UNSUPPORTED))
    done = _check("--baseline", "hipport-baseline.json", "legacy.cu")
    assert done.exit_code == 0, done.stdout
    assert "1 in baseline" in done.stderr

    # A second, identical call is new even though its text matches the known one.
    path.write_text("// notes\n" * 10 + _source(UNSUPPORTED, UNSUPPORTED))
    done = _check("--baseline", "hipport-baseline.json", "legacy.cu")
    assert done.exit_code == 1
    assert len(done.stdout.splitlines()) == 1


def test_corrupt_baseline_is_a_usage_error(project):
    (project / "a.cu").write_text(_source())
    (project / "b.json").write_text("{not json")
    done = _check("--baseline", "b.json", "a.cu")
    assert done.exit_code == 2
    assert "b.json: not a hipport baseline file" in done.stderr


def test_json_format_is_the_report(project):
    (project / "a.cu").write_text(_source(UNSUPPORTED))
    done = _check("--format", "json", "a.cu")
    report = json.loads(done.stdout)
    assert report["summary"]["findings_by_code"] == {"HP101": 1}
    assert report["files"][0]["findings"][0]["fingerprint"]
    assert done.exit_code == 1


def test_check_writes_nothing(project):
    source = _source(UNSUPPORTED, "  cudaDeviceSynchronize();\n")
    (project / "a.cu").write_text(source)
    before = sorted(p.name for p in Path(project).iterdir())
    _check("a.cu")
    assert (project / "a.cu").read_text() == source
    assert sorted(p.name for p in Path(project).iterdir()) == before


def test_directories_skip_gitignored_vendored_code(project):
    (project / "src").mkdir()
    (project / "third_party").mkdir()
    (project / "src" / "a.cu").write_text(_source(UNMAPPED))
    (project / "third_party" / "v.cu").write_text(_source(UNSUPPORTED))
    (project / ".gitignore").write_text("third_party/\n")
    done = _check(".")
    assert done.exit_code == 0
    assert [line.split(":")[0] for line in done.stdout.splitlines()] == ["src/a.cu"]
