"""What `hipport verify --report` prints and writes: a line per unit, a table by class, JSON."""

from __future__ import annotations

from collections import Counter

from hipport.verify.join import CLASSES, HONEST, Verdict

LABELS = {
    "ok": "OK",
    "no-lib": "NO-LIB",
    "no-include": "NO-INC",
    "expected": "EXPECTED",
    "semantic": "SEMANTIC",
    "port-fault": "BUG",
}
TITLES = {
    "ok": "compiles",
    "no-lib": "missing library",
    "no-include": "header not on include path",
    "expected": "reported (expected)",
    "semantic": "HIP semantic difference",
    "port-fault": "port fault (hipport bug)",
}


def unit_line(verdict: Verdict) -> str:
    return f"{LABELS[verdict.verdict]:8} {verdict.unit}" + (f": {verdict.detail}" if verdict.detail else "")


def summarize(verdicts: list[Verdict], top: int = 10) -> dict:
    """The figures: units by class (and how many of each were clean), units compiled, the
    clean-verdict precision, and the commonest first errors of the port faults."""
    by_class = Counter(v.verdict for v in verdicts)
    clean = [v for v in verdicts if v.clean]
    clean_by_class = Counter(v.verdict for v in clean)
    honest = sum(clean_by_class[c] for c in HONEST)
    faults = Counter(v.error_kind for v in verdicts if v.verdict == "port-fault")
    libraries = Counter(v.library for v in verdicts if v.verdict == "no-lib")
    return {
        "units": len(verdicts),
        "compiled": by_class["ok"],
        "by_class": {c: by_class[c] for c in CLASSES},
        "clean_by_class": {c: clean_by_class[c] for c in CLASSES},
        "clean": len(clean),
        "clean_honest": honest,
        "clean_precision": round(100.0 * honest / len(clean), 1) if clean else None,
        "missing_libraries": dict(libraries.most_common()),
        "port_fault_errors": [{"error": kind, "units": n} for kind, n in faults.most_common(top)],
    }


def table_lines(summary: dict) -> list[str]:
    lines = [f"{'class':28} {'TUs':>5} {'clean':>6}"]
    for c in CLASSES:
        lines.append(f"{TITLES[c]:28} {summary['by_class'][c]:5} {summary['clean_by_class'][c]:6}")
    lines.append(f"{'total':28} {summary['units']:5} {summary['clean']:6}")
    units = summary["units"]
    share = f" ({100.0 * summary['compiled'] / units:.1f}%)" if units else ""
    lines.append(f"TUs compiled: {summary['compiled']} / {units}{share}")
    precision = summary["clean_precision"]
    lines.append(
        "clean-verdict precision: "
        + (
            f"{precision}% ({summary['clean_honest']} of {summary['clean']} TUs with no error or warning finding "
            f"compile or lack only a library or header)"
            if precision is not None
            else "no TU without an error or warning finding"
        )
    )
    return lines


def as_json(verdicts: list[Verdict], summary: dict) -> dict:
    return {"schema": 1, "summary": summary, "units": [v.as_json() for v in verdicts]}
