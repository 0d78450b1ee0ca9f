"""A dialect's qualified names: at::cuda::getCurrentCUDAStream, c10::cuda::CUDAGuard.

The parsers leave the last part of a qualified name alone (Fake::cudaMalloc is the project's own),
so a dialect's names inside its namespaces are read here, from the source, one qualified chain
(`a :: b :: c`) at a time, the way PyTorch's hipify reads them: left to right, at each part the
longest qualified rule that starts there (rules `qualified`: cuda::getCurrentCUDAStream ->
hip::getCurrentHIPStreamMasqueradingAsCUDA), else, for a part below a namespace the dialect
declares (`qualified_scopes`: at, c10, cuda), the dialect's rule for that one name. So for a
ROCm PyTorch before 2.11 c10::cuda::CUDAGuard becomes c10::hip::HIPGuardMasqueradingAsCUDA (c10::cuda,
then CUDAGuard), and from 2.11 at::cuda::OptionalCUDAGuard is a name the port keeps and counts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hipport.diagnostics import Edit
from hipport.engine.port.state import PortState
from hipport.parse.sites import NameSite, Role
from hipport.ruleset.model import NameRule

_IDENTIFIER = re.compile(rb"[A-Za-z_]\w*")
_SEPARATOR = re.compile(rb"\s*::\s*")
_IDENTIFIER_BEFORE = re.compile(rb"[A-Za-z_]\w*\Z")
_SEPARATOR_BEFORE = re.compile(rb"\s*::\s*\Z")
_LOOK_BACK = 256  # bytes: a chain's start is never further back than this from a part of it


@dataclass(frozen=True, slots=True)
class Part:
    start: int
    end: int
    name: str


def chain_at(source: bytes, start: int) -> tuple[Part, ...]:
    """The qualified chain the identifier at start belongs to (one part when it has no `::`)."""
    begin = start
    while True:
        window = source[max(0, begin - _LOOK_BACK) : begin]
        separator = _SEPARATOR_BEFORE.search(window)
        if separator is None:
            break
        before = _IDENTIFIER_BEFORE.search(window, 0, separator.start())
        if before is None:
            break
        begin -= len(window) - before.start()
    parts = []
    at = begin
    while True:
        match = _IDENTIFIER.match(source, at)
        if match is None:
            break
        parts.append(Part(match.start(), match.end(), match.group().decode("ascii")))
        separator = _SEPARATOR.match(source, match.end())
        if separator is None or _IDENTIFIER.match(source, separator.end()) is None:
            break
        at = separator.end()
    return tuple(parts)


def by_first_name(qualified: dict[str, NameRule]) -> dict[str, tuple[tuple[tuple[str, ...], NameRule], ...]]:
    """First identifier -> (the rule's parts, the rule), longest first."""
    index: dict[str, list[tuple[tuple[str, ...], NameRule]]] = {}
    for rule in qualified.values():
        parts = tuple(part.strip() for part in rule.cuda.split("::"))
        index.setdefault(parts[0], []).append((parts, rule))
    return {name: tuple(sorted(rules, key=lambda r: -len(r[0]))) for name, rules in index.items()}


def chain_rules(parts: tuple[Part, ...], index: dict, names, scopes: frozenset[str]) -> list[tuple[int, int, NameRule]]:
    """(first part, last part, rule) of each rewrite in the chain, left to right."""
    found = []
    in_scope = len(parts) > 1 and parts[0].name in scopes
    i = 0
    while i < len(parts):
        spelled = tuple(p.name for p in parts[i:])
        rule = next((r for key, r in index.get(parts[i].name, ()) if spelled[: len(key)] == key), None)
        if rule is not None:
            last = i + len(rule.cuda.split("::")) - 1
            found.append((i, last, rule))
            i = last + 1
            continue
        member = names.get(parts[i].name) if in_scope and i > 0 else None
        if member is not None:
            found.append((i, i, member))
        i += 1
    return found


class QualifiedSteps(PortState):
    """The porter's step for the qualified chains of a file ported with a dialect."""

    def _qualified(self, site: NameSite) -> bool:
        """Port the chain site belongs to, once; True: the site is a part the chain's rules
        handled (nothing more to do for it)."""
        if site.start >= self.chain_end:
            self._port_chain(chain_at(self.source, site.start))
        return any(start <= site.start < end for start, end in self.chain_spans)

    def _port_chain(self, parts: tuple[Part, ...]) -> None:
        self.chain_spans = []
        if len(parts) < 2:
            self.chain_end = parts[-1].end if parts else 0
            return
        self.chain_end = parts[-1].end
        if self.qualified_index is None:
            self.qualified_index = by_first_name(self.rules.qualified)
        rules = self.rules
        for first, last, rule in chain_rules(parts, self.qualified_index, rules.dialect_names, rules.dialect_scopes):
            start, end = parts[first].start, parts[last].end
            self.chain_spans.append((start, end))
            if rule.kind == "kept":  # the ROCm build declares it under this name
                self.result.converted[rule.library] += 1
                self.result.converted_names[rule.cuda] += 1
            elif rule.kind == "qualified":
                self.result.converted[rule.library] += 1
                self.result.converted_names[rule.cuda] += 1
                self.edits.append(Edit(start, end, (rule.hip or rule.cuda).encode("ascii")))
            else:
                self._apply_name_rule(NameSite(start, end, rule.cuda, Role.USE), rule)

    def _apply_name_rule(self, site: NameSite, rule: NameRule, override: str | None = None) -> None:
        raise NotImplementedError  # the name step's (engine/port_names.py)
