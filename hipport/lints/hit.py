"""What a structural matcher reports: LintHit, one place where a lint of rules/lint-*.toml matched.
The parser backend gathers them (hipport.parse.sites.ParsedFile.lint_hits); findings.py turns them
into findings."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class LintHit:
    """A place where a structural lint (rules/lint-*.toml) matched."""

    rule: int  # index of the lint in the rule set
    start: int  # the span the finding points at, and that a fix replaces
    end: int
    name: str  # the matched text, for the message
    call: int | None = None  # for a hit on a call argument: where the call's name starts
    argument: int | None = None
    fixable: bool = True  # False when the matcher found the rule's fix unsafe at this place
    detail: str = ""  # words the message gains here, e.g. which macro the value came through
    trigger: str = ""  # the candidate name that started the match, if a name did
    own_name: bool = False  # the trigger names a declaration of the file's own where it is
    replacement: str | None = None  # the fix at this place, when the matcher composed it (else the rule's)
    severity: str | None = None  # the severity at this place, when the matcher knows better than the rule
