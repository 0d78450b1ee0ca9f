"""The JSON migration report: the data every other report format renders."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from hipport import __version__
from hipport.emit.json_text import dumps_indented
from hipport.emit.verdict import verdict
from hipport.engine.port import FileResult

REPORT_SCHEMA = 1


def file_entry(result: FileResult) -> dict:
    findings = [f.to_json() for f in result.findings]
    return {
        "path": result.path,
        "changed": result.changed,
        "edits": len(result.edits),
        "launches": result.launches,
        "converted": dict(sorted(result.converted.items())),
        "converted_names": dict(sorted(result.converted_names.items())),
        "unmapped": dict(sorted(result.unmapped.items())),
        "findings": findings,
        # what the findings predict the compiler will say (hipport/emit/verdict.py)
        **verdict(findings),
        # the dialect whose rules ported it (pytorch: a custom operator, hipport/report/operators.py)
        **({"dialect": result.dialect} if result.dialect else {}),
    }


def build_report(entries: Iterable[dict], options: dict, extra_summary: dict | None = None) -> dict:
    files = sorted(entries, key=lambda e: e["path"])
    by_library: Counter = Counter()
    unmapped: Counter = Counter()
    by_code: Counter = Counter()
    by_severity: Counter = Counter({"error": 0, "warning": 0, "info": 0})
    for entry in files:
        by_library.update(entry["converted"])
        unmapped.update(entry["unmapped"])
        for finding in entry["findings"]:
            by_code[finding["code"]] += 1
            by_severity[finding["severity"]] += 1
    summary = {
        "files": len(files),
        "changed": sum(1 for e in files if e["changed"]),
        "edits": sum(e["edits"] for e in files),
        "launches": sum(e["launches"] for e in files),
        "converted": sum(by_library.values()),
        "converted_by_library": dict(sorted(by_library.items())),
        "unmapped": sum(unmapped.values()),
        "unmapped_by_name": dict(sorted(unmapped.items(), key=lambda kv: (-kv[1], kv[0]))),
        "findings_by_code": dict(sorted(by_code.items())),
        "findings_by_severity": dict(by_severity),
        **(extra_summary or {}),
    }
    return {
        "schema": REPORT_SCHEMA,
        "tool": {"name": "hipport", "version": __version__},
        "options": options,
        "files": files,
        "summary": summary,
    }


def dumps(report: dict) -> str:
    return dumps_indented(report) + "\n"  # json.dumps(report, indent=2), faster
