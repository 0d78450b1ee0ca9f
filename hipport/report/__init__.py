"""The porting report in every format: text, JSON, Markdown, HTML, SARIF and CSV.

The JSON report (hipport.emit.report) is the data; each renderer here turns it,
plus the derived numbers of metrics.py, into one format. Renderers read nothing
but the report, the rule set (for code help, library titles and name kinds) and,
for HTML, the source lines around each finding.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from hipport.ruleset.model import RuleSet

FORMATS = ("text", "json", "markdown", "html", "sarif", "csv")

# path as the report shows it -> the file's bytes, or None when unavailable
SourceReader = Callable[[str], bytes | None]


class ReportError(Exception):
    """An unreadable or malformed JSON report: reported in one line."""


def complete(report: dict, rules: RuleSet) -> dict:
    """The report with its derived summary numbers (re)computed from its files."""
    from hipport.report.metrics import measure, summary_fields

    from hipport.report.libraries import libraries_needed

    summary = dict(report.get("summary", {}))
    summary.update(summary_fields(measure(report, rules)))
    summary["libraries_needed"] = libraries_needed(report, rules)
    return {**report, "summary": summary}


def analyze_paths(paths: list[Path], rules: RuleSet, options, policy=None) -> tuple[dict, SourceReader, list[str]]:
    """Analyze files and trees in memory: the report, their sources, and per-file errors.

    The same analysis as `hipport check`, so the team's select/ignore/severity
    policy shapes the report exactly as it shapes the hook.
    """
    from hipport import api
    from hipport.check import run_check
    from hipport.policy import Policy

    run = run_check(paths, rules, options, policy or Policy())
    sources = {result.path: result.source for result in run.results}
    return api.report_for(run.results, rules, options, {"suppressed": run.suppressed}), sources.get, run.errors


def load_report(path: Path) -> dict:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ReportError(f"{path}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ReportError(f"{path}: not a hipport JSON report (not UTF-8 text)") from None
    try:
        report = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReportError(f"{path}:{exc.lineno}: not a hipport JSON report ({exc.msg})") from None
    problem = _shape_problem(report)
    if problem:
        raise ReportError(f"{path}: not a hipport JSON report ({problem})")
    return report


def disk_sources(report: dict) -> SourceReader:
    """Read sources from disk, relative to the report's root (convert's source tree) if it has one."""
    root = Path(report["root"]) if report.get("root") else Path(".")

    def read(path: str) -> bytes | None:
        try:
            return (root / path).read_bytes()
        except OSError:
            return None

    return read


def render(report: dict, fmt: str, rules: RuleSet, sources: SourceReader | None = None) -> str:
    """The report in one of FORMATS; text may carry ANSI colour (click.echo strips it off a TTY)."""
    if fmt == "json":
        from hipport.emit.report import dumps

        return dumps(complete(report, rules))
    if fmt == "sarif":
        from hipport.report.sarif import render_sarif

        return render_sarif(report, rules)
    if fmt == "csv":
        from hipport.report.csv import render_csv

        return render_csv(report, rules)
    from hipport.report.metrics import measure

    metrics = measure(report, rules)
    if fmt == "text":
        from hipport.report.text import render_text

        return render_text(report, metrics, rules)
    if fmt == "markdown":
        from hipport.report.markdown import render_markdown

        return render_markdown(report, metrics, rules)
    if fmt == "html":
        from hipport.report.html import render_html

        return render_html(report, metrics, rules, sources or (lambda path: None))
    raise ValueError(f"unknown report format {fmt!r}")


def _shape_problem(report) -> str | None:
    if not isinstance(report, dict):
        return "the top level is not an object"
    files = report.get("files")
    if not isinstance(files, list):
        return "no 'files' list"
    for index, entry in enumerate(files):
        if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
            return f"files[{index}] has no 'path'"
        for finding in entry.get("findings", []):
            if not isinstance(finding, dict) or not {"code", "severity", "line", "column", "name"} <= finding.keys():
                return f"a finding in {entry['path']} lacks code, severity, line, column or name"
            if finding["severity"] not in ("error", "warning", "info"):
                return f"a finding in {entry['path']} has severity {finding['severity']!r}"
    return None
