"""A file's verdict for a reviewer, the libraries its port needs, and an estimate of the work.

The verdict comes from the findings alone (hipport.emit.verdict decides it, so that a report read
back from disk judges as a fresh run); this layer words it and adds what a reviewer plans with:
- "will not build": an error finding says why (its codes are listed);
- "needs review": a warning names something that may not build or may behave differently (a
  name no rule knows, a 32-lane warp assumption);
- "ports automatically": nothing stands in the way; the port may still need a ROCm library.

The libraries a file needs are those its ported includes name (HP436) and those its ported
names come from: a file that calls cuDNN through a project header needs MIOpen as surely as
the one that includes cudnn.h. Which ROCm library replaces a CUDA one is rule data: the header
rules of the CUDA library give its HIP include paths, and `library_need` names their library.

The work estimate counts problems, not findings. A problem is one code and name in one file:
its first instance costs the minutes its code's effort class stands for (rules/codes.toml:
high 60, medium 20, low 5), each further instance a tenth of that, as its fix is known by then,
and another name of a code met already in the file half (the four names of CUDA's L2 access
window are one change). Information costs nothing: the port kept the meaning.
The torch engineer's operator view builds on file_verdict.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from hipport.emit.verdict import verdict
from hipport.engine.library_needs import _need as need_for
from hipport.ruleset.model import RuleSet

LABELS = {"fails": "will not build", "review": "needs review", "ports": "ports automatically"}
RANK = {"fails": 2, "review": 1, "ports": 0}
FIRST_MINUTES = {"high": 60, "medium": 20, "low": 5}
REPEAT_SHARE = 0.1
OTHER_NAME_SHARE = 0.5
DEFAULT_EFFORT = "medium"  # a code the rules do not know (a report from a newer hipport)


@dataclass(frozen=True)
class FileVerdict:
    kind: str  # fails | review | ports
    because: tuple[str, ...]  # the error codes (fails) or warning codes (review)
    needs: tuple[str, ...]  # libraries beyond the HIP runtime, by name (hipBLAS, MIOpen)
    minutes: int  # the estimated work

    @property
    def label(self) -> str:
        return LABELS[self.kind]

    @property
    def rank(self) -> int:
        """Higher is worse: for sorting worst first."""
        return RANK[self.kind]


def file_verdict(entry: dict, rules: RuleSet, roc: bool = False) -> FileVerdict:
    """The verdict of one file entry of the JSON report (or any dict with its `findings` and
    `converted`)."""
    findings = entry.get("findings", [])
    judged = verdict(findings)
    kind = "ports" if judged["verdict"] == "needs-library" else judged["verdict"]
    needs = set(judged["needs"]) | libraries_for(entry.get("converted", {}), rules, roc)
    return FileVerdict(kind, tuple(judged["because"]), tuple(sorted(needs)), work_minutes(findings, rules))


def work_minutes(findings: Iterable[dict], rules: RuleSet) -> int:
    problems: Counter[tuple[str, str]] = Counter()
    for finding in findings:
        if finding.get("severity") in ("error", "warning"):
            problems[finding["code"], finding.get("name", "")] += 1
    total = 0.0
    seen: set[str] = set()
    for (code, _), count in problems.items():
        info = rules.codes.get(code)
        first: float = FIRST_MINUTES.get(info.effort if info else DEFAULT_EFFORT, FIRST_MINUTES[DEFAULT_EFFORT])
        if code in seen:  # another name of a code met already: the same kind of change
            first *= OTHER_NAME_SHARE
        seen.add(code)
        total += first + (count - 1) * first * REPEAT_SHARE
    return round(total)


def format_minutes(minutes: int) -> str:
    """10 min, 45 min, 1.5 h, 12 h: to 5 minutes, and to the half hour above an hour, as an estimate should be."""
    if minutes <= 0:
        return "none"
    if minutes < 60:
        return f"{max(5, round(minutes / 5) * 5)} min"
    hours = round(minutes / 30) / 2
    return f"{hours:g} h"


def libraries_for(converted: dict[str, int], rules: RuleSet, roc: bool = False) -> set[str]:
    """The ROCm libraries the ported names of these CUDA libraries need."""
    replacing = replacements(rules, roc)
    return {replacing[library] for library in converted if library in replacing}


def replacements(rules: RuleSet, roc: bool = False) -> dict[str, str]:
    """CUDA library (as the rules name it: CUBLAS) -> the ROCm library its port needs (hipBLAS):
    the library the most of its header rules' HIP paths need."""
    key = (rules.digest, roc)
    known = _REPLACEMENTS.get(key)
    if known is None:
        votes: dict[str, Counter[str]] = {}
        for header in rules.headers.values():
            path = (header.roc if roc and header.roc else None) or header.hip
            need = need_for(path, rules.library_needs) if path else None
            if need is not None:
                votes.setdefault(header.library, Counter())[need.library] += 1
        known = _REPLACEMENTS[key] = {library: count.most_common(1)[0][0] for library, count in votes.items()}
    return known


def packages(rules: RuleSet) -> dict[str, str]:
    """ROCm library -> the package that installs it, where the rules give one."""
    return {need.library: need.package for need in rules.library_needs if need.package}


def replaced(rules: RuleSet, roc: bool = False) -> dict[str, list[str]]:
    """ROCm library -> the CUDA libraries (as the rules name them) it stands for in a port."""
    found: dict[str, list[str]] = {}
    for cuda, rocm in sorted(replacements(rules, roc).items()):
        found.setdefault(rocm, []).append(cuda)
    return found


_REPLACEMENTS: dict[tuple[str, bool], dict[str, str]] = {}
