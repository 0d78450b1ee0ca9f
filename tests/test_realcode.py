"""bench/realcode.py's own logic, without the corpus or hipcc: baseline comparison, version, staging."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import realcode  # noqa: E402  (bench/ is scripts, not a package)


def results(**verdicts: str) -> dict:
    return {"units": {unit.replace("_", "/"): {"verdict": v} for unit, v in verdicts.items()}}


def test_a_unit_that_compiled_in_the_baseline_and_fails_now_is_a_regression():
    baseline = results(a_x="ok", b_y="port-fault", c_z="ok", d_w="ok")
    now = results(a_x="port-fault", b_y="ok", c_z="ok")  # d/w is no longer a unit at all
    assert realcode.regressions(now, baseline) == ["a/x", "d/w"]
    assert realcode.improvements(now, baseline) == ["b/y"]
    assert realcode.regressions(baseline, baseline) == []


def test_the_hip_version_comes_from_hipconfig(tmp_path):
    fake = tmp_path / "hipconfig"
    fake.write_text("#!/bin/sh\nprintf '6.1.40091-a8dbc0c19'\n")
    fake.chmod(0o755)
    assert realcode.installed_hip_version(str(fake)) == "6.1"
    fake.write_text("#!/bin/sh\necho nonsense\n")
    with pytest.raises(realcode.HarnessError, match="not a version"):
        realcode.installed_hip_version(str(fake))
    with pytest.raises(realcode.HarnessError):
        realcode.installed_hip_version(str(tmp_path / "missing"))


def test_staging_keeps_the_corpus_layout_and_names_a_missing_sample(tmp_path):
    corpus = tmp_path / "corpus"
    for rel in ("Common/h.h", "Samples/a/a.cu", "Samples/b/b.cu"):
        (corpus / rel).parent.mkdir(parents=True, exist_ok=True)
        (corpus / rel).write_text("//\n")
    staged = realcode.stage(corpus, ["Samples/a"], ["Common"], tmp_path / "staged")
    assert sorted(p.relative_to(staged).as_posix() for p in staged.rglob("*") if p.is_file()) == \
        ["Common/h.h", "Samples/a/a.cu"]
    with pytest.raises(realcode.HarnessError, match="Samples/c"):
        realcode.stage(corpus, ["Samples/c"], ["Common"], tmp_path / "staged")


def test_the_63_target_ports_by_default_and_verifies_against_hip_amd(tmp_path, monkeypatch):
    calls = []

    def fake_hipport(*args, capture=True):
        calls.append(args)
        if args[0] == "convert":
            report = Path(args[args.index("--report") + 1])
            report.write_text('{"summary": {}, "files": []}')
        if args[0] == "verify":
            Path(args[args.index("--json") + 1]).write_text('{"summary": {}, "units": []}')
        return type("Done", (), {"returncode": 0, "stdout": "", "stderr": ""})()

    monkeypatch.setattr(realcode, "hipport", fake_hipport)
    monkeypatch.setattr(realcode, "hip_amd", lambda: tmp_path / "HIP-amd")
    monkeypatch.setattr(realcode, "convert_takes_include_dirs", lambda: False)
    results = realcode.run(tmp_path, [], tmp_path / "work", nvidia_column=False, target="6.3")
    convert = next(c for c in calls if c[0] == "convert")
    verify = next(c for c in calls if c[0] == "verify")
    assert "--hip-version" not in convert
    assert verify[verify.index("--hip-path") + 1] == str(tmp_path / "HIP-amd")
    assert results["target"] == "6.3" and results["hip_version"] == "6.3"
