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
