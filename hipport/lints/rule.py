"""A lint rule as its matcher reads it (StructuralLint: one `[[lint]]` of rules/lint-*.toml, compiled by
hipport.ruleset.lintrules), and the C integer literals its parameters and the code spell."""

from __future__ import annotations

from dataclasses import dataclass


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
    # what the fix names, defined once in the file before the first fix (engine/polyfills.py): a
    # macro that spells the construct for whichever platform compiles it
    fix_definition: str | None = None


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
