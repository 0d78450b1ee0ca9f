"""From lint hits to findings: version gates, messages and fixes.

A fix is applied by convert only when its rule says it is safe (fix_safe) and
the matcher found it safe at that place (a literal written at the call, a
presence test of a macro); otherwise it is reported as a suggestion.
"""

from __future__ import annotations

from dataclasses import dataclass

from hipport.diagnostics import Applicability
from hipport.lints.hit import LintHit
from hipport.lints.rule import StructuralLint
from hipport.versions import Version, format_version, parse_version


@dataclass
class LintOutcome:
    code: str
    start: int
    end: int
    name: str
    message: str
    severity: str | None
    library: str | None
    fix: str | None
    applicability: Applicability | None


class _Words(dict):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def lint_outcome(hit: LintHit, rule: StructuralLint, target: Version, call_kept: bool) -> LintOutcome | None:
    """The finding for hit, or None when the rule does not apply to this target.

    call_kept: for a hit on a call's argument, whether the call stays as written
    (a rewrite to an older form drops or moves arguments, so no fix applies).
    """
    fix = hit.replacement if hit.replacement is not None else rule.fix
    if rule.added and target >= parse_version(rule.added):
        if rule.hip is None:
            return None  # the target has it
        fix = rule.hip
    words = _Words(
        name=hit.name,
        target=format_version(target),
        hip=rule.hip or "",
        added=format_version(parse_version(rule.added)) if rule.added else "",
    )
    message = rule.message.format_map(words)
    if fix is not None and "{" in fix:
        fix = fix.format_map(words)
    if hit.detail:
        message = f"{message} {hit.detail}"
    applicability = None
    severity = hit.severity or rule.severity
    if fix is not None:
        safe = (rule.fix_safe or fix == rule.hip) and hit.fixable and call_kept
        applicability = Applicability.SAFE if safe else Applicability.UNSAFE
        if safe and rule.fixed_severity:
            severity = rule.fixed_severity
    return LintOutcome(rule.code, hit.start, hit.end, hit.name, message, severity, rule.library, fix, applicability)
