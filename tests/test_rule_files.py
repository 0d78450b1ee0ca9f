"""Rule files: their self-tests, their schema errors, and the generator's output."""
from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import ROOT, options_from_args
from hipport.engine.port import port_source
from hipport.ruleset.loader import builtin_rule_files, load_rules, parse_rule_file
from hipport.ruleset.schema import RuleFileError


def _self_tests():
    return load_rules(use_cache=False).tests


SELF_TESTS = _self_tests()


@pytest.mark.parametrize("test", SELF_TESTS, ids=[f"{t.origin.path}:{t.line}" for t in SELF_TESTS])
def test_rule_self_test(test, rules):
    result = port_source(test.before.encode(), rules, options_from_args(test.args))
    assert result.output.decode() == test.after
    if test.findings:
        assert sorted(f"{f.code}:{f.line}" for f in result.findings) == sorted(test.findings)


def test_every_hand_written_rule_file_carries_self_tests():
    hand_written = [p for p in builtin_rule_files() if p.parent.name != "generated" and p.name != "codes.toml"]
    tested = {t.origin.path for t in SELF_TESTS} | {t.origin for t in load_rules(use_cache=False).build.tests}
    assert {p.name for p in hand_written} <= tested


@pytest.mark.parametrize("text, line, message", [
    ('schema = 1\nrename = [\n  { cuda = "cudaA", hip = "hipA" },\n  { cuda = "cudaB", hp = "hipB" },\n]\n',
     4, "unknown field 'hp'"),
    ('schema = 1\n\n[[rename]]\ncuda = "cudaA"\nhip = "hipA"\n\n[[rename]]\ncuda = "cudaB"\nhp = "x"\n',
     9, "unknown field 'hp'"),
    ('schema = 1\nrename = [\n  { cuda = "cudaA" },\n]\n', 3, "missing required field 'hip'"),
    ('schema = 1\nrename = [\n  { cuda = "cudaA", hip = "hipA", added = "six" },\n]\n', 3, "not a version"),
    ('schema = 1\nheader = [\n  { cuda = "a.h", hip = "../../etc/passwd" },\n]\n', 3, "relative header path"),
    ('schema = 1\nrenames = []\n', 2, "unknown key 'renames'"),
    ('schema = 1\nrename = [\n  { cuda = "cudaA", hip = 3 },\n]\n', 3, "'hip' must be a string"),
    ('schema = 1\nrename = [ { cuda = "x" \n', 2, "invalid TOML"),
])
def test_malformed_rule_file_names_file_and_line(tmp_path, text, line, message):
    path = tmp_path / "x.toml"
    path.write_text(text)
    with pytest.raises(RuleFileError) as info:
        parse_rule_file(path, path.read_bytes())
    assert info.value.line == line, str(info.value)
    assert message in info.value.message
    assert str(info.value).startswith(f"{path}:{line}: ")


def test_cli_reports_bad_user_rule_file_without_traceback(tmp_path):
    bad = tmp_path / "mine.toml"
    bad.write_text('schema = 1\nrename = [\n  { cuda = "myCuda", hp = "x" },\n]\n')
    src = tmp_path / "a.cu"
    src.write_text("int main() {}\n")
    proc = subprocess.run([sys.executable, "-m", "hipport", "convert", str(src), "-o", "-", "--rules", str(bad)],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"hipport: {bad}:3: unknown field 'hp' in rename rule " \
        "(allowed: cuda, hip, kind, section, roc, roc_in, library, note, replacement, older, added, deprecated, changed, removed, " \
        "experimental, cuda_added, cuda_deprecated, cuda_removed)"
    assert "Traceback" not in proc.stderr


def test_user_rule_overrides_builtin(tmp_path):
    mine = tmp_path / "mine.toml"
    mine.write_text('schema = 1\nrename = [\n  { cuda = "cudaMalloc", hip = "myHipMalloc" },\n'
                    '  { cuda = "cudaMyWrapper", hip = "hipMyWrapper" },\n]\n')
    rules = load_rules([mine], use_cache=False)
    out = port_source(b"void f(void** p) { cudaMalloc(p, 4); cudaMyWrapper(); }\n", rules).output
    assert b"myHipMalloc(p, 4)" in out and b"hipMyWrapper()" in out


def test_generated_rules_are_reproducible_from_the_reference(tmp_path):
    reference = ROOT.parent / "shared" / "reference"
    if not (reference / "cuda-hip-mappings.csv").exists():
        pytest.skip("reference CSVs are not beside this checkout")
    subprocess.run([sys.executable, str(ROOT / "tools" / "gen_rules.py"), "--reference", str(reference),
                    "--out", str(tmp_path)], check=True, capture_output=True)
    committed = ROOT / "rules" / "generated"
    # arity-*.toml are gen_arity.py's, rocsparse-arity.toml gen_roc_arity.py's: from headers, not the reference
    from_reference = sorted(p for p in committed.glob("*.toml")
                            if not p.name.startswith("arity-") and p.name != "rocsparse-arity.toml")
    for path in from_reference:
        assert (tmp_path / path.name).read_text() == path.read_text(), f"{path.name} is stale: run make rules"
    assert {p.name for p in tmp_path.glob("*.toml")} == {p.name for p in from_reference}


def _hipify_notice() -> str:
    import importlib.util

    spec = importlib.util.spec_from_file_location("gen_rules", ROOT / "tools" / "gen_rules.py")
    gen_rules = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen_rules)
    return gen_rules.HIPIFY_NOTICE


