"""Which findings a team wants to see, and at what severity: select, ignore, overrides.

Codes match by prefix, as in ruff: "HP2" selects every version finding.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from hipport.diagnostics import Finding, Severity


@dataclass(frozen=True)
class Policy:
    select: tuple[str, ...] = ()  # empty: every code
    ignore: tuple[str, ...] = ()
    severity: dict[str, str] = field(default_factory=dict)

    def admits(self, code: str) -> bool:
        if self.select and not any(code.startswith(p) for p in self.select):
            return False
        return not any(code.startswith(p) for p in self.ignore)

    def severity_of(self, finding: Finding) -> Severity:
        # The longest matching prefix wins, so "HP2 = info" with "HP201 = error" reads naturally.
        best = max((p for p in self.severity if finding.code.startswith(p)), key=len, default=None)
        return Severity(self.severity[best]) if best is not None else finding.severity

    def apply(self, findings: Iterable[Finding]) -> list[Finding]:
        kept = []
        for finding in findings:
            if self.admits(finding.code):
                finding.severity = self.severity_of(finding)
                kept.append(finding)
        return kept


def reaches(findings: Iterable[Finding], fail_on: str) -> bool:
    """True when some finding is at least as severe as fail_on ('never' never fails)."""
    if fail_on == "never":
        return False
    threshold = Severity(fail_on).rank
    return any(f.severity.rank >= threshold for f in findings)
