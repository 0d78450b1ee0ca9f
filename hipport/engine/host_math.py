"""<math.h> for host code calling C99's classifiers (isnan, isfinite, signbit...) unqualified.

nvcc's implicit cuda_runtime.h includes math.h (crt/math_functions.h), which puts the host
functions in the global namespace. hipcc's runtime declares them for device code only, and <cmath>
gives only std::isnan, so such a host call finds no match. The port includes <math.h> beside the
runtime include it writes; a call inside a __global__ or __device__ function needs none.
"""

from __future__ import annotations

import re

from hipport.diagnostics import Edit
from hipport.parse.lines import COMMENT_STRING_CHAR, enclosing_heads, matches_in_code, newline_of
from hipport.ruleset.model import RuleSet

_PATTERNS: dict[frozenset[str], re.Pattern[bytes]] = {}
_NOT_CODE = re.compile(COMMENT_STRING_CHAR + rb"|^[ \t]*#[ \t]*include[^\n]*", re.S | re.M)
_DEVICE_ONLY = re.compile(rb"__global__|__device__")


def with_host_math(source: bytes, targets: set[str], rules: RuleSet, edits: list[Edit]) -> list[Edit]:
    """edits with <math.h> added after the runtime include they insert or port, where host code
    calls a classifier (rules/device-code.toml's host-math-from-runtime) and the file includes no math.h."""
    names = rules.code_tables.name_set("host-math-from-runtime")
    if not names or "math.h" in targets:
        return edits
    pattern = _PATTERNS.get(names)
    if pattern is None:
        alternatives = "|".join(sorted(names)).encode("ascii")
        pattern = _PATTERNS[names] = re.compile(rb"(?<![\w.:>])(?:" + alternatives + rb")\s*\(")
    if not any(_in_host_code(source, m.start()) for m in matches_in_code(pattern, source, _NOT_CODE)):
        return edits
    runtime = rules.runtime_include.encode("ascii")
    line = b"#include <math.h>" + newline_of(source)
    for index, edit in enumerate(edits):
        if edit.start == edit.end and b"#include <" + runtime + b">" in edit.text:  # inserted by the port
            return [*edits[:index], Edit(edit.start, edit.end, edit.text + line), *edits[index + 1 :]]
        if edit.text == runtime:  # a CUDA include's path ported to the runtime: math.h on the next line
            end = source.find(b"\n", edit.end)
            at = len(source) if end < 0 else end + 1
            return [*edits, Edit(at, at, (b"" if end >= 0 else newline_of(source)) + line)]
    return edits


def _in_host_code(source: bytes, at: int) -> bool:
    """Outside every function whose signature says __global__ or __device__ without __host__."""
    return not any(_DEVICE_ONLY.search(head) and b"__host__" not in head for head in enclosing_heads(source, at))
