"""Porting lints and version-gated call rewrites, as rule data.

A `[[lint]]` names one of a small set of structural matchers (MATCHERS) and its
parameters; the parser backend runs the matcher only at the candidates the
scanner found (identifiers and integer literals), so a lint never adds a walk
over the whole tree. A `[[rewrite]]` rewrites a call for targets older than the
HIP release that introduced it (the warp `*_sync` intrinsics).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# match kind -> (required parameters, optional parameters)
MATCHERS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    # argument N of a call to NAMES is an integer literal (or a file-local
    # #define of one) whose value is in LITERALS
    "call-argument": (frozenset({"names", "argument", "literals"}), frozenset()),
    # `x OP L` / `L OP x` with (OP, L) in OPERATORS and x mentioning an identifier
    # matching OPERAND, directly or through one assignment in the same function
    "binary-operand": (frozenset({"operators", "operand"}), frozenset()),
    # a for loop whose POSITION (initializer or condition) holds a literal in
    # LITERALS and whose body calls a function matching CALLS
    "loop-bound": (frozenset({"literals", "position", "calls"}), frozenset()),
    # a one-dimensional __shared__ array sized by a literal in LITERALS and
    # subscripted, in the same function, by an index matching SUBSCRIPT
    "shared-array": (frozenset({"literals", "subscript"}), frozenset()),
    # the result of a call to NAMES initialises or is assigned to a variable of
    # one of TYPES
    "call-result-type": (frozenset({"names", "types"}), frozenset()),
    # argument N of a call to NAMES is a call matching CALLS, or a variable
    # assigned from one in the same function
    "call-on-call": (frozenset({"names", "argument", "calls"}), frozenset()),
    # an asm statement (keywords in NAMES) whose text matches TEXT, or any asm
    # inside device code when DEVICE_CODE is true
    "asm": (frozenset({"names", "text"}), frozenset({"device_code"})),
    # a use of one of NAMES, or of a name matching PATTERN; with DEVICE_CODE, only inside a
    # __global__ or __device__ (not __host__ __device__) function
    "name": (frozenset(), frozenset({"names", "pattern", "device_code"})),
    # one of NAMES used as a class template (texture<float, 1>)
    "template-type": (frozenset({"names"}), frozenset()),
    # one of NAMES in a preprocessor test; presence tests (#ifdef, defined())
    # can take FIX; with NEWEST (a condition true where the macro is undefined but code
    # should count as newer than any of its values) comparisons and bare value tests can too
    # (hipport/parse/treesitter/lints/macro.py); a use in code is VALUE_SEVERITY
    "macro-test": (frozenset({"names"}), frozenset({"newest", "value_severity"})),
    # member NAMES of a variable this file declares with one of RECEIVERS as type
    "member": (frozenset({"names", "receivers"}), frozenset({"hip"})),
    # a <<<>>> launch inside __global__ or __device__ code
    "device-launch": (frozenset(), frozenset()),
    # NAMES.x/.y/.z (HIP's coordinate objects) as an argument of a call matching
    # CALLS, or as the whole initialiser of an auto variable (hipport/parse/treesitter/lints/semantic.py)
    "coordinate-member": (frozenset({"names", "calls"}), frozenset()),
    # the whole NAMES object initialising a variable of one of TYPES
    "coordinate-struct": (frozenset({"names", "types"}), frozenset()),
    # a variable or parameter of one of the handle types NAMES (or a cast to one)
    # used as an operand of a binary operator matching TEXT (hipport/parse/treesitter/lints/semantic.py)
    "handle-arithmetic": (frozenset({"names", "text"}), frozenset()),
    # a free, non-template operator matching TEXT on one of the vector types NAMES,
    # which HIP's own member operators make ambiguous (hipport/lints/vector_operator.py);
    # POSITION "binary": a binary operator taking two of the type (by value or const reference),
    # which HIP's non-template friends make ambiguous
    "vector-operator": (frozenset({"names", "text"}), frozenset({"position"})),
    # argument N of a call to NAMES is a variable its function declares with one of TYPES: a
    # pointer to one with POINTER (`T *p` passed as p or p + i, `T v` passed as &v), else a value
    "argument-type": (frozenset({"names", "argument", "types"}), frozenset({"pointer"})),
    # a file-scope definition of function NAMES whose first parameter points to one of TYPES,
    # which HIP's headers already define (hipport/lints/own_overload.py)
    "own-overload": (frozenset({"names", "types"}), frozenset()),
}
# Every lint also has: code and message (words {name}, {target}, {added}, {hip}),
# and may have: fix (the text that replaces the finding's span, with the same words; applied by convert
# only with fix_safe = true and where the matcher found it safe, otherwise offered
# as a suggestion), added (report only for targets older than this HIP), hip (the
# HIP spelling, which becomes the fix from `added` on), once (first hit per file),
# severity (overrides the code's), fixed_severity (the severity where convert applied the
# fix: the meaning was kept), library.
NAME_TRIGGERED = {
    "argument-type",
    "call-argument",
    "call-result-type",
    "call-on-call",
    "asm",
    "name",
    "template-type",
    "macro-test",
    "member",
    "coordinate-member",
    "coordinate-struct",
    "handle-arithmetic",
}
LITERAL_TRIGGERED = {"binary-operand", "loop-bound", "shared-array"}
# Kinds about a function or macro by name: silent where the file defines that name itself
# (a compatibility shim that defines __shfl_sync, or its own __CUDA_ARCH__).
OWN_NAME_SILENCES = {"argument-type", "call-argument", "call-result-type", "call-on-call", "name", "macro-test"}
POSITIONS = {"initializer", "condition"}
VECTOR_POSITIONS = {"binary"}
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


@dataclass(frozen=True, slots=True)
class StructuralLint:
    index: int
    code: str
    match: str
    message: str
    origin: object
    names: tuple[str, ...] = ()
    pattern: str | None = None
    literals: tuple[int, ...] = ()
    operators: tuple[tuple[str, int], ...] = ()
    argument: int = 0
    operand: str | None = None
    calls: str | None = None
    position: str | None = None
    subscript: str | None = None
    types: tuple[str, ...] = ()
    text: str | None = None
    receivers: tuple[str, ...] = ()
    device_code: bool = False
    pointer: bool = False  # argument-type: the argument points to one of types
    added: str | None = None  # the lint applies only to targets older than this HIP
    hip: str | None = None  # HIP's spelling, when HIP has the thing under another name
    fix: str | None = None
    fix_safe: bool = False
    severity: str | None = None
    fixed_severity: str | None = None  # the severity where convert applied the fix
    value_severity: str | None = None  # macro-test: a use of the macro in code, which no fix keeps
    newest: str | None = None  # macro-test: the condition under which comparisons count as newest
    once: bool = False  # report the first occurrence in a file only
    library: str | None = None
    platform: str | None = None  # the only platform whose headers take the construct: report when porting for others


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


def int_value(text: str | bytes) -> int | None:
    """The value of a C integer literal (0x1F, 32u, 1'000), or None."""
    if isinstance(text, bytes):
        text = text.decode("ascii", "replace")
    digits = text.strip().replace("'", "").rstrip("uUlLzZ")
    try:
        if digits[:2].lower() == "0x":
            return int(digits[2:], 16)
        if digits[:2].lower() == "0b":
            return int(digits[2:], 2)
        if len(digits) > 1 and digits[0] == "0":
            return int(digits[1:], 8)
        return int(digits, 10)
    except ValueError:
        return None


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
    if match not in MATCHERS:
        return "match", f"match must be one of {', '.join(sorted(MATCHERS))}"
    required, _optional = MATCHERS[match]
    for name in sorted(required):
        if name not in entry:
            return "match", f"a '{match}' lint needs '{name}'"
    if match == "name" and not (entry.get("names") or entry.get("pattern")):
        return "match", "a 'name' lint needs 'names' or 'pattern'"
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
    positions = VECTOR_POSITIONS if match == "vector-operator" else POSITIONS
    if "position" in entry and entry["position"] not in positions:
        return "position", f"position must be one of {', '.join(sorted(positions))}"
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
        elif lint.match == "device-launch":
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
