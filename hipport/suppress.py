"""`// hipport: ignore[CODE]` comments: findings a developer has looked at and accepted.

Like ruff's noqa, a suppression must name its codes, so that a new kind of
problem on the same line is still reported. A suppression that matches nothing
is reported too: stale ones would otherwise hide the next real finding.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from hipport.diagnostics import Finding, LineIndex, Severity, assign_positions_and_fingerprints

# Anchored on a comment opener so that the text inside a string literal that
# merely mentions the syntax (as this docstring does) is unlikely to match.
DIRECTIVE = re.compile(rb"(?://|/\*)[ \t]*hipport:[ \t]*(?P<kind>file-ignore|ignore)\b(?:\[(?P<codes>[^\]\r\n]*)\])?")
CODE = re.compile(r"^[A-Z]+[0-9]*$")


@dataclass
class Directive:
    kind: str  # "ignore" or "file-ignore"
    codes: tuple[str, ...]
    start: int
    end: int
    line: int
    used: set[str] = field(default_factory=set)

    def covers(self, finding: Finding) -> str | None:
        """The code (or code prefix) that suppresses finding, if any."""
        if self.kind == "ignore" and finding.line not in (self.line, self.line + 1):
            return None
        for code in self.codes:
            if finding.code.startswith(code):
                return code
        return None


def find_directives(source: bytes) -> list[Directive]:
    if b"hipport:" not in source:
        return []
    index = LineIndex(source)
    directives = []
    for match in DIRECTIVE.finditer(source):
        raw = (match.group("codes") or b"").decode("ascii", "replace")
        codes = tuple(c.strip() for c in raw.split(",") if c.strip())
        line, _ = index.position(match.start())
        directives.append(Directive(match.group("kind").decode(), codes, match.start(), match.end(), line))
    return directives


def apply_suppressions(source: bytes, findings: list[Finding]) -> tuple[list[Finding], int]:
    """Drop suppressed findings; add findings for malformed and unused suppressions.

    Returns the findings to report and how many were suppressed.
    """
    directives = find_directives(source)
    if not directives:
        return findings, 0
    kept: list[Finding] = []
    suppressed = 0
    for finding in findings:
        matched = False
        for directive in directives:
            code = directive.covers(finding)
            if code is not None:
                directive.used.add(code)
                matched = True
        if matched:
            suppressed += 1
        else:
            kept.append(finding)
    extra = []
    for directive in directives:
        spelled = "file-ignore" if directive.kind == "file-ignore" else "ignore"
        bad = [c for c in directive.codes if not CODE.match(c)]
        if not directive.codes or bad:
            extra.append(
                Finding(
                    "HP801",
                    Severity.WARNING,
                    directive.start,
                    directive.end,
                    spelled,
                    f"'hipport: {spelled}' must name the codes it suppresses, e.g. "
                    f"'// hipport: {spelled}[HP101]'" + (f"; not a code: {', '.join(bad)}" if bad else ""),
                )
            )
            continue
        unused = [c for c in directive.codes if c not in directive.used]
        if unused:
            extra.append(
                Finding(
                    "HP802",
                    Severity.INFO,
                    directive.start,
                    directive.end,
                    ",".join(unused),
                    f"this suppression of {', '.join(unused)} matches no finding; remove it",
                )
            )
    if extra:
        assign_positions_and_fingerprints(extra, LineIndex(source))
        kept = sorted(kept + extra, key=lambda f: (f.line, f.column, f.code))
    return kept, suppressed
