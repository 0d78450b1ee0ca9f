"""Project headers are followed the way the compiler looks them up: "quoted" ones from the
including file's directory and then the include directories, <angled> ones in the include
directories only (the tree root, --include-dir, a compile database's -I inside the root)."""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from hipport.cli import main
from hipport.project import ProjectHeaders, include_names, project_include_dirs

CHECK_H = b'#pragma once\n#define CUDA_CHECK(call) do { (void)(call); } while (0)\n'
MAIN_CU = b'#include <cuda_runtime.h>\n#include <util/check.h>\nint main() { float *p; CUDA_CHECK(cudaMalloc(&p, 4)); }\n'


def _project(tmp_path: Path) -> Path:
    (tmp_path / "proj" / "include" / "util").mkdir(parents=True)
    (tmp_path / "proj" / "src").mkdir()
    (tmp_path / "proj" / "include" / "util" / "check.h").write_bytes(CHECK_H)
    (tmp_path / "proj" / "src" / "main.cu").write_bytes(MAIN_CU)
    return tmp_path / "proj"


def test_include_names_keep_the_delimiters_apart():
    assert include_names(b'#include "a.h"\n#  include <b/c.h>\n// #include "no.h" is a comment on its own line\n') \
        == ("a.h", "<b/c.h>")


def test_angled_includes_are_found_in_include_dirs_only(tmp_path):
    project = _project(tmp_path)
    main_cu = project / "src" / "main.cu"
    assert "CUDA_CHECK" not in ProjectHeaders().macros_visible_in(main_cu, MAIN_CU)
    assert "CUDA_CHECK" in ProjectHeaders((project / "include",)).macros_visible_in(main_cu, MAIN_CU)
    # an angled include is not looked up beside the including file, as the compiler does not
    (project / "src" / "util").mkdir()
    (project / "src" / "util" / "check.h").write_bytes(CHECK_H)
    assert "CUDA_CHECK" not in ProjectHeaders().macros_visible_in(main_cu, MAIN_CU)


def test_a_quoted_include_falls_back_to_the_include_dirs(tmp_path):
    project = _project(tmp_path)
    source = b'#include "util/check.h"\n'
    assert "CUDA_CHECK" in ProjectHeaders((project / "include",)).macros_visible_in(project / "src" / "a.cu", source)


def test_compile_database_include_dirs_inside_the_root_only(tmp_path):
    project = _project(tmp_path)
    database = [{"directory": str(project), "file": "src/main.cu",
                 "command": f"nvcc -I{project / 'include'} -I/usr/local/cuda/include -isystem {project} -c src/main.cu"}]
    (project / "compile_commands.json").write_text(json.dumps(database))
    dirs = project_include_dirs(project, (), project / "compile_commands.json")
    assert dirs == (project.resolve(), (project / "include").resolve())


def test_convert_include_dir_makes_a_project_macro_the_projects_own(tmp_path):
    project = _project(tmp_path)
    runner = CliRunner()
    without = runner.invoke(main, ["convert", str(project), "-o", str(tmp_path / "a"), "--no-cache"])
    assert "HP102" in without.output and "CUDA_CHECK" in without.output
    given = runner.invoke(main, ["convert", str(project), "-o", str(tmp_path / "b"), "--no-cache",
                                 "--include-dir", str(project / "include")])
    assert given.exit_code == 0, given.output
    assert "HP102" not in given.output
    assert b"CUDA_CHECK(hipMalloc(&p, 4))" in (tmp_path / "b" / "src" / "main.cu").read_bytes()
    one = runner.invoke(main, ["convert", str(project / "src" / "main.cu"), "-o", str(tmp_path / "one.hip"),
                               "--include-dir", str(project / "include")])
    assert one.exit_code == 0 and "HP102" not in one.output, one.output


def test_a_quoted_header_beside_the_file_is_the_projects_even_with_a_cuda_name(tmp_path):
    """"cuda.h" next to the unit is what the compiler includes: the port keeps the include. The same
    name from another folder, or angled, is CUDA's driver header and becomes HIP's runtime."""
    project = tmp_path / "proj"
    (project / "util").mkdir(parents=True)
    (project / "util" / "cuda.h").write_bytes(b"#pragma once\nint device_count(void);\n")
    unit = b'#include "cuda.h"\nint device_count(void) { int n; cudaGetDeviceCount(&n); return n; }\n'
    (project / "util" / "cuda.cu").write_bytes(unit)
    (project / "main.cu").write_bytes(unit)
    (project / "angled.cu").write_bytes(unit.replace(b'"cuda.h"', b"<cuda.h>"))
    (project / "dot.hh").write_bytes(b"inline void sync() { cudaDeviceSynchronize(); }\n")
    result = CliRunner().invoke(main, ["convert", str(project), "-o", str(tmp_path / "out"), "--no-cache"])
    assert result.exit_code == 0, result.output
    out = tmp_path / "out"
    assert (out / "util" / "cuda.cu").read_bytes().startswith(b'#include <hip/hip_runtime.h>\n#include "cuda.h"\n')
    assert b'#include "hip/hip_runtime.h"' in (out / "main.cu").read_bytes()
    assert b"#include <hip/hip_runtime.h>" in (out / "angled.cu").read_bytes()
    assert b"hipDeviceSynchronize" in (out / "dot.hh").read_bytes()  # a .hh header is ported like a .h
