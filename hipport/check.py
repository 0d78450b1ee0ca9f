"""`hipport check`: analyse files, apply the team's policy and baseline, decide pass/fail.

Nothing is written. This is what the pre-commit hook runs on every commit.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from hipport.analysis import analyze
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
    paths: list[Path], rules: RuleSet, options: Options, policy: Policy = Policy(), baseline: Counter | None = None
) -> CheckRun:
    tree = analyze(paths, rules, options)
    run = CheckRun(results=tree.results, errors=tree.errors)
    for result in run.results:
        result.findings = policy.apply(result.findings)
        run.suppressed += result.suppressed
    if baseline:
        run.baselined = drop_known(run.results, baseline)
    return run


def format_line(path: str, finding) -> str:
    return f"{path}:{finding.line}:{finding.column}: {finding.severity.value} {finding.code} {finding.message}"


def split_codes(values: tuple[str, ...]) -> tuple[str, ...]:
    """--select/--ignore values: repeatable, each a comma-separated list."""
    return tuple(c.strip() for v in values for c in v.split(",") if c.strip())


def text_lines(run: CheckRun, quiet: bool) -> tuple[list[str], str | None]:
    """The text format: a line per finding, sorted (stdout), and the summary line (stderr) unless quiet."""
    lines = [
        format_line(path, finding)
        for path, finding in sorted(run.findings(), key=lambda pf: (pf[0], pf[1].line, pf[1].column, pf[1].code))
    ]
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
