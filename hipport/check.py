"""`hipport check`: analyse files, apply the team's policy and baseline, decide pass/fail.

Nothing is written. This is what the pre-commit hook runs on every commit.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import groupby
from pathlib import Path

from hipport.analysis import analyze
from hipport.diagnostics import Finding
from hipport.baseline import drop_known
from hipport.options import Options
from hipport.policy import Policy, reaches
from hipport.ruleset.model import RuleSet


@dataclass
class CheckRun:
    results: list = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    suppressed: int = 0
    baselined: int = 0

    def findings(self):
        for result in self.results:
            for finding in result.findings:
                yield result.path, finding

    @property
    def nothing_checked(self) -> bool:
        """Every path named was an error (missing, unreadable): the error lines say it all."""
        return bool(self.errors) and not self.results

    def fails(self, fail_on: str) -> bool:
        return reaches((f for _, f in self.findings()), fail_on)


def run_check(
    paths: list[Path],
    rules: RuleSet,
    options: Options,
    policy: Policy = Policy(),
    baseline: Counter | None = None,
    progress=None,
) -> CheckRun:
    tree = analyze(paths, rules, options, progress)
    run = CheckRun(results=tree.results, errors=tree.errors)
    for result in run.results:
        result.findings = policy.apply(result.findings)
        run.suppressed += result.suppressed
    if baseline:
        run.baselined = drop_known(run.results, baseline)
    return run


# Per file and code, the findings listed before the rest are counted in one line: a generated
# 5 MB file's 36,000 HP401 warnings say nothing the first ten do not.
SHOWN_PER_CODE = 10


def format_line(path: str, finding) -> str:
    return f"{path}:{finding.line}:{finding.column}: {finding.severity.value} {finding.code} {finding.message}"


def finding_lines(findings: Iterable[tuple[str, Finding]], every: bool = False) -> list[str]:
    """A line per (path, finding), sorted; past SHOWN_PER_CODE of one code in one file, unless
    every, one line says how many more there are."""
    lines: list[str] = []
    ordered = sorted(findings, key=lambda pf: (pf[0], pf[1].line, pf[1].column, pf[1].code))
    for path, group in groupby(ordered, key=lambda pf: pf[0]):
        shown: Counter[str] = Counter()
        more: Counter[str] = Counter()
        for _, finding in group:
            code = finding.code
            if every or shown[code] < SHOWN_PER_CODE:
                lines.append(format_line(path, finding))
                shown[code] += 1
            else:
                more[code] += 1
        lines += [f"{path}: ... and {n:,} more {code} in this file" for code, n in sorted(more.items())]
    return lines


def split_codes(values: tuple[str, ...]) -> tuple[str, ...]:
    """--select/--ignore values: repeatable, each a comma-separated list."""
    return tuple(c.strip() for v in values for c in v.split(",") if c.strip())


def text_lines(run: CheckRun, quiet: bool, fail_on: str = "error", every: bool = False) -> tuple[list[str], str | None]:
    """The text format: a line per finding, sorted (stdout), and the summary line (stderr). Quiet,
    for a hook: no summary, and no information findings unless they are what fails the check."""
    shown = run.findings()
    if quiet and fail_on != "info":
        shown = ((path, f) for path, f in shown if f.severity.value != "info")
    lines = finding_lines(shown, every)
    if quiet or run.nothing_checked:
        return lines, None
    counts = {"error": 0, "warning": 0, "info": 0}
    for _, finding in run.findings():
        counts[finding.severity.value] += 1
    hidden = []
    if run.suppressed:
        hidden.append(f"{run.suppressed} suppressed")
    if run.baselined:
        hidden.append(f"{run.baselined} in baseline")
    return lines, (
        f"hipport check: {len(run.results)} file(s); {counts['error']} error(s), "
        f"{counts['warning']} warning(s), {counts['info']} info" + (f" ({', '.join(hidden)})" if hidden else "")
    )
