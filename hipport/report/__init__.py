"""The porting report in every format: text, JSON, Markdown, HTML, SARIF and CSV.

The JSON report (hipport.emit.report) is the data; each renderer here turns it,
plus the derived numbers of metrics.py, into one format. Renderers read nothing
but the report, the rule set (for code help, library titles and name kinds) and,
for HTML, the source lines around each finding.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from hipport.report.sources import SourceReader, disk_sources
from hipport.ruleset.model import RuleSet

if TYPE_CHECKING:
    from hipport.engine.port import FileResult
    from hipport.options import Options

__all__ = [
    "FORMATS",
    "ReportError",
    "SourceReader",
    "analyze_paths",
    "complete",
    "disk_sources",
    "load_report",
    "render",
    "report_for",
]

FORMATS = ("text", "json", "markdown", "html", "sarif", "csv")


class ReportError(Exception):
    """An unreadable or malformed JSON report: reported in one line."""


def complete(report: dict, rules: RuleSet) -> dict:
    """The report with its derived summary numbers (re)computed from its files."""
    from hipport.report.metrics import measure, summary_fields

    metrics = measure(report, rules)
    summary = dict(report.get("summary", {}))
    summary.update(summary_fields(metrics))
    # each file's needs: its includes' (HP436) and its ported names' libraries (hipport/report/verdict.py)
    files = [
        {**entry, "verdict": judged.verdict, "needs": judged.needs}
        for entry, judged in zip(report.get("files", []), metrics.files)
    ]
    return {**report, "files": files, "summary": summary}


def analyze_paths(
    paths: list[Path], rules: RuleSet, options, policy=None, progress=None
) -> tuple[dict, SourceReader, list[str]]:
    """Analyze files and trees in memory: the report, their sources, and per-file errors.

    The same analysis as `hipport check`, so the team's select/ignore/severity
    policy shapes the report exactly as it shapes the hook. progress(done, total, path) follows it.
    """
    from hipport.check import run_check
    from hipport.policy import Policy

    run = run_check(paths, rules, options, policy or Policy(), progress=progress)
    sources = {result.path: result.source for result in run.results}
    return report_for(run.results, rules, options, {"suppressed": run.suppressed}), sources.get, run.errors


def report_for(
    results: list[FileResult], rules: RuleSet, options: Options, extra: dict | None = None, root: str | None = None
) -> dict:
    """The JSON report with its derived numbers; root: what the file paths are relative to, if not the cwd."""
    from hipport.emit.report import build_report, file_entry

    report = build_report((file_entry(r) for r in results), options.describe(rules.newest_hip), extra)
    if root is not None:
        report = {**{k: report.pop(k) for k in ("schema", "tool", "options")}, "root": root, **report}
    return complete(report, rules)


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