def test_every_generated_rule_file_carries_hipifys_licence_notice():
    # MIT asks that the copyright and permission notice go with every copy of the data.
    notice = _hipify_notice()
    assert "Copyright (c) 2024 Advanced Micro Devices, Inc." in notice and "Permission is hereby granted" in notice
    commented = "\n".join(f"# {line}".rstrip() for line in notice.splitlines())
    generated = sorted((ROOT / "rules" / "generated").glob("*.toml"))
    assert generated
    for path in generated:
        text = path.read_text(encoding="utf-8")
        header = text[: text.index("\nschema = ")]  # the comment block before the first key
        if "tools/gen_torch_rules.py" in header:  # PyTorch's facts: its notice (tests/test_torch_rules.py)
            continue
        assert commented in header, f"{path.name} lacks HIPIFY's licence notice: run make rules"


def test_the_third_party_notice_holds_hipifys_licence_text():
    notice = _hipify_notice()
    licence = notice[notice.index("Copyright"):]
    assert licence in (ROOT / "THIRD_PARTY_NOTICES.md").read_text(encoding="utf-8")
    assert "MIT License" in (ROOT / "LICENSE").read_text(encoding="utf-8")


def test_every_reference_row_is_a_rule(rules):
    import csv

    reference = ROOT.parent / "shared" / "reference" / "cuda-hip-mappings.csv"
    if not reference.exists():
        pytest.skip("reference CSVs are not beside this checkout")
    with open(reference, newline="") as f:
        rows = list(csv.DictReader(f))
    generated = {path.name for path in (ROOT / "rules" / "generated").glob("*.toml")}
    for row in rows:
        rule = rules.names[row["cuda_name"]]
        if row[rules.target_columns.get(row["library"], "hip_name")]:
            assert rule.hip is not None, row["cuda_name"]
        elif rule.origin.path in generated:  # a hand-written rule may add what the reference lacks (bf16.toml)
            assert rule.hip is None, row["cuda_name"]


def test_cudnn_ports_to_miopen_and_names_without_an_miopen_counterpart_are_unsupported(rules):
    # The reference's HIP column for cuDNN is hipDNN, which ROCm does not ship.
    assert rules.target_columns == {"CUDNN": "roc_name"}
    assert rules.names["cudnnConvolutionForward"].hip == "miopenConvolutionForward"
    assert rules.names["CUDNN_DATA_FLOAT"].hip == "miopenFloat"
    assert rules.names["cudnnSetTensor4dDescriptor"].hip is None  # hipdnnSetTensor4dDescriptor only
    assert not any(r.hip and r.hip.lower().startswith("hipdnn") for r in rules.names.values())


def test_rule_cache_is_rebuilt_when_corrupt(tmp_path, monkeypatch):
    monkeypatch.setenv("HIPPORT_CACHE_DIR", str(tmp_path))
    first = load_rules()
    (cache,) = tmp_path.glob("hipport/rules-*.pickle")
    cache.write_bytes(b"not a pickle")
    again = load_rules()
    assert again.names.keys() == first.names.keys()
    assert cache.read_bytes() != b"not a pickle"


def test_every_finding_code_is_defined_once():
    # The loader keeps the last of two entries with one code, so a clash would pass silently.
    import tomllib

    from hipport.ruleset.loader import builtin_rules_dir

    codes = [e["code"] for e in tomllib.loads((builtin_rules_dir() / "codes.toml").read_text())["code"]]
    assert len(codes) == len(set(codes)), sorted(c for c in codes if codes.count(c) > 1)
