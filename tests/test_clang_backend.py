"""The precise parser backend (--parser clang): against tree-sitter, its fixtures and hipcc.

fixtures/clang/<case>/ holds a small project (src/), the clang backend's port of
it (expected/), and, for the files where tree-sitter cannot know better, tree-
sitter's port (expected-treesitter/). compile_commands.json.in is the case's
compile database, with @ROOT@ for the case directory.
"""
from __future__ import annotations

import dataclasses
import shutil
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import CASES, ROOT
from hipport import api
from hipport.cli import main
from hipport.options import Options
from hipport.parse import make_backend
from hipport.parse.clang.env import find_cuda, find_resource_dir, libclang_problem
from hipport.toolchain.compdb import CompileDatabaseError, load, translate
from hipport.parse.scan import scan
from hipport.parse.sites import ParsedFile, PastedNameSite
from hipport.parse.treesitter import TreeSitterBackend
from hipport.engine.port import port_source
from hipport.engine.pasting import pasted_piece
from hipport.verify import compile_check, find_hipcc

CLANG_FIXTURES = ROOT / "fixtures" / "clang"


def _unusable() -> str | None:
    problem = libclang_problem()
    if problem is not None:
        return problem
    if find_cuda() is None:
        return "no CUDA installation (CUDA_PATH, CUDA_HOME or /usr/local/cuda) for clang's CUDA mode"
    if find_resource_dir() is None:
        return "no clang resource directory with CUDA wrappers (apt-get install libclang-common-16-dev)"
    return None


UNUSABLE = _unusable()
needs_clang = pytest.mark.skipif(UNUSABLE is not None, reason=f"the clang backend cannot run here: {UNUSABLE}")


@dataclass
class ClangCase:
    name: str
    directory: Path
    compile: list[str]
    defines: list[str]  # for the hipcc compile, as the build would give them
    findings: list[str]
    treesitter_differs: list[str]

    def sources(self) -> list[tuple[str, Path]]:
        src = self.directory / "src"
        return [(p.relative_to(src).as_posix(), p) for p in sorted(src.rglob("*")) if p.is_file()]


def _load_cases() -> list[ClangCase]:
    cases = []
    for directory in sorted(p for p in CLANG_FIXTURES.iterdir() if (p / "case.toml").is_file()):
        meta = tomllib.loads((directory / "case.toml").read_text(encoding="utf-8"))
        cases.append(ClangCase(directory.name, directory, meta["compile"], meta.get("defines", []),
                               meta["findings"], meta["treesitter_differs"]))
    return cases


CLANG_CASES = _load_cases()
# Codes about reading names; other helpers' lints (HP4xx, ...) are not this backend's concern.
NAME_CODES = ("HP1", "HP9")


def _options(case: ClangCase, parser: str, tmp_path: Path) -> Options:
    options = Options(parser=parser)
    template = case.directory / "compile_commands.json.in"
    if parser == "clang" and template.is_file():
        database = tmp_path / "compile_commands.json"
        database.write_text(template.read_text().replace("@ROOT@", str(case.directory)))
        options = dataclasses.replace(options, compile_commands=database)
    return options


def _port_case(case: ClangCase, parser: str, rules, tmp_path: Path) -> dict:
    options = _options(case, parser, tmp_path)
    return {rel: api.port_file(path, rules, options, display=rel) for rel, path in case.sources()}


def _write_tree(results: dict, out: Path) -> Path:
    for rel, result in results.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_bytes(result.output)
    return out


def _compile_all(out: Path, case: ClangCase):
    include_dirs = tuple(sorted({p.parent for p in out.rglob("*") if p.is_file()}))
    return {rel: compile_check(out / rel, include_dirs=include_dirs, defines=tuple(case.defines))
            for rel in case.compile}


@pytest.fixture(scope="module")
def hipcc():
    path = find_hipcc()
    if path is None:
        pytest.fail("hipcc not found; `make test` installs it")
    return path


# -- the clang fixtures ------------------------------------------------------------------


@needs_clang
@pytest.mark.parametrize("case", CLANG_CASES, ids=[c.name for c in CLANG_CASES])
def test_clang_port_matches_expected(case, rules, tmp_path):
    results = _port_case(case, "clang", rules, tmp_path)
    for rel, result in results.items():
        assert result.output == (case.directory / "expected" / rel).read_bytes(), rel
    findings = sorted(f"{rel}:{f.code}:{f.line}" for rel, r in results.items() for f in r.findings
                      if f.code.startswith(NAME_CODES))
    assert findings == sorted(case.findings)


