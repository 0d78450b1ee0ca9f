"""What a reviewer must do, worst first: the action list the text and Markdown reports lead with.

1. files that will not build, and why (each distinct problem once, with its count and the
   finding's message, which says what to write instead where a next step exists);
2. silent runtime risks: code that builds and runs, differently, on 64-lane wavefronts;
3. the ROCm libraries to install, with the package and the CUDA library each replaces;
4. files that need review for other warnings;
5. what ported automatically.
A problem is one code and name in one file; its instances are counted, not repeated.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hipport.report.metrics import FileMetrics, Metrics, format_percent, library_title
from hipport.report.operators import operator_lines
from hipport.report.verdict import file_verdict, packages, replaced
from hipport.ruleset.model import RuleSet

# The codes of code that builds and runs on AMD, but assumes 32-lane warps (the warp-size lints,
# and warp *_sync calls whose mask an older HIP drops or that take 64-bit masks).
RUNTIME_RISK_CODES = ("HP40", "HP211", "HP213")
RUNTIME_RISK_TITLE = "32-lane warp assumptions (AMD wavefronts have 64 lanes)"


@dataclass
class Problem:
    code: str
    name: str
    message: str
    line: int
    count: int = 1


@dataclass
class FileActions:
    file: FileMetrics
    problems: list[Problem] = field(default_factory=list)

    @property
    def places(self) -> int:
        return sum(p.count for p in self.problems)


@dataclass
class LibraryToInstall:
    library: str
    package: str | None
    replaces: list[str]  # CUDA libraries, by title
    files: int


@dataclass
class Section:
    """One numbered item of the action list: its head ("Will not build"), what follows the head
    ("3 file(s)"), and the files or libraries it lists."""

    head: str
    detail: str
    files: list[FileActions] = field(default_factory=list)
    libraries: list[LibraryToInstall] = field(default_factory=list)


@dataclass
class ActionList:
    will_not_build: list[FileActions]
    runtime_risks: list[FileActions]
    libraries: list[LibraryToInstall]
    review: list[FileActions]
    ports: list[FileMetrics]  # files nothing stands in the way of


def sections(a: ActionList, m: Metrics) -> list[Section]:
    """The action list's items, worst first; those with nothing to say are left out, but the last."""
    items = []
    if a.will_not_build:
        items.append(Section("Will not build", f"{len(a.will_not_build)} file(s)", a.will_not_build))
    if a.runtime_risks:
        places = sum(f.places for f in a.runtime_risks)
        detail = f"{RUNTIME_RISK_TITLE}: {len(a.runtime_risks)} file(s), {places} place(s)"
        items.append(Section("Silent runtime risks", detail, a.runtime_risks))
    if a.libraries:
        names = ", ".join(lib.library for lib in a.libraries)
        items.append(Section("Libraries to install", names, libraries=a.libraries))
    if a.review:
        items.append(Section("Needs review", f"{len(a.review)} file(s)", a.review))
    detail = (
        f"{m.ported_automatically} of {m.references} CUDA references ({format_percent(m.percent)}); "
        f"{len(a.ports)} file(s) need nothing by hand"
    )
    items.append(Section("Ported automatically", detail))
    return items


def verdict_counts(metrics: Metrics) -> list[tuple[str, str]]:
    """(kind, "3 will not build") for each verdict, worst first, in words that agree with the count."""
    counts = {kind: sum(1 for f in metrics.files if f.kind == kind) for kind in ("fails", "review", "ports")}
    return [
        ("fails", f"{counts['fails']} will not build"),
        ("review", f"{counts['review']} {'needs' if counts['review'] == 1 else 'need'} review"),
        ("ports", f"{counts['ports']} {'ports' if counts['ports'] == 1 else 'port'} automatically"),
    ]


def operator_summary(report: dict, rules: RuleSet) -> list[str]:
    """A PyTorch extension's operator view (report/operators.py) as lines, a heading first, judging
    each file as the rest of the report does; none for a report without operators."""
    roc = bool(report.get("options", {}).get("roc"))
    return operator_lines(report, lambda entry: file_verdict(entry, rules, roc))


def is_runtime_risk(code: str) -> bool:
    return code.startswith(RUNTIME_RISK_CODES)


def action_list(report: dict, metrics: Metrics, rules: RuleSet) -> ActionList:
    findings = {entry["path"]: entry.get("findings", []) for entry in report.get("files", [])}
    fails, risks, review = [], [], []
    for f in metrics.files:
        own = findings.get(f.path, [])
        if f.kind == "fails":
            fails.append(FileActions(f, _problems(own, lambda s, c: s == "error")))
        warp = _problems(own, lambda s, c: s in ("error", "warning") and is_runtime_risk(c))
        if warp:
            risks.append(FileActions(f, warp))
        if f.kind == "review":
            other = _problems(own, lambda s, c: s == "warning" and not is_runtime_risk(c))
            if other:
                review.append(FileActions(f, other))
    for group in (fails, risks, review):
        group.sort(key=lambda a: (-a.file.minutes, -a.places, a.file.path))
    return ActionList(
        will_not_build=fails,
        runtime_risks=risks,
        libraries=_libraries(metrics, rules, bool(report.get("options", {}).get("roc"))),
        review=review,
        ports=[f for f in metrics.files if f.kind == "ports"],
    )


def _problems(findings: list[dict], wanted) -> list[Problem]:
    problems: dict[tuple[str, str], Problem] = {}
    for finding in findings:
        code = finding["code"]
        if not wanted(finding["severity"], code):
            continue
        key = (code, finding.get("name", ""))
        if key in problems:
            problems[key].count += 1
        else:
            problems[key] = Problem(code, key[1], finding.get("message", ""), finding.get("line", 0))
    return sorted(problems.values(), key=lambda p: (p.line, p.code))


def _libraries(metrics: Metrics, rules: RuleSet, roc: bool) -> list[LibraryToInstall]:
    package = packages(rules)
    cuda = replaced(rules, roc)
    return [
        LibraryToInstall(library, package.get(library), [library_title(c, rules) for c in cuda.get(library, [])], n)
        for library, n in sorted(metrics.libraries_needed.items(), key=lambda kv: (-kv[1], kv[0]))
    ]
