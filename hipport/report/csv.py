"""Per-file API statistics as CSV: one row per (file, CUDA name) with its count.

status says what became of the name: ported, or why it was not (the code's
name: unsupported-api, unmapped-name, needs-newer-hip, removed-from-hip). A
name is counted once per use; hip is the name it was ported to.
"""

from __future__ import annotations

import csv
import io

from hipport.report.metrics import UNMAPPED_CODE
from hipport.ruleset.model import RuleSet

COLUMNS = ("file", "cuda", "hip", "library", "kind", "status", "count")


def render_csv(report: dict, rules: RuleSet) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    roc = bool(report.get("options", {}).get("roc"))
    for entry in report.get("files", []):
        for row in sorted(_rows(entry, rules, roc)):
            writer.writerow((entry["path"], *row))
    return out.getvalue()


def _rows(entry: dict, rules: RuleSet, roc: bool) -> list[tuple]:
    """(cuda, hip, library, kind, status, count) for every name the file uses."""
    counts: dict[str, int] = dict(entry.get("converted_names", {}))
    status: dict[str, str] = {}
    unsupported: dict[str, int] = {}
    for finding in entry.get("findings", []):
        code, name = finding["code"], finding["name"]
        if code in rules.code_tables.not_ported and code != UNMAPPED_CODE:
            status[name] = rules.codes[code].name if code in rules.codes else code
            if name not in counts:  # not renamed at all: count the findings
                unsupported[name] = unsupported.get(name, 0) + 1
    for name, count in unsupported.items():
        counts[name] = count
    rows = []
    for name, count in counts.items():
        rule = rules.names.get(name)
        namespace = rules.namespaces.get(name)
        if rule is not None:
            hip = (rule.roc if roc and rule.roc else rule.hip) or ""
            library, kind = rule.library, rule.kind
        elif namespace is not None:
            hip, library, kind = namespace.hip, namespace.library, "namespace"
        else:
            hip, library, kind = "", "", ""
        rows.append((name, hip, library, kind, status.get(name, "ported"), count))
    unmapped_status = rules.codes[UNMAPPED_CODE].name if UNMAPPED_CODE in rules.codes else UNMAPPED_CODE
    for name, count in entry.get("unmapped", {}).items():
        rows.append((name, "", "", "", unmapped_status, count))
    return rows
