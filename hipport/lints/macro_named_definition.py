"""'macro-named-definition': a file-scope function definition named one of NAMES, which one HIP
platform's headers define as a function-like macro.

HIP's NVIDIA headers (nvidia_hip_runtime_api.h) define `__shfl_down(...)` and its kin as macros
for the masked intrinsics. CUDA 9 deprecated the maskless shuffles and CUDA 13 has none, so a
project that still calls them defines its own (a float4 overload, or the scalar ones); under
HIP's NVIDIA headers the macro rewrites that definition into a redeclaration of CUDA's
`__shfl_down_sync`. The fix (the rule's `fix_definition`, {name} the function's name) goes once before
the first such definition: it undefines the macro there, so the project's own functions serve on
NVIDIA as they did with CUDA 13. A file that undefines the name already is ported code and silent.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from typing import Any

from hipport.diagnostics import Applicability
from hipport.lints.matcher import FILE, Matcher
from hipport.lints.rule import StructuralLint
from hipport.lints.vector_operator import SemanticFinding, _text, line_starts_of, named_declarator, scoped_items

_CONTAINERS = frozenset(
    {"linkage_specification", "declaration_list", "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif"}
)


def findings(source: bytes, lints: Sequence[StructuralLint], root: Callable[[], Any]) -> list[SemanticFinding]:
    wanted = [lint for lint in lints if any(n.encode() in source and _called(n, source) for n in lint.names)]
    if not wanted:
        return []
    line_starts = line_starts_of(source)
    found: list[SemanticFinding] = []
    done: set[str] = set()
    for definition, _conditions in scoped_items(root(), (), source, ("function_definition",), _CONTAINERS):
        named = named_declarator(definition, "identifier")
        if named is None:
            continue
        name_node = named[1]
        name = _text(name_node, source)
        lint = next((lint for lint in wanted if name in lint.names), None)
        if lint is None or name in done:
            continue
        done.add(name)
        if re.search(rb"#\s*undef\s+" + re.escape(name.encode()) + rb"\b", source[: definition.start_byte]):
            continue  # ported already
        found.append(_finding(lint, name_node, name, source, line_starts, definition.start_byte))
    return found


def _called(name: str, source: bytes) -> bool:
    """name followed by `(`: a call or a definition (the substring test, done first, is the cheap one)."""
    return re.search(rb"\b" + re.escape(name.encode()) + rb"\s*\(", source) is not None


def _finding(lint: StructuralLint, name_node, name: str, source: bytes, line_starts, start: int) -> SemanticFinding:
    prelude = (lint.fix_definition or "").replace("{name}", name)
    safe = bool(prelude) and lint.fix_safe
    line_start = line_starts[bisect.bisect_right(line_starts, start) - 1]
    newline = "\r\n" if b"\r\n" in source[:200] else "\n"  # lints sit below hipport.parse (its newline_of)
    edits = ((line_start, line_start, prelude.replace("\n", newline).encode()),) if safe else ()
    return SemanticFinding(
        lint.code,
        name_node.start_byte,
        name_node.end_byte,
        name,
        lint.message.replace("{name}", name),
        (lint.fixed_severity or lint.severity or "warning") if safe else (lint.severity or "error"),
        None,
        prelude if safe else None,
        Applicability.SAFE if safe else None,
        edits,
    )


MATCHER = Matcher("macro-named-definition", FILE, frozenset({"names"}), run=findings)