@pytest.mark.parametrize("case", CLANG_CASES, ids=[c.name for c in CLANG_CASES])
def test_treesitter_differs_only_where_the_case_says(case, rules, tmp_path):
    # tree-sitter reads one file at a time: it cannot see a header's declarations
    # from the file that uses them, nor the names ## assembles.
    results = _port_case(case, "treesitter", rules, tmp_path)
    for rel, result in results.items():
        folder = "expected-treesitter" if rel in case.treesitter_differs else "expected"
        assert result.output == (case.directory / folder / rel).read_bytes(), rel
    for rel in case.treesitter_differs:
        assert (case.directory / "expected-treesitter" / rel).read_bytes() != \
            (case.directory / "expected" / rel).read_bytes(), f"{rel} is listed as differing but does not"


@needs_clang
@pytest.mark.hipcc
@pytest.mark.parametrize("case", [c for c in CLANG_CASES if c.compile],
                         ids=[c.name for c in CLANG_CASES if c.compile])
def test_clang_port_compiles_with_hipcc(case, rules, tmp_path, hipcc):
    out = _write_tree(_port_case(case, "clang", rules, tmp_path), tmp_path / "clang-out")
    for rel, result in _compile_all(out, case).items():
        assert result.ok, f"{rel}: {result.output}"


@pytest.mark.hipcc
@pytest.mark.parametrize("case", [c for c in CLANG_CASES if c.treesitter_differs],
                         ids=[c.name for c in CLANG_CASES if c.treesitter_differs])
def test_treesitter_port_of_the_improvement_cases_does_not_compile(case, rules, tmp_path, hipcc):
    # What makes the clang port's difference an improvement, not a matter of taste.
    out = _write_tree(_port_case(case, "treesitter", rules, tmp_path), tmp_path / "ts-out")
    results = _compile_all(out, case)
    assert not all(r.ok for r in results.values())


@needs_clang
def test_a_fatal_error_falls_back_to_treesitter_with_the_reason(rules, tmp_path):
    case = next(c for c in CLANG_CASES if c.name == "missing-header")
    result = _port_case(case, "clang", rules, tmp_path)["main.cu"]
    notes = [f for f in result.findings if f.code == "HP903"]
    assert len(notes) == 1
    assert notes[0].severity.value == "info" and notes[0].line == 1
    assert notes[0].message == ("precise parse failed: main.cu:2: 'build_info.h' file not found; "
                                "ported with tree-sitter")


@needs_clang
def test_headers_are_ported_through_the_units_that_include_them_once(rules, tmp_path):
    case = next(c for c in CLANG_CASES if c.name == "nvcc-database")
    options = _options(case, "clang", tmp_path)
    session = make_backend(options)
    for rel, path in case.sources():
        result = api.port_file(path, rules, options, display=rel)
        assert not [f for f in result.findings if f.code == "HP903"], rel
    # Two units, each parsed once: the header was not parsed on its own, although
    # it was asked for first; both units' facts about it were merged.
    assert session.stats.units == 2 and session.stats.failed == 0
    header = str((case.directory / "src/include/field.cuh").resolve())
    assert session.owner[header] in {str(p.resolve()) for _, p in case.sources() if p.suffix == ".cu"}
    # __ldg sits under __CUDA_ARCH__: only the device pass sees it.
    data = Path(header).read_bytes()
    assert session.facts[header].kinds[data.index(b"__ldg")] == {"toolkit"}


@needs_clang
def test_user_declared_cuda_name_in_a_host_header_is_not_rewritten(rules, tmp_path):
    # A CPU build's stand-in for the runtime, in another header: clang knows
    # cudaMalloc is the project's; tree-sitter, reading main.cpp alone, cannot.
    (tmp_path / "cpu_runtime.h").write_text(
        "#pragma once\n#include <cstdlib>\n"
        "inline int cudaMalloc(void **p, std::size_t n) { *p = std::malloc(n); return 0; }\n")
    main_cpp = tmp_path / "main.cpp"
    main_cpp.write_text('#include "cpu_runtime.h"\nint main() { void *p; return cudaMalloc(&p, 16); }\n')
    clang = api.port_file(main_cpp, rules, Options(parser="clang"))
    treesitter = api.port_file(main_cpp, rules, Options(parser="treesitter"))
    assert not clang.findings and clang.output == main_cpp.read_bytes()
    assert b"hipMalloc(&p, 16)" in treesitter.output


