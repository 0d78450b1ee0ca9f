"""Overloads that collapse: two CUDA types that become one HIP type.

cudaError_t and CUresult are distinct types in CUDA and one type, hipError_t, in
HIP (on both platforms: HIP's NVIDIA headers turn every driver result into a
hipError_t with hipCUResultTohipError), so a project that overloads a function on both (an error-name helper) has
two definitions of the same function after the port. This check finds function
definitions and declarations in one file whose parameter lists differ as written
and become identical once the rule set's type renames are applied.

What happens then:
- the bodies are the same once ported: whichever the preprocessor meets first is
  kept and the other skipped, with a guard macro around each (a safe edit: the
  two are provably interchangeable);
- they are in different branches of one #if: nothing collides;
- the bodies differ and each sits behind its own #if (helper_cuda.h's runtime
  and driver _cudaGetErrorEnum): the same guard, and a warning naming both
  conditions. Where one alone is compiled nothing changes; where both are, the
  unit would not compile, and now keeps the first (for an error-name helper,
  either names every error of HIP's one error type);
- otherwise (both always compiled): an error finding on the later one, naming
  the line of each definition.
Declarations alone may repeat, unless their return types differ.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from hipport.diagnostics import Applicability
from hipport.engine.collapse.functions import COMMENT, Function, functions
from hipport.parse.sites import ParsedFile, Role
from hipport.ruleset.model import RuleSet


@dataclass(frozen=True)
class CollapseFinding:
    code: str
    start: int
    end: int
    name: str
    message: str
    severity: str | None = None
    fix: str | None = None
    applicability: Applicability | None = None


def collapsing_types(rules: RuleSet, roc: bool) -> dict[str, str]:
    """CUDA type name -> HIP type name, for the HIP types more than one CUDA type becomes."""
    return rules.collapsing_types[roc]


def collapsed_overloads(source: bytes, parsed: ParsedFile, rules: RuleSet, roc: bool) -> tuple[list, list]:
    """(edits as (start, end, text), findings) for the overload pairs the type renames merge."""
    collapsing = collapsing_types(rules, roc)
    targets: dict[str, set[str]] = {}
    for site in parsed.names:
        target = collapsing.get(site.name)
        if target is not None and site.role is not Role.DECLARATION:
            targets.setdefault(target, set()).add(site.name)
    if not any(len(names) > 1 for names in targets.values()):
        return [], []  # the usual case: no two collapsing types in this file, no second parse
    renames = _renames(rules, roc)
    found = functions(source, parsed.syntax.root(), renames)
    groups: dict[tuple, list[Function]] = {}
    for function in found:
        groups.setdefault((function.name, function.ported), []).append(function)
    edits: list[tuple[int, int, bytes]] = []
    findings: list[CollapseFinding] = []
    for (name, ported), members in groups.items():
        if len({m.written for m in members}) < 2:
            continue  # the project's own repeated declaration, not something the port did
        _judge(source, name, ported, members, edits, findings)
    return edits, findings


def _judge(
    source: bytes, name: str, ported: tuple[str, ...], members: list[Function], edits: list, findings: list
) -> None:
    signature = f"{name}({', '.join(ported)})"
    apart, always = _pairs(name, signature, members, findings)
    first = members[0]
    definitions = [m for m in members if m.body is not None]
    identical = len({m.body for m in definitions}) == 1
    if len(definitions) < 2 or always or not (identical or apart):
        return
    if not identical and any(m.returns != first.returns for m in definitions):
        return  # reported above: C++ rejects the pair whatever is compiled
    macro = "HIPPORT_ONE_" + re.sub(r"\W", "_", name) + "_" + hashlib.sha1(signature.encode()).hexdigest()[:8]
    planned = [_guard(source, m, macro) for m in definitions]
    guarded = all(p is not None for p in planned)
    if guarded:
        for plan in planned:
            edits.extend(plan or ())
    if identical:
        _identical(name, signature, definitions, macro, guarded, findings)
    else:
        _apart(source, name, signature, first, apart, macro, guarded, findings)


def _pairs(name: str, signature: str, members: list[Function], findings: list) -> tuple[list[Function], bool]:
    """Each later member against the first: (the later definitions unlike the first, compiled with it
    only under some macros; whether one unlike it is compiled wherever the first is, so no guard helps)."""
    first = members[0]
    apart: list[Function] = []
    always = False
    for other in members[1:]:
        if other.written == first.written or _exclusive(first, other):
            continue
        spelled = (
            f"'{name}({', '.join(first.written)})' (line {first.line}) and "
            f"'{name}({', '.join(other.written)})' (line {other.line})"
        )
        if other.returns != first.returns:
            findings.append(
                _at(
                    "HP431",
                    other,
                    name,
                    f"{spelled} both become '{signature}' in HIP with different return types, which C++ "
                    "rejects; rename one of them",
                )
            )
            continue
        if first.body is None or other.body is None:
            continue  # a declaration may repeat
        if first.body == other.body:
            continue  # guarded below, once for the whole group
        if _conditions_apart(first, other):
            apart.append(other)  # each behind its own #if: guarded below, so that the first compiled is kept
            continue
        always = True
        findings.append(
            _at(
                "HP431",
                other,
                name,
                f"{spelled} both become '{signature}' in HIP, so the second is a redefinition. Their bodies "
                "differ: keep one, or rename one and its callers",
            )
        )
    return apart, always


def _identical(
    name: str, signature: str, definitions: list[Function], macro: str, guarded: bool, findings: list
) -> None:
    """Definitions that do the same once ported: each guarded (HP432), or one finding to keep one (HP431)."""
    lines = ", ".join(str(m.line) for m in definitions)
    for m in definitions[1:] if guarded else definitions[1:2]:
        findings.append(
            _at(
                "HP432",
                m,
                name,
                f"the definitions of '{name}' on lines {lines} all become '{signature}' in HIP and "
                f"do the same once ported: each is guarded by {macro}, so the first one compiled is kept",
                fix=macro,
                applicability=Applicability.SAFE,
            )
            if guarded
            else _at(
                "HP431",
                m,
                name,
                f"the definitions of '{name}' on lines {lines} all become '{signature}' in HIP (they do "
                "the same once ported); keep one of them",
            )
        )


def _apart(
    source: bytes,
    name: str,
    signature: str,
    first: Function,
    apart: list[Function],
    macro: str,
    guarded: bool,
    findings: list,
) -> None:
    """Definitions with other bodies, each behind its own #if: guarded, so the first compiled is kept."""
    for other in apart:
        spelled = f"'{name}' on lines {first.line} ({_condition_text(source, first)}) and {other.line} " + (
            f"({_condition_text(source, other)})"
        )
        findings.append(
            _at(
                "HP431",
                other,
                name,
                (
                    f"{spelled} both become '{signature}' in HIP, a redefinition wherever both are compiled. "
                    f"Each is guarded by {macro}: where one alone is compiled nothing changes, where both are "
                    f"the first one compiled is kept. Their bodies differ: check that it serves the other's "
                    "callers too (an error helper: HIP has one error type, so either names every error)"
                )
                if guarded
                else f"{spelled} both become '{signature}' in HIP, a redefinition wherever both are compiled. "
                "Their bodies differ: keep one, or rename one",
                severity="warning" if guarded else "info",
                fix=macro if guarded else None,
                # applied: it changes no configuration that compiled, and makes the one where both are compile
                applicability=Applicability.SAFE if guarded else None,
            )
        )


