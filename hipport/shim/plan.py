"""The shim header's plan: which CUDA names and headers it handles, and how (hipport.shim.render writes it)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from hipport.engine.port.shim_mode import BASE_LIBRARIES, FileUse, Use, neutral_name
from hipport.engine.warp.fallback import warp_fallback
from hipport.ruleset.model import NameRule, RuleSet
from hipport.versions import Version, parse_version


@dataclass
class Usage:
    files: list[FileUse] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def names(self) -> dict[str, list[Use]]:
        found: dict[str, list[Use]] = defaultdict(list)
        for file in self.files:
            for name, use in file.names:
                found[name].append(use)
        return found

    @property
    def includes(self) -> set[str]:
        return {site.path for file in self.files for site in file.includes}

    @property
    def elaborated(self) -> set[str]:
        return set().union(*(f.elaborated for f in self.files))

    @property
    def guards(self) -> set[str]:
        return set().union(*(f.guards for f in self.files))


@dataclass(frozen=True)
class Entry:
    """One CUDA name the header handles.

    form: "typedef" (a type name, never used as `struct X`), "define", "namespace",
    "same" (HIP spells it the same; only a version guard), "error" (no HIP
    equivalent) or "warp" (a builtin newer than the target; fallback is the
    wrapper for older HIP, None when there is none; see hipport.engine.warp.fallback).
    """

    cuda: str
    hip: str | None
    form: str
    library: str
    since: Version | None = None  # guard: HIP_VERSION >= since
    until: Version | None = None  # guard: HIP_VERSION < until (removed there)
    neutral: str | None = None
    fallback: str | None = None

    @property
    def guard(self) -> tuple[Version | None, Version | None]:
        return self.since, self.until


@dataclass(frozen=True)
class HeaderEntry:
    cuda: str
    hip: str | None  # None: dropped (drop=True) or unported (unported=True)
    unported: bool = False
    library: str = "CUDA_Runtime_API"


@dataclass(frozen=True)
class GuardEntry:
    """A CUDA header's guard macro the sources test (#ifdef __DRIVER_TYPES_H__): defined under HIP
    when the HIP header that stands for it is included (its own guard, hip, is defined)."""

    cuda: str
    hip: str
    library: str


@dataclass
class ShimPlan:
    target: Version
    prefix: str | None
    entries: list[Entry]
    headers: list[HeaderEntry]
    enable_defines: tuple[str, ...] = ()  # HIP_ENABLE_WARP_SYNC_BUILTINS: 6.2-6.4 declare them only on request
    guards: list[GuardEntry] = field(default_factory=list)

    @property
    def macro_prefix(self) -> str:
        return (self.prefix or "gpu").upper()

    def libraries(self) -> list[str]:
        """The libraries with a block of their own: those beyond the runtime that a header brings."""
        return sorted({h.library for h in self.headers} - BASE_LIBRARIES)

    def block_of(self, library: str) -> str | None:
        """The block a name or guard of this library goes in: None for the always-included part."""
        return library if library in self.libraries() else None


def plan_shim(
    usage: Usage,
    rules: RuleSet,
    target: Version | None = None,
    prefix: str | None = None,
    recorded_includes: frozenset[str] = frozenset(),
) -> ShimPlan:
    """recorded_includes: CUDA headers an earlier header included. Once sources
    include the shim instead, the header is the only record of them."""
    target = target or rules.newest_hip
    elaborated = usage.elaborated
    entries = []
    for name in sorted(usage.names):
        entry = _entry(name, rules, target, prefix, name in elaborated)
        if entry is not None:
            entries.append(entry)
    headers = []
    for path in sorted(usage.includes | {p for p in recorded_includes if p in rules.headers}):
        rule = rules.headers[path]
        headers.append(
            HeaderEntry(
                path, None if rule.drop else rule.hip, unported=rule.hip is None and not rule.drop, library=rule.library
            )
        )
    defines = sorted({r.enable_define for n in usage.names if (r := rules.rewrites.get(n)) and r.enable_define})
    guards = []
    for name in sorted(usage.guards):
        macro = rules.macros.get(name)
        if macro is None or not macro.hip:
            continue
        header = rules.headers.get(macro.header or "")
        guards.append(GuardEntry(name, macro.hip, header.library if header is not None else "CUDA_Runtime_API"))
    return ShimPlan(target, prefix, entries, headers, tuple(defines), guards)


def _entry(name: str, rules: RuleSet, target: Version, prefix: str | None, elaborated: bool) -> Entry | None:
    rewrite = rules.rewrites.get(name)
    if rewrite is not None:
        since = parse_version(rewrite.since)
        if rewrite.hip != name:
            return Entry(name, rewrite.hip, "define", rewrite.library, since if since > target else None)
        if since <= target:
            return None  # the target HIP declares it: nothing to add
        return Entry(name, name, "warp", rewrite.library, since=since, fallback=warp_fallback(rewrite))
    namespace = rules.namespaces.get(name)
    if namespace is not None:
        return Entry(
            name,
            namespace.hip,
            "namespace",
            namespace.library,
            neutral=neutral_name(namespace.hip, prefix) if prefix else None,
        )
    rule: NameRule = rules.names[name]
    if rule.hip is None:
        return Entry(name, None, "error", rule.library)
    added = parse_version(rule.added) if rule.added else None
    newer = added if added is not None and added > target else None
    until = parse_version(rule.removed) if rule.removed else None
    if rule.hip == name:
        return Entry(name, name, "same", rule.library, newer, until) if newer or until else None
    form = "typedef" if rule.kind == "type" and not elaborated else "define"
    neutral = neutral_name(rule.hip, prefix) if prefix else None
    return Entry(name, rule.hip, form, rule.library, newer, until, neutral)
