"""Coverage-guided fuzzing of the port with atheris (libFuzzer for Python).

    .venv/bin/python tests/fuzz/atheris_port.py -max_total_time=600 [corpus_dir ...]

`make fuzz` runs this with the fixture inputs and the regression fixtures as
its seed corpus (new inputs go to .fuzz/corpus). The first input byte picks
the options; the rest is the file. An input that breaks a guarantee of
fuzz_invariants.check_port stops the run and is saved as
.fuzz/crashes/crash-<hash>: copy it to tests/fuzz/regressions/ with a name
that says what it hit, fix the bug, and test_fuzz_regressions.py keeps it
fixed.
"""
from __future__ import annotations

import sys
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parent))

with atheris.instrument_imports(include=["hipport"]):
    from fuzz_invariants import check_port
    from fuzz_strategies import fuzz_rules, options_from_byte


def one_input(data: bytes) -> None:
    if not data:
        return
    check_port(data[1:], RULES, options_from_byte(data[0]))


if __name__ == "__main__":
    RULES = fuzz_rules()
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()