# -- the same sites as tree-sitter where both read the same --------------------------------

# Fixtures whose headers all exist here (CUDA 13 without the math libraries).
PLAIN = [c for c in CASES if c.name.split("-", 1)[0] in
         {"01", "02", "07", "08", "12", "13", "14", "15", "18", "23", "36", "37", "57"}]


def _sites(parsed: ParsedFile) -> list[tuple]:
    return [(s.start, s.end, s.name, s.role, s.arguments, s.in_macro_body) for s in parsed.names]


@needs_clang
@pytest.mark.parametrize("case", PLAIN, ids=[c.name for c in PLAIN])
def test_same_sites_as_treesitter_on_plain_code(case, rules):
    source = case.input.read_bytes()
    candidates = scan(source, rules.is_interesting)
    treesitter = TreeSitterBackend().parse(source, candidates, rules.markers)
    clang = make_backend(Options(parser="clang")).for_file(case.input).parse(source, candidates, rules.markers)
    assert clang.notes == []  # parsed precisely, no fallback
    assert _sites(clang) == _sites(treesitter)
    assert clang.includes == treesitter.includes and clang.launches == treesitter.launches


@needs_clang
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_convert_fixture_ports_identically_under_clang(case, rules):
    options = dataclasses.replace(case.options(), parser="clang")
    clang = api.port_file(case.input, rules, options, display=case.input.name)
    assert clang.output == case.expected.read_bytes()
    fallbacks = [f.message for f in clang.findings if f.code == "HP903"]
    assert all("file not found" in m for m in fallbacks), fallbacks  # only headers this machine lacks
    got = sorted(f"{f.code}:{f.line}" for f in clang.findings if f.code != "HP903")
    assert got == sorted(case.findings)


# -- names assembled by ## ----------------------------------------------------------------


def test_a_pasted_piece_is_rewritten_only_when_every_name_agrees(rules):
    agree = PastedNameSite(0, 4, "cuda", "RT", ("cudaFree", "cudaMalloc"))
    assert pasted_piece(agree, rules) == "hip"
    # cuMemAlloc -> hipMalloc: 'cu' cannot become anything that also makes hipInit.
    disagree = PastedNameSite(0, 2, "cu", "DRV", ("cuInit", "cuMemAlloc"))
    assert pasted_piece(disagree, rules) is None


class _FixedBackend:
    def __init__(self, parsed: ParsedFile) -> None:
        self.parsed = parsed

    def parse(self, source, candidates, markers):
        return self.parsed


def test_the_engine_reports_a_pasted_name_it_cannot_rewrite(rules):
    # cudaFree makes the file worth parsing: files without candidates never reach a backend.
    source = b"#define DRV(fn) cu##fn\nvoid f() { DRV(Init)(0); cudaFree(0); }\n"
    start = source.index(b"cu##")
    parsed = ParsedFile(pasted=[PastedNameSite(start, start + 2, "cu", "DRV", ("cuInit", "cuMemAlloc"))])
    result = port_source(source, rules, backend=_FixedBackend(parsed))
    assert result.output == source  # the fixed backend reports no name sites: only the pasted one
    assert [(f.code, f.line) for f in result.findings] == [("HP105", 1)]
    assert "cuInit, cuMemAlloc" in result.findings[0].message


# -- the compile database -------------------------------------------------------------------


def test_nvcc_flags_are_translated_to_clang_cuda_flags():
    argv = ["/usr/local/cuda/bin/nvcc", "-forward-unknown-to-host-compiler", "-DFIELD_BLOCK=256", "-I../include",
            "-isystem", "/opt/lib/include", "-O3", "-std=c++17",
            "--generate-code=arch=compute_80,code=[compute_80,sm_80]", "-gencode", "arch=compute_90,code=sm_90",
            "-Xcompiler", "-fPIC", "-Xcompiler=-Wall", "--expt-relaxed-constexpr", "--extended-lambda",
            "-lineinfo", "-rdc=true", "-G", "-x", "cu", "-c", "/src/a.cu", "-o", "a.o"]
    flags, archs = translate(argv, Path("/build"), Path("/src/a.cu"))
    assert flags == ["-DFIELD_BLOCK=256", "-I", "/include", "-isystem", "/opt/lib/include", "-std=c++17"]
    assert archs == ["sm_80", "sm_90"]


