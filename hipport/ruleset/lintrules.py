"""Porting lints and version-gated call rewrites, as rule data.

A `[[lint]]` names one of the structural matchers of hipport.lints.registry and its
parameters; the parser backend runs the matcher only at the candidates the
scanner found (identifiers and integer literals), so a lint never adds a walk
over the whole tree. A `[[rewrite]]` rewrites a call for targets older than the
HIP release that introduced it (the warp `*_sync` intrinsics).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from hipport.lints.matcher import LAUNCH
from hipport.lints.registry import LITERAL_TRIGGERED, MATCHERS, NAME_TRIGGERED
from hipport.lints.rule import StructuralLint as StructuralLint, int_value as int_value

# Every lint names a matcher registered in hipport.lints.registry (whose module's MATCHER says
# which parameters it requires and takes), and also has: code and message (words {name}, {target},
# {added}, {hip}), and may have: fix (the text that replaces the finding's span, with the same words;
# applied by convert only with fix_safe = true and where the matcher found it safe, otherwise offered
# as a suggestion), added (report only for targets older than this HIP), hip (the
# HIP spelling, which becomes the fix from `added` on), once (first hit per file),
# severity (overrides the code's), fixed_severity (the severity where convert applied the
# fix: the meaning was kept), library.
REGEX_FIELDS = ("operand", "calls", "subscript", "text", "pattern")


@dataclass(frozen=True, slots=True)
class RewriteRule:
    """A CUDA call HIP spells `hip` from HIP `since`, and `older` before that."""

    cuda: str
    hip: str
    since: str
    message: str
    origin: object
    older: str | None = None  # the call to emit for older targets; None: there is none
    drop_argument: int | None = None  # the argument older targets do not take (the mask)
    older_arguments: str | None = None  # the argument list older targets need when the call has none
    min_arguments: int = 0  # fewer arguments than this: not a call hipport understands
    mask_argument: int | None = None  # the argument HIP wants as a 64-bit integer
    enable_define: str | None = None  # macro needed before default_since to see the HIP name
    default_since: str | None = None
    older_platform: str | None = None  # the one HIP platform whose headers declare `older` ("amd"), if only one
    library: str = "Device_API"


@dataclass
class LintIndex:
    """What the scanner and the parser backend need to trigger lints."""

    rules: tuple[StructuralLint, ...] = ()
    by_name: dict[str, tuple[int, ...]] = field(default_factory=dict)
    by_literal: dict[int, tuple[int, ...]] = field(default_factory=dict)
    patterns: tuple[tuple[re.Pattern[str], int], ...] = ()
    launch: tuple[int, ...] = ()
    literal_re: re.Pattern[bytes] | None = None
    name_re: re.Pattern[str] = re.compile(r"(?!)")  # every pattern at once, for the scanner's quick test
    _pattern_cache: dict[str, tuple[int, ...]] = field(default_factory=dict, repr=False)

    def for_name(self, name: str) -> tuple[int, ...]:
        hit = self._pattern_cache.get(name)
        if hit is None:
            hit = self.by_name.get(name, ()) + tuple(i for regex, i in self.patterns if regex.match(name))
            self._pattern_cache[name] = hit
        return hit


def literal_regex(values: set[int]) -> re.Pattern[bytes] | None:
    """Integer literals with one of values, in any C spelling the scanner meets."""
    if not values:
        return None
    spellings = []
    for value in sorted(values):
        spellings.append(str(value))
        spellings.append(f"0[xX]0*(?i:{value:x})")
        if value > 7:
            spellings.append(f"0{value:o}")
    # No lookbehind: it would cost a step at every byte of the file. Callers
    # drop matches that continue a word or a number (x32, 1.32) with literal_start_ok.
    return re.compile(rb"(?:" + "|".join(spellings).encode() + rb")[uUlLzZ]*(?![\w.'])")


def literal_start_ok(source: bytes, start: int) -> bool:
    """A literal_regex match at start is a whole token, not the tail of x32 or 1.32."""
    before = source[start - 1 : start]
    return not before or not (before.isalnum() or before in b"_.'")


def validate_lint(entry: dict) -> tuple[str, str] | None:
    """(field, message) for a lint entry the generic schema check cannot judge."""
    match = entry.get("match")
    matcher = MATCHERS.get(match) if isinstance(match, str) else None
    if matcher is None:
        return "match", f"unknown matcher {match!r}: match must be one of {', '.join(sorted(MATCHERS))}"
    for name in sorted(matcher.required):
        if name not in entry:
            return "match", f"a '{match}' lint needs '{name}'"
    if matcher.check is not None:
        problem = matcher.check(entry)
        if problem is not None:
            return problem
    for name in REGEX_FIELDS:
        if name in entry:
            try:
                re.compile(entry[name])
            except (re.error, OverflowError, RecursionError) as exc:  # a user pattern can raise all three
                return name, f"bad regular expression {entry[name]!r}: {exc}"
    for literal in entry.get("literals", []):
        if int_value(literal) is None:
            return "literals", f"not an integer literal: {literal!r}"
    for operator in entry.get("operators", []):
        parts = operator.split()
        if len(parts) != 2 or int_value(parts[1]) is None:
            return "operators", f"operators are 'OP LITERAL' pairs such as '% 32', got {operator!r}"
    if "position" in entry and entry["position"] not in matcher.positions:
        return "position", f"position must be one of {', '.join(sorted(matcher.positions))}"
    if "fix_safe" in entry and "fix" not in entry and "hip" not in entry:
        return "fix_safe", "fix_safe needs a fix"
    for name in ("fixed_severity", "value_severity"):
        if entry.get(name, "info") not in ("error", "warning", "info"):
            return name, f"{name} must be one of error, info, warning"
    if "newest" in entry and "fix" not in entry:
        return "newest", "newest needs a fix (the presence test's replacement)"
    return None


def validate_rewrite(entry: dict) -> tuple[str, str] | None:
    for name in ("since", "default_since"):
        value = entry.get(name)
        if value is not None and not re.fullmatch(r"\d+(\.\d+){0,2}", value):
            return name, f"'{name}' is not a version: {value!r}"
    if "older" not in entry:
        for name in ("drop_argument", "older_arguments"):
            if name in entry:
                return name, f"'{name}' describes the older form: it needs 'older'"
    if ("enable_define" in entry) != ("default_since" in entry):
        return "enable_define", "'enable_define' and 'default_since' go together"
    return None


def _validated_int(text: str) -> int:
    value = int_value(text)
    if value is None:  # validate_lint turns such a rule file away before make_lint sees it
        raise ValueError(f"not an integer literal: {text!r}")
    return value


def make_lint(index: int, entry: dict, origin: object) -> StructuralLint:
    operators = tuple((op, _validated_int(value)) for op, value in (o.split() for o in entry.get("operators", [])))
    return StructuralLint(
        index=index,
        code=entry["code"],
        match=entry["match"],
        message=entry["message"],
        origin=origin,
        names=tuple(entry.get("names", ())),
        pattern=entry.get("pattern"),
        literals=tuple(_validated_int(v) for v in entry.get("literals", ())),
        operators=operators,
        argument=entry.get("argument", 0),
        operand=entry.get("operand"),
        calls=entry.get("calls"),
        position=entry.get("position"),
        subscript=entry.get("subscript"),
        types=tuple(" ".join(t.split()) for t in entry.get("types", ())),
        text=entry.get("text"),
        receivers=tuple(entry.get("receivers", ())),
        device_code=entry.get("device_code", False),
        pointer=entry.get("pointer", False),
        added=entry.get("added"),
        hip=entry.get("hip"),
        fix=entry.get("fix"),
        fix_safe=entry.get("fix_safe", False),
        severity=entry.get("severity"),
        fixed_severity=entry.get("fixed_severity"),
        value_severity=entry.get("value_severity"),
        newest=entry.get("newest"),
        once=entry.get("once", False),
        library=entry.get("library"),
        platform=entry.get("platform"),
        fix_definition=entry.get("fix_definition"),
    )


def make_rewrite(entry: dict, origin: object) -> RewriteRule:
    keys = (
        "older",
        "drop_argument",
        "older_arguments",
        "min_arguments",
        "mask_argument",
        "enable_define",
        "default_since",
        "older_platform",
        "library",
    )
    return RewriteRule(
        cuda=entry["cuda"],
        hip=entry["hip"],
        since=entry["since"],
        message=entry["message"],
        origin=origin,
        **{k: entry[k] for k in keys if k in entry},
    )


def build_index(lints: list[StructuralLint]) -> LintIndex:
    by_name: dict[str, list[int]] = {}
    by_literal: dict[int, list[int]] = {}
    patterns, launch = [], []
    for lint in lints:
        if lint.match in NAME_TRIGGERED:
            for name in lint.names:
                by_name.setdefault(name, []).append(lint.index)
            if lint.pattern:
                patterns.append((re.compile(rf"(?:{lint.pattern})\Z"), lint.index))
        elif lint.match in LITERAL_TRIGGERED:
            values = set(lint.literals) | {value for _, value in lint.operators}
            for value in values:
                by_literal.setdefault(value, []).append(lint.index)
        elif MATCHERS[lint.match].trigger == LAUNCH:
            launch.append(lint.index)
    return LintIndex(
        rules=tuple(lints),
        by_name={k: tuple(v) for k, v in by_name.items()},
        by_literal={k: tuple(v) for k, v in by_literal.items()},
        patterns=tuple(patterns),
        launch=tuple(launch),
        literal_re=literal_regex(set(by_literal)),
        name_re=re.compile("|".join(f"(?:{regex.pattern})" for regex, _ in patterns) or r"(?!)"),
    )
