"""`hipport check` starts from bytecode once the install step has run (issue 22).

Python reads a module's .pyc even with PYTHONDONTWRITEBYTECODE=1 (which stops it writing one),
and compiling hipport from source costs every start some 80 ms. The Makefile's install step
and its `bytecode` target compile the checkout (an editable install compiles nothing); these
tests run that target, then a plain check in a fresh interpreter that records every module it
compiles from source, with the variable set as in this environment.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Records the source files the import system compiles (a valid .pyc never gets here),
# then runs the command as the console script does.
_PROBE = r"""
import atexit, sys
from importlib.machinery import SourceFileLoader

compiled = []
source_to_code = SourceFileLoader.source_to_code

def recording(self, data, path, *args, **kwargs):
    compiled.append(path)
    return source_to_code(self, data, path, *args, **kwargs)

SourceFileLoader.source_to_code = recording
record, sys.argv = sys.argv[1], ["hipport", *sys.argv[2:]]

def write():
    imported = sorted(m for m in sys.modules if m == "hipport" or m.startswith("hipport."))
    with open(record, "w") as out:
        out.write("\n".join(["imported", *imported, "compiled", *compiled]))

atexit.register(write)  # hipport's exit runs the atexit handlers, then leaves with os._exit
from hipport.launch import main
main()
"""


def _check_from_fresh_interpreter(tmp_path: Path, **env_extra: str) -> tuple[list[str], list[str]]:
    """The hipport modules a plain `hipport check` imports, and the files it compiled from source."""
    source = tmp_path / "one.cu"
    source.write_text("__global__ void k(float* p) { p[threadIdx.x] = 0; }\nvoid f() { cudaFree(0); }\n")
    record = tmp_path / "record.txt"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPYCACHEPREFIX"}
    env.update(PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=str(ROOT), **env_extra)
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(record), "check", str(source)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode in (0, 1), done.stderr
    lines = record.read_text().splitlines()
    at = lines.index("compiled")
    return lines[1:at], lines[at + 1 :]


@pytest.fixture(scope="module")
def compiled_checkout() -> None:
    if shutil.which("make") is None:
        pytest.skip("no make here to run the install step's bytecode target")
    bin_dir = Path(sys.executable).parent
    subprocess.run(["make", "-s", "bytecode", f"BIN={bin_dir}"], cwd=ROOT, check=True)


def test_check_path_imports_no_module_from_source(compiled_checkout, tmp_path: Path) -> None:
    imported, compiled = _check_from_fresh_interpreter(tmp_path)
    assert len(imported) > 30, imported  # the probe ran the real check path
    package = str(ROOT / "hipport")
    from_source = [path for path in compiled if path.startswith(package)]
    assert from_source == [], "compiled from source at start-up (is `make bytecode` compiling hipport/?)"


def test_the_probe_sees_a_compile_from_source(compiled_checkout, tmp_path: Path) -> None:
    # With the bytecode looked for in an empty folder, every hipport module is compiled from source.
    imported, compiled = _check_from_fresh_interpreter(tmp_path, PYTHONPYCACHEPREFIX=str(tmp_path / "none"))
    package = str(ROOT / "hipport")
    assert len([path for path in compiled if path.startswith(package)]) == len(imported)
