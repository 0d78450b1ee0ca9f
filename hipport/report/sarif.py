"""SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.

Columns count Unicode code points, as hipport's do, so the run says
columnKind "unicodeCodePoints" instead of SARIF's UTF-16 default. Regions are
1-based with an exclusive end column, as in hipport's findings. The schema this
output is tested against is vendored in schemas/ (OASIS SARIF 2.1.0, errata 01).
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import PurePosixPath, Path
from urllib.parse import quote

from hipport.ruleset.model import RuleSet

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}
FINGERPRINT_KEY = "hipportFinding/v1"


def schema() -> dict:
    """The vendored SARIF 2.1.0 JSON schema."""
    text = resources.files("hipport.report").joinpath("schemas", "sarif-schema-2.1.0.json").read_text("utf-8")
    return json.loads(text)


def render_sarif(report: dict, rules: RuleSet) -> str:
    return json.dumps(sarif_log(report, rules), indent=2) + "\n"


def sarif_log(report: dict, rules: RuleSet) -> dict:
    used = sorted({f["code"] for entry in report.get("files", []) for f in entry.get("findings", [])})
    index = {code: i for i, code in enumerate(used)}
    root = report.get("root")
    results = []
    for entry in report.get("files", []):
        uri = _uri(entry["path"], root)
        for finding in entry.get("findings", []):
            results.append(_result(finding, uri, index[finding["code"]]))
    tool = report.get("tool", {})
    return {
        "$schema": SARIF_SCHEMA_URI,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "hipport",
                        "version": tool.get("version", ""),
                        "semanticVersion": tool.get("version", ""),
                        "rules": [_rule(code, rules) for code in used],
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": results,
                "properties": {"hipVersion": report.get("options", {}).get("hip_version")},
            }
        ],
    }


def _rule(code: str, rules: RuleSet) -> dict:
    info = rules.codes.get(code)
    if info is None:  # a code from a report written with rule files not loaded now
        return {"id": code, "name": code, "shortDescription": {"text": code}}
    return {
        "id": code,
        "name": info.name,
        "shortDescription": {"text": info.summary},
        "fullDescription": {"text": info.help or info.summary},
        "help": {"text": info.help or info.summary},
        "defaultConfiguration": {"level": LEVELS[info.severity]},
        "properties": {"effort": info.effort, "tags": ["portability", "hip"]},
    }


def _result(finding: dict, uri: str, rule_index: int) -> dict:
    region = _region(finding)
    location = {"physicalLocation": {"artifactLocation": {"uri": uri}, "region": region}}
    result = {
        "ruleId": finding["code"],
        "ruleIndex": rule_index,
        "level": LEVELS[finding["severity"]],
        "message": {"text": finding.get("message") or finding["code"]},
        "locations": [location],
    }
    if finding.get("fingerprint"):
        result["partialFingerprints"] = {FINGERPRINT_KEY: finding["fingerprint"]}
    fix = finding.get("fix")
    if fix:
        result["fixes"] = [
            {
                "description": {"text": f"replace with {fix['replacement']} ({fix['applicability']})"},
                "artifactChanges": [
                    {
                        "artifactLocation": {"uri": uri},
                        "replacements": [{"deletedRegion": region, "insertedContent": {"text": fix["replacement"]}}],
                    }
                ],
            }
        ]
    return result


def _region(finding: dict) -> dict:
    line, column = max(finding["line"], 1), max(finding["column"], 1)
    end_line = max(finding.get("end_line") or line, line)
    end_column = max(finding.get("end_column") or column, 1)
    if end_line == line:
        end_column = max(end_column, column)
    return {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column}


def _uri(path: str, root: str | None) -> str:
    """A URI reference for the file: relative stays relative (to the checkout), absolute becomes file://."""
    full = Path(root, path) if root else Path(path)
    if full.is_absolute():
        return full.as_uri()
    # A name that is not UTF-8 keeps its bytes, percent-encoded (as_uri above does the same)
    return quote(PurePosixPath(*full.parts).as_posix().encode("utf-8", "surrogateescape"), safe="/")
