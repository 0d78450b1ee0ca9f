"""The run step's parts that need no compiler: output comparison, bridging, program discovery, setup errors."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from hipport.cli import main
from hipport.options import Options
from hipport.run.bridge import bridge_source
from hipport.run.compare import difference
from hipport.run.programs import find_programs
from hipport.run.runtime import ENV_VAR, RunSetupError, find_runtime

AVAILABLE = frozenset({"hip/hip_runtime.h", "hip/hip_cooperative_groups.h"})


def test_numbers_agree_within_the_tolerance_and_words_exactly():
    assert difference("sum = 1.0000001 ok\n", "sum = 1.0 ok") is None
    assert difference("count = 88 (expected 71)", "count = 71 (expected 71)") == \
        "token 3: '88' where the reference has '71'"
    assert difference("sum = 1.01", "sum = 1.0", rel_tol=0.02) is None
    assert difference("sum = 1.01", "sum = 1.0", rel_tol=0.001) is not None
    assert difference("PASSED", "FAILED") is not None
    assert difference("a 1 2", "a 1") == "3 tokens where the reference has 2"
    assert difference("x=nan", "x=nan") is None


def test_what_the_references_own_two_runs_disagree_on_is_not_compared():
    # a timing differs between two runs of the same original: the port's timing is not held against it
    original, again = "sum = 42 in 3.1 ms", "sum = 42 in 2.7 ms"
    assert difference("sum = 42 in 9.9 ms", original, reference_again=again) is None
    # what the original's runs agree on still is compared
    assert difference("sum = 41 in 9.9 ms", original, reference_again=again) == "token 3: '41' where the reference has '42'"
    assert difference("sum = 42 in 9.9 ms", original) is not None
    # runs of different length cannot be lined up: nothing is masked, and the detail says why
    varies = difference("sum = 41 in 1 ms", original, reference_again="sum = 42 in 2.7 ms and retried")
    assert varies is not None and "nondeterministic" in varies


def test_what_the_ports_own_two_runs_disagree_on_is_not_compared_either():
    # the original printed the same bandwidth twice by chance; the port's two runs show it varies
    original = "copy 3973.30 GB/s, sum 42"
    port, port_again = "copy 3980.57 GB/s, sum 42", "copy 3968.11 GB/s, sum 42"
    assert difference(port, original, reference_again=original) is not None
    assert difference(port, original, reference_again=original, actual_again=port_again) is None
    # a result that the port computes wrongly every time is still a difference
    assert difference("copy 1 GB/s, sum 41", original, reference_again=original,
                      actual_again="copy 2 GB/s, sum 41") == "token 5: '41' where the reference has '42'"


def test_the_same_lines_in_another_order_are_told_apart_from_other_output():
    from hipport.run.compare import same_lines_reordered

    assert same_lines_reordered("[1] v=10\n[0] v=10\n", "[0] v=10\n[1] v=10\n")
    assert not same_lines_reordered("[1] v=10\n[0] v=11\n", "[0] v=10\n[1] v=10\n")
    assert not same_lines_reordered("[0] v=10\n", "[0] v=10\n")  # not reordered: identical


def test_bridge_rewrites_launches_and_dynamic_shared_arrays(rules):
    source = (b"#include <hip/hip_runtime.h>\n"
              b"__global__ void k(float* o) {\n"
              b"    extern __shared__ __align__(16) unsigned char raw[];\n"
              b"    extern __shared__ float smem[];\n"
              b"    o[0] = smem[0] + raw[0];\n}\n"
              b"void f(float* o) { k<<<2, 64, 256>>>(o); }\n")
    bridged = bridge_source(source, rules, Options(), AVAILABLE)
    assert b"HIP_DYNAMIC_SHARED(unsigned char, raw)" in bridged.source
    assert b"HIP_DYNAMIC_SHARED(float, smem)" in bridged.source
    assert b"hipLaunchKernelGGL(k, dim3(2), dim3(64), 256, 0, o);" in bridged.source
    assert bridged.missing == []


def test_bridge_leaves_file_scope_arrays_comments_and_strings(rules):
    source = (b"#include <hip/hip_runtime.h>\n"
              b"extern __shared__ float at_file_scope[];\n"
              b"// extern __shared__ float in_a_comment[];\n"
              b"const char* s = \"k<<<1, 1>>>()\";\n")
    bridged = bridge_source(source, rules, Options(), AVAILABLE)
    assert bridged.source == source
    assert any("file scope" in change for change in bridged.changes)


def test_library_headers_the_runtime_lacks_are_reported(rules):
    source = (b"#include <hip/hip_runtime.h>\n#include <hipblas/hipblas.h>\n"
              b"#include \"rocrand_like.h\"\n#include <vector>\n")
    assert bridge_source(source, rules, Options(), AVAILABLE).missing == ["hipblas/hipblas.h"]


def test_a_folder_with_one_main_is_one_program_and_with_several_one_each(tmp_path):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "main.hip").write_text("int main() { return helper(); }\n")
    (tmp_path / "app" / "helper.cpp").write_text("int helper() { return 0; }\n")
    (tmp_path / "samples").mkdir()
    for name in ("a.hip", "b.hip"):
        (tmp_path / "samples" / name).write_text("int main(int argc, char** argv) { return 0; }\n")
    (tmp_path / "samples" / "README.md").write_text("int main() {}\n")
    found = {p.name: [u.as_posix() for u in p.units] for p in find_programs(tmp_path)}
    assert found == {"app/main.hip": ["app/main.hip", "app/helper.cpp"],
                     "samples/a.hip": ["samples/a.hip"], "samples/b.hip": ["samples/b.hip"]}


def test_the_runtime_comes_from_the_option_then_the_environment_then_the_config(tmp_path, monkeypatch):
    good = tmp_path / "HIP-CPU"
    (good / "include" / "hip").mkdir(parents=True)
    (good / "include" / "hip" / "hip_runtime.h").write_text("")
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert find_runtime(None, good) == good
    monkeypatch.setenv(ENV_VAR, str(good))
    assert find_runtime(None, tmp_path / "elsewhere") == good
    with pytest.raises(RunSetupError, match="--hip-cpu: .* is not a HIP CPU Runtime checkout"):
        find_runtime(tmp_path, good)
    monkeypatch.delenv(ENV_VAR)
    with pytest.raises(RunSetupError, match="git clone https://github.com/ROCm/HIP-CPU"):
        find_runtime(None, None)


def test_cli_without_a_runtime_says_where_to_get_one(tmp_path, monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.chdir(tmp_path)  # no pyproject.toml with hip-cpu above
    (tmp_path / "prog.hip").write_text("int main() { return 0; }\n")
    result = CliRunner().invoke(main, ["verify", str(tmp_path), "--run"])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "ROCm/HIP-CPU" in result.output


def test_cli_reads_hip_cpu_from_the_project_config(tmp_path, monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    (tmp_path / "pyproject.toml").write_text('[tool.hipport]\nhip-cpu = "vendor/HIP-CPU"\n')
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["verify", str(tmp_path), "--run"])
    assert result.exit_code == 2
    assert f"[tool.hipport] hip-cpu: {Path(tmp_path, 'vendor', 'HIP-CPU')} is not" in result.output


def test_compare_runs_the_reference_command_for_each_program(tmp_path):
    from hipport.run.execute import RunSettings, _compare
    from hipport.run.programs import Program

    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "expected-main.txt").write_text("sum = 3.0000001\n")
    program = Program("app/main.hip", (Path("app/main.hip"),))
    settings = RunSettings(compare="cat {dir}/expected-{stem}.txt")
    assert _compare(program, tmp_path, "sum = 3.0\n", settings) is None
    assert _compare(program, tmp_path, "sum = 3.1\n", settings) == \
        "output differs from the reference: token 3: '3.1' where the reference has '3.0000001'"
    failing = RunSettings(compare="exit 3")
    assert _compare(program, tmp_path, "", failing) == "the reference command failed (exit status 3): exit 3"


def test_convert_fix_warp_size_on_the_command_line_says_what_it_changed(tmp_path):
    case = Path(__file__).resolve().parents[1] / "fixtures" / "convert" / "74-fix-warp-size"
    out = tmp_path / "out.hip"
    result = CliRunner().invoke(main, ["convert", str(case / "input.cu"), "-o", str(out), "--hip-version", "5.2",
                                       "--fix-warp-size", "--no-cache"])
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == (case / "expected.hip").read_bytes()
    assert "HP402" in result.output and "(--fix-warp-size: 'unsigned' became 'unsigned long long')" in result.output
    plain = CliRunner().invoke(main, ["convert", str(case / "input.cu"), "-o", "-", "--hip-version", "5.2"])
    assert "unsigned mask = __ballot(" in plain.output and "(--fix-warp-size" not in plain.output


def test_a_compile_database_gives_macros_and_include_paths_inside_the_port(tmp_path):
    import json

    from hipport.toolchain.compdb import load
    from hipport.run.execute import _database_flags
    from hipport.run.programs import Program

    port = tmp_path / "port"
    (port / "app" / "include").mkdir(parents=True)
    (port / "app" / "main.hip").write_text("int main() { return FOO - 1; }\n")
    database = tmp_path / "compile_commands.json"
    database.write_text(json.dumps([{
        "directory": str(tmp_path), "file": str(port / "app" / "main.hip"),
        "command": f"hipcc -DFOO=1 -I{port / 'app' / 'include'} -I/usr/local/cuda/include -c "
                   f"{port / 'app' / 'main.hip'}"}]))
    program = Program("app/main.hip", (Path("app/main.hip"),))
    copy = tmp_path / "copy"
    assert _database_flags(program, port, copy, load(database)) == ["-DFOO=1", f"-I{copy / 'app' / 'include'}"]
