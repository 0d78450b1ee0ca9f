"""The code registry (rules/codes.toml) is the one place codes live: every "HPnnn" literal in hipport's
Python is a code the registry defines, every code has what the docs and reports show, and the tables
Python reads by name (messages, families, sets) name defined codes."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from hipport.ruleset.loader import load_rules

PACKAGE = Path(__file__).resolve().parents[1] / "hipport"
CODE = re.compile(r"HP\d{3}")


@pytest.fixture(scope="module")
def rules():
    return load_rules(use_cache=False)


def code_literals(source: str) -> list[tuple[int, str]]:
    """(line, code) of each string constant that is exactly a code, in one module's source."""
    return [
        (node.lineno, node.value)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and CODE.fullmatch(node.value)
    ]


def test_the_scan_finds_code_literals_and_nothing_else():
    found = code_literals('x = "HP105"\ny = f("HP9999", "HP12", "an HP101 in prose")\nz = ("HP902",)\n')
    assert found == [(1, "HP105"), (3, "HP902")]


def test_every_code_literal_in_python_is_defined(rules):
    unknown, seen = [], set()
    for path in sorted(PACKAGE.rglob("*.py")):
        for line, code in code_literals(path.read_text(encoding="utf-8")):
            seen.add(code)
            if code not in rules.codes:
                unknown.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {code}")
    assert not unknown, "codes that rules/codes.toml does not define:\n" + "\n".join(unknown)
    assert len(seen) > 30  # the scan saw the package (38 distinct codes when this test was written)


def test_every_code_has_severity_message_and_family(rules):
    for code, info in rules.codes.items():
        assert info.severity in ("error", "warning", "info"), code
        assert info.effort in ("high", "medium", "low"), code
        assert info.summary and info.help, f"{code} has no summary or help"
        assert rules.code_tables.family(code) is not None, f"{code} is in no family (rules/codes.toml family)"


def test_the_registry_tables_name_defined_codes(rules):
    tables = rules.code_tables
    named = [code for code, _ in tables.messages] + list(tables.not_ported)
    named += [code for codes in tables.sets.values() for code in codes]
    assert named and not [code for code in named if code not in rules.codes]
    assert {"unsupported", "target_lacks", "port_only"} <= set(tables.sets)


def test_messages_fill_in_their_fields(rules):
    text = rules.code_tables.message("HP904", "wide-encoding", encoding="UTF-16LE")
    assert "UTF-16LE" in text and "{" not in text
    with pytest.raises(KeyError):
        rules.code_tables.message("HP904", "no-such-message")


def test_families_match_first_prefix_first(rules):
    assert rules.code_tables.family("HP102") == "names no rule knows"
    assert rules.code_tables.family("HP101") == "CUDA names"
