"""convert's default output does not change for the sake of the CPU runtime or --fix-warp-size.

tests/data/default-output-digests.json holds a digest of the default port (newest HIP and 5.2,
launches kept and rewritten) of every fixture input, example and run-corpus program. It was made
with the code from before `verify --run` and `--fix-warp-size` existed (main at c5dca74), which
gave the same bytes as the run branch, and regenerated when the branches that change default
output on purpose (argument rewrites, guard macros, semantic differences) merged. The same
inputs ported now must give the same bytes. A change that is meant to alter default output
regenerates the file: HIPPORT_REGEN_DIGESTS=1 pytest tests/test_default_output_unchanged.py
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from hipport.engine.port import port_source
from hipport.options import Options
from hipport.versions import parse_version

ROOT = Path(__file__).resolve().parents[1]
DIGESTS = ROOT / "tests" / "data" / "default-output-digests.json"


def _inputs() -> list[Path]:
    return sorted([*ROOT.glob("fixtures/convert/*/input.*"), *ROOT.glob("fixtures/lints/*/input.*"),
                   *ROOT.glob("fixtures/run/*/main.cu"), *ROOT.glob("examples/src/*")])


def _digests(rules) -> dict[str, str]:
    found = {}
    for path in _inputs():
        source = path.read_bytes()
        for version in (None, "5.2"):
            for launch in ("keep", "hip"):
                options = Options(hip_version=parse_version(version) if version else None, launch_syntax=launch)
                key = f"{path.relative_to(ROOT).as_posix()} {version or 'newest'} {launch}"
                found[key] = hashlib.sha256(port_source(source, rules, options).output).hexdigest()[:16]
    return found


def test_default_output_is_what_it_was(rules):
    now = _digests(rules)
    if os.environ.get("HIPPORT_REGEN_DIGESTS"):
        DIGESTS.write_text(json.dumps(now, indent=0, sort_keys=True))
    before = json.loads(DIGESTS.read_text())
    changed = sorted(k for k in before.keys() & now.keys() if before[k] != now[k])
    assert not changed, f"default output changed for {changed[:5]} (see this module's docstring)"
    assert len(before.keys() & now.keys()) >= 400  # the inputs are still there to compare


def test_fix_warp_size_is_off_by_default():
    assert Options().fix_warp_size is False
    assert "fix_warp_size" not in Options().describe(parse_version("7.0"))
