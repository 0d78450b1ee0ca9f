"""'own-overload': a file-scope definition of function NAMES whose first parameter points to one of
TYPES: a project's own definition of a function HIP's headers already define for those arguments.

CUDA has no atomicMax(float *, float), so projects write one (a CAS loop); HIP's headers
define it, inline, for float and double, and the project's definition is a redefinition:
the file does not compile. The rules are `match = "own-overload"` lints
(rules/lint-semantics.toml): NAMES are the functions, TYPES the pointee types of the first
parameter HIP takes them for (measured against HIP 5.2's amd_hip_atomic.h, where CUDA's
headers declare no such overload).

Only a definition at file scope (or in extern "C" or #if blocks) collides: one in a
namespace or class, or a template, is another function. The fix keeps it only where the rule's
condition says no HIP header defines it (#if FIX ... #endif around it); HIP's function, the same
operation by name, serves elsewhere. A definition already inside that #if is ported code and silent.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from hipport.diagnostics import Applicability
from hipport.lints.matcher import FILE, Matcher
from hipport.lints.rule import StructuralLint
from hipport.lints.vector_operator import (
    SemanticFinding,
    _guard,
    _text,
    named_declarator,
    line_starts_of,
    scoped_items,
)

_CONTAINERS = frozenset(
    {"linkage_specification", "declaration_list", "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif"}
)


def findings(source: bytes, lints: Sequence[StructuralLint], root: Callable[[], Any]) -> list[SemanticFinding]:
    """The file's findings for its own-overload lints; root() gives the file's syntax tree, which is
    asked for only when the file calls or defines one of the names."""
    wanted = [lint for lint in lints if any(name.encode() in source for name in lint.names)]
    if not wanted:
        return []
    names = "|".join(re.escape(n) for lint in wanted for n in lint.names)
    if not re.search(rf"\b(?:{names})\s*\(".encode(), source):
        return []
    line_starts = line_starts_of(source)
    found: list[SemanticFinding] = []
    for definition, conditions in scoped_items(root(), (), source, ("function_definition",), _CONTAINERS):
        signature = _signature(definition, source)
        if signature is None:
            continue
        name_node, name, pointee = signature
        for lint in wanted:
            if name not in lint.names or pointee not in lint.types:
                continue
            if lint.fix is not None and "".join(lint.fix.split()) in conditions:
                break  # kept for NVIDIA only already: ported code
            shown = f"{name}({pointee} *, ...)"
            edits = _guard(definition, source, line_starts, lint.fix) if lint.fix and lint.fix_safe else None
            found.append(_finding(lint, name_node, source, lint.message.replace("{name}", shown), edits))
            break
    return found


def _finding(lint: StructuralLint, name_node, source: bytes, message: str, edits) -> SemanticFinding:
    """With edits, the definition is kept where no HIP header defines it (a safe fix); without, it
    needs a person."""
    guarded = edits is not None
    return SemanticFinding(
        lint.code,
        name_node.start_byte,
        name_node.end_byte,
        _text(name_node, source),
        f"{message} It is kept only where no HIP header defines it (#if {lint.fix}); elsewhere HIP's serves."
        if guarded
        else f"{message} Remove it, rename it, or keep it for NVIDIA only.",
        (lint.fixed_severity or lint.severity or "warning") if guarded else (lint.severity or "error"),
        None,
        lint.fix if guarded else None,
        Applicability.SAFE if guarded else None,
        tuple(edits) if guarded else (),
    )


def _signature(node, source: bytes):
    """(name node, name, pointee type of the first parameter) of a function definition whose first
    parameter is a pointer, else None."""
    named = named_declarator(node, "identifier")
    if named is None:
        return None
    declarator, name_node = named
    parameters = declarator.child_by_field_name("parameters")
    if parameters is None:
        return None
    first = next((p for p in parameters.named_children if p.type == "parameter_declaration"), None)
    if first is None:
        return None
    pointer = first.child_by_field_name("declarator")
    if pointer is None or pointer.type not in ("pointer_declarator", "abstract_pointer_declarator"):
        return None
    type_node = first.child_by_field_name("type")
    if type_node is None:
        return None
    pointee = " ".join(_text(type_node, source).split())
    return name_node, _text(name_node, source), pointee


MATCHER = Matcher("own-overload", FILE, frozenset({"names", "types"}), run=findings)
