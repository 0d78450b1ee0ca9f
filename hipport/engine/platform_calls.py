"""HIP calls whose arguments build on one platform only: `hipMallocAsync(&floatPtr, n, s)`.

The argument rewrites of rules/arguments.toml that carry `platform` ("amd") are the casts a port adds
because only that platform's HIP headers take the call as CUDA wrote it (AMD's hip_runtime_api.h
has `hipMallocAsync(T**, ...)` templates, HIP's NVIDIA headers `void**` alone). The same facts,
read for the HIP name the CUDA one ports to, find such calls in HIP code (`hipport check` on a
ported or hand-written tree): each argument the rewrite would cast and that is not evidently of
the cast type already is HP441, with the cast as a safe fix (it means the same on both platforms).
"""

from __future__ import annotations

from hipport.engine.arguments import _already
from hipport.ruleset.argrules import PLACEHOLDER, ArgumentRule
from hipport.ruleset.model import RuleSet

# HIP name -> ((argument count, argument index, cast type, the rule), ...)
PlatformCasts = dict[str, tuple[tuple[int, int, str, ArgumentRule], ...]]
_KNOWN: dict[int, tuple[RuleSet, PlatformCasts]] = {}


def platform_casts(rules: RuleSet) -> PlatformCasts:
    """The casts one platform's HIP headers need, by the HIP name of the call (derived once per rule set)."""
    known = _KNOWN.get(id(rules))
    if known is not None and known[0] is rules:
        return known[1]
    found: dict[str, list[tuple[int, int, str, ArgumentRule]]] = {}
    for cuda, argument_rules in rules.arguments.items():
        for rule in argument_rules:
            if rule.platform is None or rule.count is None or rule.arguments is None:
                continue
            name_rule = rules.names.get(cuda)
            hip = rule.hip or (name_rule.hip if name_rule is not None else None)
            if not hip or hip == cuda:
                continue
            for piece in PLACEHOLDER.finditer(rule.arguments):
                if piece.group("cast") and piece.group("cast") != "&":
                    found.setdefault(hip, []).append((rule.count, int(piece.group("index")), piece.group("cast"), rule))
    if len(_KNOWN) > 8:
        _KNOWN.clear()
    table = {hip: tuple(entries) for hip, entries in found.items()}
    _KNOWN[id(rules)] = (rules, table)
    return table


def uncast_arguments(
    source: bytes, arguments: list[tuple[int, int]] | None, entries: tuple[tuple[int, int, str, ArgumentRule], ...]
) -> list[tuple[int, int, str, str]]:
    """(start, end, cast type, platform) of each argument of this call that lacks its cast."""
    if arguments is None:
        return []
    out = []
    for count, index, cast, rule in entries:
        if len(arguments) != count or index >= len(arguments):
            continue
        start, end = arguments[index]
        text = source[start:end]
        stripped = text.strip()
        if not stripped or _already(stripped, cast, source):
            continue
        start += len(text) - len(text.lstrip())
        end -= len(text) - len(text.rstrip())
        out.append((start, end, cast, rule.platform or ""))
    return out