def _at(code: str, function: Function, name: str, message: str, **more) -> CollapseFinding:
    """A finding on the whole of function (its definition, or its template declaration)."""
    return CollapseFinding(code, function.node.start_byte, function.node.end_byte, name, message, **more)


def _guard(source: bytes, function: Function, macro: str) -> list | None:
    """Edits wrapping function in #ifndef macro ... #endif, or None when it does not own its lines."""
    start, end = function.node.start_byte, function.node.end_byte
    if source[function.line_start : start].strip():
        return None
    line_end = source.find(b"\n", end)
    line_end = len(source) if line_end < 0 else line_end
    rest = COMMENT.sub(b"", source[end:line_end])
    if rest.strip():
        return None
    if line_end > 0 and source[line_end - 1 : line_end] == b"\r":
        line_end -= 1
    newline = b"\r\n" if source[line_end : line_end + 1] == b"\r" else b"\n"
    opening = b"#ifndef " + macro.encode() + newline + b"#define " + macro.encode() + newline
    return [(function.line_start, function.line_start, opening), (line_end, line_end, newline + b"#endif")]


def _exclusive(a: Function, b: Function) -> bool:
    """a and b sit in different branches of one #if, so never both compiled."""
    inside_a = dict(a.conditions)
    return any(node in inside_a and inside_a[node] != alternative for node, alternative in b.conditions)


def _conditions_apart(a: Function, b: Function) -> bool:
    return set(a.conditions) != set(b.conditions)


def _condition_text(source: bytes, function: Function) -> str:
    return " and ".join(function.tests) or f"line {function.line}"


def _renames(rules: RuleSet, roc: bool) -> dict[bytes, bytes]:
    return _derived(rules, roc, "renames", _all_renames)


# A RuleSet is not hashable; its tables are derived once per rule set object and kept with it.
_DERIVED: dict[tuple[int, bool, str], tuple[RuleSet, dict]] = {}


def _derived(rules: RuleSet, roc: bool, what: str, build) -> dict:
    key = (id(rules), roc, what)
    known = _DERIVED.get(key)
    if known is None or known[0] is not rules:
        if len(_DERIVED) > 16:
            _DERIVED.clear()
        known = _DERIVED[key] = (rules, build(rules, roc))
    return known[1]


def _all_renames(rules: RuleSet, roc: bool) -> dict:
    out = {}
    for rule in rules.names.values():
        target = rule.roc if roc and rule.roc else rule.hip
        if target and target != rule.cuda:
            out[rule.cuda.encode()] = target.encode()
    return out
