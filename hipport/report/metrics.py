"""The numbers every report format shows, derived from the JSON report alone.

They are computed from the report's files (not from live port results) so that
`hipport report --from old.json` renders the same numbers as a fresh analysis,
and a report written before these fields existed still renders.

A CUDA reference is one use of a name the rules know or that looks like CUDA.
It ports automatically when hipport renamed it and the target HIP has the new
name. It does not when HIP has no equivalent (HP101), no rule knows the name
(HP102, counted from the file's `unmapped` table), or the HIP name is newer
than the target or was removed from it (HP201, HP203; these were renamed, so
they are part of `converted` too).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from hipport.emit.verdict import NEEDS_LIBRARY_CODE, VERDICTS
from hipport.report.verdict import file_verdict, replaced
from hipport.ruleset.codes import CodeTables
from hipport.ruleset.model import RuleSet

SEVERITIES = ("error", "warning", "info")
EFFORT_CLASSES = ("high", "medium", "low")
UNMAPPED_CODE = "HP102"
NO_LIBRARY = "other"


def finding_group(finding: dict, tables: CodeTables, cuda_library: dict[str, str] | None = None) -> str:
    """The CUDA library a finding is about, or else its code's family (rules/codes.toml). A library the
    port needs (HP436 names hipBLAS) counts for the CUDA library it replaces (cuBLAS), given cuda_library."""
    library = finding.get("library")
    if library and finding.get("code") == NEEDS_LIBRARY_CODE and cuda_library:
        library = cuda_library.get(library, library)
    if library:
        return library
    code = finding.get("code", "")
    return tables.family(code) or NO_LIBRARY


@dataclass
class NameRow:
    """A CUDA name that did not port automatically, with where it is used."""

    name: str
    code: str
    status: str
    library: str | None
    count: int = 0
    locations: list[str] = field(default_factory=list)


@dataclass
class CodeRow:
    code: str
    name: str
    severity: str  # the severities its findings have, worst first ("warning/info"), not the code's default
    effort: str
    summary: str
    help: str
    count: int
    severities: dict[str, int] = field(default_factory=dict)


@dataclass
class FileMetrics:
    path: str
    converted: int
    converted_by_library: dict[str, int]
    unmapped: int
    unsupported: int
    target_lacks: int
    launches: int
    findings_by_severity: dict[str, int]
    effort: str | None  # the highest effort class among the file's findings
    verdict: str = "ports"  # what the findings predict the compiler will say (hipport/emit/verdict.py)
    needs: list[str] = field(default_factory=list)  # libraries beyond the HIP runtime
    kind: str = "ports"  # fails | review | ports (hipport/report/verdict.py)
    label: str = "ports automatically"
    minutes: int = 0  # the estimated work

    @property
    def references(self) -> int:
        return self.converted + self.unmapped + self.unsupported

    @property
    def ported_automatically(self) -> int:
        return self.converted - self.target_lacks

    @property
    def percent(self) -> float | None:
        return percent(self.ported_automatically, self.references)


@dataclass
class Metrics:
    hip_version: str
    files: list[FileMetrics]
    converted_by_library: dict[str, int]
    converted_by_library_kind: dict[str, dict[str, int]]
    kinds: list[str]
    not_ported: list[NameRow]
    findings_by_code: list[CodeRow]
    findings_by_library: dict[str, dict[str, int]]
    findings_by_severity: dict[str, int]
    effort_by_class: dict[str, int]
    launches: int
    verdicts: dict[str, int] = field(default_factory=dict)
    libraries_needed: dict[str, int] = field(default_factory=dict)  # library -> files that need it

    @property
    def minutes(self) -> int:
        return sum(f.minutes for f in self.files)

    @property
    def converted(self) -> int:
        return sum(f.converted for f in self.files)

    @property
    def unmapped(self) -> int:
        return sum(f.unmapped for f in self.files)

    @property
    def unsupported(self) -> int:
        return sum(f.unsupported for f in self.files)

    @property
    def target_lacks(self) -> int:
        return sum(f.target_lacks for f in self.files)

    @property
    def references(self) -> int:
        return sum(f.references for f in self.files)

    @property
    def ported_automatically(self) -> int:
        return sum(f.ported_automatically for f in self.files)

    @property
    def percent(self) -> float | None:
        return percent(self.ported_automatically, self.references)

    @property
    def findings(self) -> int:
        return sum(self.findings_by_severity.values())


def percent(part: int, whole: int) -> float | None:
    return round(100.0 * part / whole, 1) if whole else None


def format_percent(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f}%"


def measure(report: dict, rules: RuleSet) -> Metrics:
    files, codes, tables = report.get("files", []), rules.codes, rules.code_tables
    by_library: Counter = Counter()
    by_library_kind: dict[str, Counter] = defaultdict(Counter)
    findings_by_library: dict[str, Counter] = defaultdict(Counter)
    by_code: Counter = Counter()
    by_severity: Counter = Counter(dict.fromkeys(SEVERITIES, 0))
    effort: Counter = Counter(dict.fromkeys(EFFORT_CLASSES, 0))
    rows: dict[tuple[str, str], NameRow] = {}
    severities_by_code: dict[str, Counter] = defaultdict(Counter)
    roc = bool(report.get("options", {}).get("roc"))
    cuda_library = {rocm: cudas[0] for rocm, cudas in replaced(rules, roc).items()}
    file_metrics = []
    for entry in files:
        by_library.update(entry.get("converted", {}))
        for name, count in entry.get("converted_names", {}).items():
            library, kind = _library_and_kind(name, rules)
            by_library_kind[library][kind] += count
        file_severity: Counter = Counter(dict.fromkeys(SEVERITIES, 0))
        file_efforts = set()
        counted: Counter[str] = Counter()
        for finding in entry.get("findings", []):
            code, severity = finding["code"], finding["severity"]
            by_code[code] += 1
            severities_by_code[code][severity] += 1
            by_severity[severity] += 1
            file_severity[severity] += 1
            findings_by_library[finding_group(finding, tables, cuda_library)][severity] += 1
            cls = codes[code].effort if code in codes else "medium"
            effort[cls] += 1
            file_efforts.add(cls)
            if code in tables.not_ported:
                counted[code] += 1
                row = _row(rows, code, finding["name"], finding.get("library"), tables.not_ported[code])
                row.locations.append(f"{entry['path']}:{finding['line']}:{finding['column']}")
                if code != UNMAPPED_CODE:
                    row.count += 1
        # the unmapped table is the data: its HP102 findings may have been suppressed
        for name, count in entry.get("unmapped", {}).items():
            _row(rows, UNMAPPED_CODE, name, None, tables.not_ported[UNMAPPED_CODE]).count += count
        file_metrics.append(_file_metrics(entry, rules, roc, file_severity, file_efforts, counted))
    kinds = sorted({k for per_kind in by_library_kind.values() for k in per_kind})
    return Metrics(
        hip_version=report.get("options", {}).get("hip_version", "?"),
        files=file_metrics,
        converted_by_library=dict(sorted(by_library.items())),
        converted_by_library_kind={lib: dict(sorted(c.items())) for lib, c in sorted(by_library_kind.items())},
        kinds=kinds,
        not_ported=sorted(rows.values(), key=lambda r: (-r.count, r.name, r.code)),
        findings_by_code=[
            _code_row(code, count, rules, severities_by_code[code]) for code, count in sorted(by_code.items())
        ],
        findings_by_library={
            lib: {s: c[s] for s in SEVERITIES}
            for lib, c in sorted(findings_by_library.items(), key=lambda kv: (-sum(kv[1].values()), kv[0]))
        },
        findings_by_severity=dict(by_severity),
        effort_by_class={c: effort[c] for c in EFFORT_CLASSES},
        launches=sum(f.launches for f in file_metrics),
        verdicts={v: sum(1 for f in file_metrics if f.verdict == v) for v in VERDICTS},
        libraries_needed=dict(sorted(Counter(n for f in file_metrics for n in f.needs).items())),
    )


def _file_metrics(
    entry: dict, rules: RuleSet, roc: bool, severity: Counter, efforts: set[str], counted: Counter[str]
) -> FileMetrics:
    """One file's line of the report, from its entry and what measure counted of its findings."""
    unsupported_codes, target_lacks_codes = rules.code_tables.sets_named("unsupported", "target_lacks")
    judged = file_verdict(entry, rules, roc)  # recomputed: a report from before verdicts has none
    return FileMetrics(
        path=entry["path"],
        converted=sum(entry.get("converted", {}).values()),
        converted_by_library=dict(sorted(entry.get("converted", {}).items())),
        unmapped=sum(entry.get("unmapped", {}).values()),
        unsupported=sum(counted[c] for c in unsupported_codes),
        target_lacks=sum(counted[c] for c in target_lacks_codes),
        launches=entry.get("launches", 0),
        findings_by_severity=dict(severity),
        effort=next((c for c in EFFORT_CLASSES if c in efforts), None),
        verdict="needs-library" if judged.kind == "ports" and judged.needs else judged.kind,
        needs=list(judged.needs),
        kind=judged.kind,
        label=judged.label,
        minutes=judged.minutes,
    )


