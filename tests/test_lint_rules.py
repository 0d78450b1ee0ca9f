"""The [[lint]] and [[rewrite]] rule kinds: schema errors, literal spelling, mask widths, precedence."""
from __future__ import annotations

import pytest

from hipport.options import Options
from hipport.engine.port import port_source
from hipport.ruleset.lintrules import int_value, literal_regex, literal_start_ok
from hipport.ruleset.loader import load_rules, parse_rule_file
from hipport.ruleset.schema import RuleFileError
from hipport.engine.warp import mask_width


@pytest.mark.parametrize("text, line, message", [
    ('schema = 1\n\n[[lint]]\ncode = "HP499"\nmatch = "nearby"\nmessage = "m"\n', 5, "match must be one of"),
    ('schema = 1\n\n[[lint]]\ncode = "HP499"\nmatch = "call-argument"\nnames = ["f"]\nmessage = "m"\n',
     5, "needs 'argument'"),
    ('schema = 1\n\n[[lint]]\ncode = "HP499"\nmatch = "binary-operand"\noperators = ["%32"]\n'
     'operand = "x"\nmessage = "m"\n', 6, "'OP LITERAL' pairs"),
    ('schema = 1\n\n[[lint]]\ncode = "HP499"\nmatch = "name"\npattern = "nv(tx"\nmessage = "m"\n',
     6, "bad regular expression"),
    ('schema = 1\n\n[[lint]]\ncode = "HP499"\nmatch = "shared-array"\nliterals = ["thirty-two"]\n'
     'subscript = "w"\nmessage = "m"\n', 6, "not an integer literal"),
    ('schema = 1\n\n[[rewrite]]\ncuda = "f"\nhip = "f"\nsince = "six"\nmessage = "m"\n', 6, "not a version"),
    ('schema = 1\n\n[[rewrite]]\ncuda = "f"\nhip = "f"\nsince = "6.2"\ndrop_argument = 0\nmessage = "m"\n',
     7, "needs 'older'"),
])
def test_malformed_lint_and_rewrite_rules_name_file_and_line(tmp_path, text, line, message):
    path = tmp_path / "mine.toml"
    path.write_text(text)
    with pytest.raises(RuleFileError) as info:
        parse_rule_file(path, path.read_bytes())
    assert info.value.line == line, str(info.value)
    assert message in info.value.message


@pytest.mark.parametrize("text, value", [
    ("32", 32), ("0x20", 32), ("0X1f", 31), ("31u", 31), ("040", 32), ("0b100000", 32),
    ("0xffffffffU", 0xFFFFFFFF), ("1'000", 1000), ("0xFFFFFFFFFFFFFFFFull", 2**64 - 1), ("3.0", None),
])
def test_int_value_reads_c_integer_literals(text, value):
    assert int_value(text) == value


def test_literal_regex_finds_every_spelling_and_nothing_else():
    regex = literal_regex({31, 32})
    source = b"a % 32; b & 31u; c & 0x1F; d / 0x20; e = 320; f = 1.32; g = x32; h = 32.0f; i = 0x320; j = 132;"
    found = [m.group() for m in regex.finditer(source) if literal_start_ok(source, m.start())]
    assert found == [b"32", b"31u", b"0x1F", b"0x20"]


@pytest.mark.parametrize("text, width", [
    ("0xffffffff", 32), ("0xffffffffu", 32), ("0xffffffffull", 64), ("0xffffffffffffffff", 64),
    ("~0ull", 64), ("~0u", 32), ("-1", 32), ("__activemask()", 64), ("__ballot_sync(m, p)", 64),
    ("(unsigned long long)m", 64), ("FULL", 32), ("WIDE", 64), ("narrow", 32), ("wide", 64),
    ("unknown", None), ("LOOP_A", None),
])
def test_mask_width_reads_the_file(text, width):
    source = (b"#define FULL 0xffffffffu\n#define WIDE (~0ull)\n#define LOOP_A LOOP_B\n#define LOOP_B LOOP_A\n"
              b"__device__ void f(unsigned narrow, unsigned long long wide);\n")
    assert mask_width(text, source) == width


def test_a_user_rename_outranks_the_builtin_rewrite(tmp_path):
    mine = tmp_path / "mine.toml"
    mine.write_text('schema = 1\nrename = [\n  { cuda = "__shfl_down_sync", hip = "my_shfl_down" },\n]\n')
    rules = load_rules([mine], use_cache=False)
    source = b"__device__ float f(float v) { return __shfl_down_sync(0xffffffffffffffffull, v, 1); }\n"
    out = port_source(source, rules, Options(hip_version=(5, 2, 0))).output
    assert b"my_shfl_down(0xffffffffffffffffull, v, 1)" in out


def test_the_rewrite_outranks_the_reference_tables_unsupported_entry(rules):
    assert rules.names["__shfl_down_sync"].hip is None  # the reference CSV has no HIP name
    source = b"__device__ float f(float v) { return __shfl_down_sync(0xffffffffffffffffull, v, 1); }\n"
    result = port_source(source, rules, Options(hip_version=(7, 0, 0)))
    assert result.output.endswith(source) and not result.findings


def test_a_nested_call_inside_a_dropped_mask_is_not_rewritten_twice(rules):
    source = b"__device__ int f(int p) { return __ballot_sync(__ballot_sync(__activemask(), p), p) != 0; }\n"
    result = port_source(source, rules, Options(hip_version=(5, 2, 0), platform="amd"))
    assert b"return __ballot(p) != 0;" in result.output
    assert [f.code for f in result.findings] == ["HP211"]
    # for both platforms the one maskless vote written is also AMD-only, reported once
    both = port_source(source, rules, Options(hip_version=(5, 2, 0)))
    assert both.output == result.output and sorted(f.code for f in both.findings) == ["HP211", "HP441"]
