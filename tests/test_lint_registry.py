"""The lint matchers' registry (hipport/lints/registry.py) and the one parse per file (ParsedFile.syntax)."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import hipport.parse.treesitter as treesitter
from hipport.engine.port import port_source
from hipport.lints import registry
from hipport.lints.matcher import FILE
from hipport.options import Options
from hipport.parse.scan import scan
from hipport.parse.treesitter import TreeSitterBackend
from hipport.ruleset.loader import parse_rule_file
from hipport.ruleset.schema import RuleFileError

ROOT = Path(__file__).resolve().parents[1]
TARGET = Options(hip_version=(5, 2, 0))


def test_an_unknown_matcher_is_a_one_line_error_naming_the_file_and_the_matcher(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text('schema = 1\n\n[[lint]]\ncode = "HP499"\nmatch = "call-argumnet"\nnames = ["f"]\nmessage = "m"\n')
    with pytest.raises(RuleFileError) as info:
        parse_rule_file(path, path.read_bytes())
    shown = str(info.value)
    assert "\n" not in shown
    assert "mine.toml:5" in shown and "'call-argumnet'" in shown
    assert "call-argument" in shown  # what it may be


def test_a_registered_matcher_s_schema_decides_what_a_rule_needs(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text('schema = 1\n\n[[lint]]\ncode = "HP499"\nmatch = "own-overload"\nnames = ["f"]\nmessage = "m"\n')
    with pytest.raises(RuleFileError) as info:
        parse_rule_file(path, path.read_bytes())
    assert "a 'own-overload' lint needs 'types'" in info.value.message
    assert registry.MATCHERS["own-overload"].required == frozenset({"names", "types"})


def test_each_module_registers_one_matcher_under_its_own_name():
    assert len(registry.MATCHERS) == len(registry.NAMES)
    assert all(name == matcher.name for name, matcher in registry.MATCHERS.items())
    modules = {p.stem for p in (ROOT / "hipport" / "lints").glob("*.py")}
    matchers = {p.stem for p in (ROOT / "hipport" / "lints").glob("*.py") if "\nMATCHER = " in p.read_text()}
    assert matchers == {name.replace("-", "_") for name in registry.NAMES} < modules  # none left unregistered
    assert {m.name for m in registry.FILE_MATCHERS} == {n for n, m in registry.MATCHERS.items() if m.trigger == FILE}


def test_every_matcher_a_rule_file_uses_is_registered_and_the_docs_name_them_all(rules):
    used = {lint.match for lint in rules.structural_lints}
    assert used <= set(registry.MATCHERS)
    listed = set(re.findall(r"`([a-z]+(?:-[a-z]+)*)`", (ROOT / "docs" / "rules.md").read_text()))
    assert set(registry.MATCHERS) <= listed


def _counting_parser(monkeypatch) -> list[int]:
    """Count the whole-file parses of the tree-sitter grammar, through any import of its parser."""
    calls: list[int] = []
    real = treesitter.grammar._parser()

    class Counting:
        language = real.language

        def parse(self, data, *args, **kwargs):
            calls.append(len(data))
            return real.parse(data, *args, **kwargs)

    monkeypatch.setattr(treesitter.grammar, "_parser", Counting)
    monkeypatch.setattr(treesitter, "_parser", Counting)
    return calls


# One file that each of the three readers of the whole tree works on: a free operator on a vector
# type (vector-operator), its own atomicMax for float (own-overload), and an overload pair that
# cudaError_t and CUresult collapse into one function (engine/collapse).
THREE_READERS = b"""#include <cuda.h>
#include <cuda_runtime.h>

__device__ float atomicMax(float *address, float value) {
    return value;
}

inline __host__ __device__ void operator+=(float4 &a, float4 b) {
    a.x += b.x; a.y += b.y; a.z += b.z; a.w += b.w;
}

void check(cudaError_t e) { (void)e; }
void check(CUresult e) { (void)e; }
"""


def test_a_file_is_parsed_once_though_three_steps_read_its_whole_tree(rules, monkeypatch):
    calls = _counting_parser(monkeypatch)
    found = {f.code for f in port_source(THREE_READERS, rules, TARGET).findings}
    assert {"HP434", "HP437"} <= found and found & {"HP431", "HP432"}  # all three read the tree
    assert len(calls) == 1


def test_a_file_parsed_in_chunks_builds_its_whole_tree_once_and_only_when_asked(rules, monkeypatch):
    source = THREE_READERS * 3
    candidates = scan(source, rules.is_interesting, rules.lint_index, rules.scan_memo)
    parsed = TreeSitterBackend(chunk_above=100, chunk_bytes=200).parse(source, candidates, rules.markers)
    calls = _counting_parser(monkeypatch)
    assert calls == []
    root = parsed.syntax.root()
    assert parsed.syntax.root() is root and len(calls) == 1
    assert root.end_byte >= len(source)


def test_no_module_outside_the_tree_sitter_backend_reaches_for_its_parser():
    backend = ROOT / "hipport" / "parse" / "treesitter"
    offenders = []
    for path in sorted((ROOT / "hipport").rglob("*.py")):
        if backend in path.parents:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            named = (
                isinstance(node, ast.ImportFrom) and any(alias.name == "_parser" for alias in node.names)
            ) or (isinstance(node, ast.Attribute) and node.attr == "_parser")
            if named:
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []


def test_under_the_clang_parser_the_three_readers_use_the_backend_s_tree_too(rules, monkeypatch, tmp_path):
    from hipport import api
    from hipport.parse.clang.env import find_cuda, find_resource_dir, libclang_problem

    if libclang_problem() is not None or find_cuda() is None or find_resource_dir() is None:
        pytest.skip("the clang backend cannot run here")
    path = tmp_path / "three.cu"
    path.write_bytes(THREE_READERS)
    calls = _counting_parser(monkeypatch)
    result = api.port_file(path, rules, Options(parser="clang", hip_version=(5, 2, 0)))
    assert {"HP434", "HP437"} <= {f.code for f in result.findings}
    assert len(calls) == 1  # the tree-sitter parse the clang backend refines; no second one
