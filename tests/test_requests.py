"""One frozen request per command (hipport.requests): the CLI and hipport.api pass the same object."""

from __future__ import annotations

import dataclasses

import pytest

from conftest import ROOT
from hipport import api
from hipport.options import Options

SOURCE = ROOT / "fixtures" / "convert" / "01-runtime-memory-api" / "input.cu"


def test_the_api_converts_what_a_request_says_without_printing(tmp_path, rules, capsys):
    out = tmp_path / "out.hip"
    request = api.ConvertRequest(SOURCE, str(out), options=Options(launch_syntax="hip"))
    outcome = api.convert(request, rules)
    assert out.read_bytes() == outcome.results[0].output != SOURCE.read_bytes()
    assert outcome.report["options"]["launch_syntax"] == "hip" and outcome.errors == []
    assert capsys.readouterr() == ("", "")
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.out = "-"  # type: ignore[misc]


@pytest.mark.parametrize(
    "changes, problem",
    [
        ({"out": None}, "give -o OUT"),
        ({"in_place": True}, "exclude each other"),
        ({"options": Options(mode="shim", launch_syntax="hip")}, "--launch-syntax hip does not apply"),
        ({"src": ROOT / "fixtures", "out": "-"}, "cannot be written to stdout"),
    ],
)
def test_a_request_says_which_flags_cannot_go_together(changes, problem):
    request = dataclasses.replace(api.ConvertRequest(SOURCE, "out.hip"), **changes)
    assert problem in (request.problem() or "")
    assert api.ConvertRequest(SOURCE, "out.hip").problem() is None


LINTED = ROOT / "fixtures" / "lints" / "01-hp401-full-mask-fires" / "input.cu"


def test_the_api_checks_without_printing(tmp_path, rules, capsys):
    found = api.check(api.CheckRequest((LINTED,), fail_on="warning"), rules)
    assert found.lines and all(line.startswith(f"{LINTED}:") for line in found.lines)
    assert "HP401" in "".join(found.lines) and found.summary is not None and found.status == 1
    sarif = api.check(api.CheckRequest((LINTED,), fmt="sarif", fail_on="never"), rules)
    assert sarif.lines == [] and '"HP401"' in (sarif.text or "") and sarif.status == 0
    baseline = tmp_path / "baseline.json"
    recorded = api.check(api.CheckRequest((LINTED,), write_baseline=baseline), rules)
    assert recorded.recorded == len(list(found.run.findings())) and baseline.exists()
    known = api.check(api.CheckRequest((LINTED,), baseline=baseline, fail_on="warning"), rules)
    assert known.lines == [] and known.run.baselined == recorded.recorded and known.status == 0
    missing = api.check(api.CheckRequest((tmp_path / "absent.cu",)), rules)
    assert missing.status == 2 and missing.errors and missing.lines == []
    with pytest.raises(api.RequestError, match=r"absent\.json"):
        api.check(api.CheckRequest((LINTED,), baseline=tmp_path / "absent.json"), rules)
    assert capsys.readouterr() == ("", "")


def test_the_api_reports_without_printing(tmp_path, rules, capsys):
    shown = api.report(api.ReportRequest((SOURCE,), fmt="json"), rules)
    assert shown.written is None and shown.errors == [] and shown.status == 0
    assert '"files"' in shown.text and "input.cu" in shown.text
    out = tmp_path / "report.json"
    out.write_text(shown.text, encoding="utf-8")
    again = api.report(api.ReportRequest(from_json=out, fmt="markdown", out=tmp_path / "report.md"), rules)
    assert again.written == tmp_path / "report.md" and (tmp_path / "report.md").read_text() == again.text
    with pytest.raises(api.RequestError):
        api.report(api.ReportRequest((tmp_path / "absent.cu",)), rules)
    assert capsys.readouterr() == ("", "")
