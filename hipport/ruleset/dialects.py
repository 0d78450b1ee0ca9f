"""Dialects: rule sets that apply only to the code they recognise (PyTorch's CUDA API in extensions).

A rule file with a top-level `dialect = "NAME"` is not merged into the base rule set. Its rules
form a layer of that dialect, for the target releases from `dialect_since` and before
`dialect_until` (the releases of the framework the port builds against, not HIP's). A file whose
includes match the dialect's `detect_includes` prefixes (or that the build names as the dialect's,
`Options.dialects`) is ported with the base rules overlaid by the layers for the target release.
Which headers and build markers switch a dialect on is data (`detect_includes`, `detect_build`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from hipport.ruleset.model import HeaderRule, MacroRule, NameRule, NamespaceRule, RuleSet
from hipport.versions import Version, parse_version


@dataclass
class DialectLayer:
    since: str | None
    until: str | None
    facts: str | None  # the framework release the layer's facts come from
    names: dict[str, NameRule] = field(default_factory=dict)
    headers: dict[str, HeaderRule] = field(default_factory=dict)
    macros: dict[str, MacroRule] = field(default_factory=dict)
    namespaces: dict[str, NamespaceRule] = field(default_factory=dict)
    qualified: dict[str, NameRule] = field(default_factory=dict)  # A::b -> its rewrite, whole

    def applies(self, target: Version) -> bool:
        return (self.since is None or target >= parse_version(self.since)) and (
            self.until is None or target < parse_version(self.until)
        )


@dataclass
class Dialect:
    name: str
    title: str = ""
    detect_includes: tuple[str, ...] = ()
    detect_build: tuple[str, ...] = ()
    scopes: tuple[str, ...] = ()  # namespaces whose members are the dialect's names (at, c10)
    layers: list[DialectLayer] = field(default_factory=list)

    @property
    def newest(self) -> Version:
        """The release targeted when the user names none: the newest any layer's facts come from."""
        versions = [parse_version(v) for layer in self.layers for v in (layer.facts, layer.since) if v]
        return max(versions, default=(0, 0, 0))

    def include_re(self) -> re.Pattern[bytes]:
        prefixes = b"|".join(re.escape(p.encode()) for p in self.detect_includes) or rb"(?!x)x"
        return re.compile(rb'^[ \t]*#[ \t]*include[ \t]*[<"](?:' + prefixes + rb")", re.M)

    def target(self, versions: tuple[tuple[str, str], ...]) -> Version:
        for name, version in versions:
            if name == self.name:
                return parse_version(version)
        return self.newest


def add_layer(ruleset: RuleSet, data: dict, layer: RuleSet) -> None:
    """A dialect rule file's rules (read into their own RuleSet) become one layer of its dialect."""
    dialect = ruleset.dialects.setdefault(data["dialect"], Dialect(data["dialect"]))
    dialect.title = data.get("dialect_title", dialect.title)
    dialect.detect_includes += tuple(data.get("detect_includes", ()))
    dialect.detect_build += tuple(data.get("detect_build", ()))
    dialect.scopes += tuple(data.get("qualified_scopes", ()))
    dialect.layers.append(
        DialectLayer(
            data.get("dialect_since"),
            data.get("dialect_until"),
            data.get("dialect_facts"),
            dict(layer.names),
            layer.headers,
            layer.macros,
            layer.namespaces,
            layer.qualified,
        )
    )


class OverlaidNames(Mapping):
    """The dialect's name rules before the base rule set's (a lazily made NameTable, left as it is)."""

    __slots__ = ("_top", "_base")

    def __init__(self, top: dict[str, NameRule], base: Mapping[str, NameRule]) -> None:
        self._top = top
        self._base = base

    def __getitem__(self, name: str) -> NameRule:
        rule = self._top.get(name)
        return rule if rule is not None else self._base[name]

    def get(self, name, default=None):
        rule = self._top.get(name)
        return rule if rule is not None else self._base.get(name, default)

    def __contains__(self, name) -> bool:
        return name in self._top or name in self._base

    def __iter__(self) -> Iterator[str]:
        yield from self._top
        yield from (n for n in self._base if n not in self._top)

    def __len__(self) -> int:
        return len(self._base) + sum(1 for n in self._top if n not in self._base)

    def __reduce__(self):
        return dict, (dict(self.items()),)


# (id of the base rule set, dialect, target) -> (the base, the overlaid rule set): made once a process
_OVERLAID: dict[tuple[int, str, Version], tuple[RuleSet, RuleSet]] = {}


def overlaid(rules: RuleSet, dialect: Dialect, target: Version) -> RuleSet:
    key = (id(rules), dialect.name, target)
    known = _OVERLAID.get(key)
    if known is not None and known[0] is rules:
        return known[1]
    layers = [layer for layer in dialect.layers if layer.applies(target)]
    merged = object.__new__(RuleSet)
    merged.__dict__.update(rules.__dict__)
    names: dict[str, NameRule] = {}
    merged.qualified = dict(rules.qualified)  # the base set's (thrust::cuda::par) beside the dialect's
    for layer in layers:
        names.update(layer.names)
        merged.qualified = {**merged.qualified, **layer.qualified}
        merged.headers = {**merged.headers, **layer.headers}
        merged.macros = {**merged.macros, **layer.macros}
        merged.namespaces = {**merged.namespaces, **layer.namespaces}
    merged.names = OverlaidNames(names, rules.names)  # type: ignore[assignment]  # read like the NameTable it wraps
    merged.dialect_names = names
    merged.dialect_scopes = frozenset(dialect.scopes)
    firsts = {cuda.split("::", 1)[0] for cuda in merged.qualified}
    merged.vocabulary = rules.vocabulary | {*names, *merged.macros, *merged.namespaces, *firsts, *dialect.scopes}
    merged.scan_memo = {}  # the scanner's answers differ now: never share the base set's
    merged.digest = f"{rules.digest}:{dialect.name}:{'.'.join(map(str, target))}"
    merged.dialects = {}  # an overlaid set is not overlaid again
    _OVERLAID[key] = (rules, merged)
    return merged


def dialect_for(
    source: bytes, rules: RuleSet, chosen: tuple[str, ...] = (), versions: tuple[tuple[str, str], ...] = ()
) -> tuple[RuleSet, Dialect | None]:
    """The rule set to port SOURCE with: the base one, or one overlaid by the dialect whose headers
    it includes (or that the build chose for it)."""
    for dialect in rules.dialects.values():
        if dialect.name in chosen or _includes(source, dialect):
            return overlaid(rules, dialect, dialect.target(versions)), dialect
    return rules, None


_INCLUDE_RES: dict[tuple[str, tuple[str, ...]], re.Pattern[bytes]] = {}


def _includes(source: bytes, dialect: Dialect) -> bool:
    if b"include" not in source:
        return False
    key = (dialect.name, dialect.detect_includes)
    pattern = _INCLUDE_RES.get(key)
    if pattern is None:
        pattern = _INCLUDE_RES[key] = dialect.include_re()
    return pattern.search(source) is not None