def summary_fields(metrics: Metrics) -> dict:
    """The derived numbers as the JSON report's summary carries them."""
    return {
        "references": metrics.references,
        "ported_automatically": metrics.ported_automatically,
        "ported_percent": metrics.percent,
        "unsupported": metrics.unsupported,
        "needs_newer_hip": metrics.target_lacks,
        "converted_by_library_kind": metrics.converted_by_library_kind,
        "not_ported_by_name": [{"name": r.name, "code": r.code, "count": r.count} for r in metrics.not_ported],
        "findings_by_library": metrics.findings_by_library,
        "effort_by_class": metrics.effort_by_class,
        "verdicts": metrics.verdicts,
        "libraries_needed": metrics.libraries_needed,
        "estimated_minutes": metrics.minutes,
    }


def library_title(library: str | None, rules: RuleSet) -> str:
    if library is None or library == NO_LIBRARY:
        return NO_LIBRARY
    return rules.library_titles.get(library, library)


def _library_and_kind(name: str, rules: RuleSet) -> tuple[str, str]:
    rule = rules.names.get(name)
    if rule is not None:
        return rule.library, rule.kind
    namespace = rules.namespaces.get(name)
    if namespace is not None:
        return namespace.library, "namespace"
    return NO_LIBRARY, "other"


def _row(rows: dict[tuple[str, str], NameRow], code: str, name: str, library: str | None, status: str) -> NameRow:
    row = rows.get((code, name))
    if row is None:
        row = rows[code, name] = NameRow(name, code, status, library)
    return row


def _code_row(code: str, count: int, rules: RuleSet, severities: Counter) -> CodeRow:
    """A code's row, with the severities its findings have: one code may be an error in one place
    and information in another (HP415: a test convert rewrote is info, one it could not a warning)."""
    observed = {s: severities[s] for s in SEVERITIES if severities[s]}
    shown = "/".join(observed)
    info = rules.codes.get(code)
    if info is None:
        return CodeRow(code, code, shown or "warning", "medium", "", "", count, observed)
    return CodeRow(code, info.name, shown or info.severity, info.effort, info.summary, info.help, count, observed)