def test_gcc_flags_keep_their_values_and_lose_the_rest():
    argv = ["g++", "-Werror", "-Iinc", "-D", "N=3", "-include", "pre.h", "-MF", "deps.d", "-c", "a.cpp", "-o", "a.o"]
    flags, archs = translate(argv, Path("/b"), Path("/b/a.cpp"))
    assert flags == ["-I", "/b/inc", "-DN=3", "-include", "/b/pre.h"] and archs == []


def test_cmake_options_files_are_read(tmp_path):
    (tmp_path / "includes_CUDA.rsp").write_text('-I"/project/include" -I/project/gen\n')
    argv = ["nvcc", "--options-file", "includes_CUDA.rsp", "-x", "cu", "-c", "/p/a.cu"]
    flags, _ = translate(argv, tmp_path, Path("/p/a.cu"))
    assert flags == ["-I", "/project/include", "-I", "/project/gen"]


def test_database_entries_resolve_relative_paths(tmp_path):
    (tmp_path / "compile_commands.json").write_text(
        '[{"directory": "build", "arguments": ["nvcc", "-x", "cu", "-c", "../src/a.cu"], "file": "../src/a.cu"}]')
    entries = load(tmp_path)  # a build directory is accepted for its compile_commands.json
    (path, entry), = entries.items()
    assert path == (tmp_path / "src" / "a.cu").resolve() and entry.language == "cuda"


@pytest.mark.parametrize("text, message", [
    ("{", "not valid JSON"),
    ('{"file": "a.cu"}', "expected a JSON array"),
    ('[{"file": "a.cu", "directory": "/"}]', "entry 1: needs 'arguments'"),
])
def test_a_bad_database_is_one_line(tmp_path, text, message):
    database = tmp_path / "compile_commands.json"
    database.write_text(text)
    with pytest.raises(CompileDatabaseError, match=message) as info:
        load(database)
    assert str(info.value).startswith(str(database)) and "\n" not in str(info.value)


# -- the command line -------------------------------------------------------------------------


@pytest.mark.parametrize("args, message", [
    (["--parser", "treesitter", "-p", "x.json"], "need --parser clang or auto"),
    (["-p", "missing/compile_commands.json"], "cannot read"),
    (["--parser", "clang", "--cuda-path", "/nonexistent"], "no include/cuda_runtime.h there"),
])
def test_cli_rejects_unusable_parser_settings_in_one_line(tmp_path, args, message):
    (tmp_path / "k.cu").write_text("int main() {}\n")
    result = CliRunner().invoke(main, ["convert", str(tmp_path / "k.cu"), "-o", "-", *args])
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output


@needs_clang
@pytest.mark.hipcc
def test_a_cmake_project_ports_with_its_compile_database(rules, tmp_path, hipcc):
    cmake, nvcc = shutil.which("cmake"), find_cuda() and find_cuda() / "bin" / "nvcc"
    if cmake is None or nvcc is None or not nvcc.exists():
        pytest.skip("needs cmake and nvcc to configure a CUDA project")
    project, build = CLANG_FIXTURES / "cmake-project", tmp_path / "build"
    configure = subprocess.run([cmake, "-S", str(project), "-B", str(build), "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
                                f"-DCMAKE_CUDA_COMPILER={nvcc}"], capture_output=True, text=True)
    assert configure.returncode == 0, configure.stdout + configure.stderr
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["convert", str(project), "-o", str(out), "-p", str(build),
                                       "--report", str(tmp_path / "report.json")])
    assert result.exit_code == 0, result.output
    assert "HP903" not in result.output  # every unit parsed precisely
    assert '"parser": "clang"' in (tmp_path / "report.json").read_text()
    include_dirs = (out / "include",)
    for unit in ("src/main.cu", "src/vecops.cu"):
        assert b"cuda" not in (out / unit).read_bytes().replace(b"vecops.cuh", b"")
        compiled = compile_check(out / unit, include_dirs=include_dirs, defines=("VECOPS_BLOCK=256",))
        assert compiled.ok, compiled.output


def test_auto_is_treesitter_without_a_database(rules):
    assert Options().parser_in_use == "treesitter"
    assert Options(compile_commands=Path("build")).parser_in_use == "clang"
    assert "parser" not in Options().describe(rules.newest_hip)  # reports of tree-sitter runs are unchanged
    assert Options(parser="clang").describe(rules.newest_hip)["parser"] == "clang"
