"""A single self-contained HTML page a reviewer opens in a browser.

Everything is inline (CSS, a small sorting script, an SVG chart) so the file
works offline and as a CI artifact. The page is a jinja2 template with
autoescaping on; this module prepares plain values for it: the chart's
geometry, each finding's source lines, and the anchors that link them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import jinja2

from hipport.report.actions import action_list
from hipport.report.sources import SourceReader
from hipport.report.metrics import SEVERITIES, Metrics, format_percent, library_title
from hipport.report.verdict import LABELS, RANK, format_minutes
from hipport.ruleset.model import RuleSet

CONTEXT_LINES = 2
CHART_WIDTH = 640
CHART_LABEL_WIDTH = 170
CHART_BAR_HEIGHT = 22
CHART_GAP = 8
SEVERITY_COLOURS = {"error": "#c62828", "warning": "#e08600", "info": "#1e6fd9"}


@dataclass
class SourceLine:
    number: int
    before: str
    marked: str
    after: str
    target: bool


@dataclass
class FindingView:
    anchor: str
    code: str
    code_name: str
    severity: str
    line: int
    column: int
    name: str
    message: str
    help: str
    context: list[SourceLine] = field(default_factory=list)
    fix: str | None = None
    fix_applicability: str | None = None
    fixed_line: str | None = None


def render_html(report: dict, metrics: Metrics, rules: RuleSet, sources: SourceReader) -> str:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("hipport.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    findings, anchors = _finding_views(report, rules, sources)
    return env.get_template("report.html.j2").render(
        report=report,
        m=metrics,
        tool_version=report.get("tool", {}).get("version", ""),
        summary=_summary_cards(metrics),
        chart=_chart(metrics, rules),
        files=_file_rows(metrics, rules, findings),
        files_worst_first=worst_first(_file_rows(metrics, rules, findings)),
        actions=action_list(report, metrics, rules),
        libraries=_library_rows(metrics, rules),
        not_ported=[
            (row, [(loc, anchors.get((row.code, loc))) for loc in row.locations]) for row in metrics.not_ported
        ],
        codes=metrics.findings_by_code,
        findings=findings,
        severities=SEVERITIES,
        colours=SEVERITY_COLOURS,
        format_percent=format_percent,
    )


def _summary_cards(m: Metrics) -> list[tuple[str, str, str, object]]:
    """(id, label, shown text, raw value) for each headline number; tests read the raw values."""
    sev = m.findings_by_severity
    kinds = {kind: sum(1 for f in m.files if f.kind == kind) for kind in RANK}
    return [
        ("files", "files", str(len(m.files)), len(m.files)),
        *((kind, LABELS[kind], str(kinds[kind]), kinds[kind]) for kind in ("fails", "review", "ports")),
        ("work", "estimated work", _work(m.minutes), m.minutes),
        ("references", "CUDA references", str(m.references), m.references),
        ("ported", "ported automatically", str(m.ported_automatically), m.ported_automatically),
        ("percent", "% ported automatically", format_percent(m.percent), "" if m.percent is None else m.percent),
        ("unsupported", "no HIP equivalent", str(m.unsupported), m.unsupported),
        ("unmapped", "unknown to hipport", str(m.unmapped), m.unmapped),
        ("needs-newer-hip", "need a newer HIP", str(m.target_lacks), m.target_lacks),
        ("launches", "kernel launches", str(m.launches), m.launches),
        ("errors", "errors", str(sev["error"]), sev["error"]),
        ("warnings", "warnings", str(sev["warning"]), sev["warning"]),
        ("info", "info", str(sev["info"]), sev["info"]),
    ]


def _chart(m: Metrics, rules: RuleSet) -> dict:
    """Horizontal stacked bars: one per library, one segment per severity."""
    rows = list(m.findings_by_library.items())
    most = max((sum(c.values()) for _, c in rows), default=0)
    scale = (CHART_WIDTH - CHART_LABEL_WIDTH - 40) / most if most else 0
    bars = []
    for index, (library, counts) in enumerate(rows):
        y = index * (CHART_BAR_HEIGHT + CHART_GAP)
        x: float = CHART_LABEL_WIDTH
        segments = []
        for severity in SEVERITIES:
            count = counts[severity]
            if count:
                width = round(count * scale, 1)
                segments.append({"severity": severity, "x": round(x, 1), "width": width, "count": count})
                x += width
        bars.append(
            {
                "label": library_title(library, rules),
                "library": library,
                "y": y,
                "total": sum(counts.values()),
                "segments": segments,
                "end": round(x, 1),
            }
        )
    return {
        "width": CHART_WIDTH,
        "height": max(len(bars) * (CHART_BAR_HEIGHT + CHART_GAP), 1),
        "bar_height": CHART_BAR_HEIGHT,
        "label_width": CHART_LABEL_WIDTH,
        "bars": bars,
    }


def _file_rows(m: Metrics, rules: RuleSet, findings: dict[str, list[FindingView]]) -> list[dict]:
    """The file table's rows, worst first: what will not build, then what needs review, each by
    the work it needs; the anchors keep the report's order (the findings section follows it)."""
    rows = []
    for index, f in enumerate(m.files):
        libraries = ", ".join(
            f"{library_title(lib, rules)} {n}"
            for lib, n in sorted(f.converted_by_library.items(), key=lambda kv: (-kv[1], kv[0]))
        )
        rows.append(
            {
                "file": f,
                "anchor": f"file-{index}" if findings.get(f.path) else None,
                "libraries": libraries,
                "work": _work(f.minutes),
                "verdict_value": RANK[f.kind] * 1_000_000 + f.minutes,  # worst first when sorted descending
                "percent_value": -1 if f.percent is None else f.percent,
            }
        )
    return rows


def worst_first(rows: list[dict]) -> list[dict]:
    return sorted(rows, key=lambda row: (-row["verdict_value"], row["file"].path))


def _work(minutes: int) -> str:
    return "none" if minutes <= 0 else "about " + format_minutes(minutes)


def _library_rows(m: Metrics, rules: RuleSet) -> list[dict]:
    rows = []
    for library, count in sorted(m.converted_by_library.items(), key=lambda kv: (-kv[1], kv[0])):
        kinds = m.converted_by_library_kind.get(library, {})
        rows.append(
            {"title": library_title(library, rules), "count": count, "kinds": [kinds.get(kind, 0) for kind in m.kinds]}
        )
    return rows


def _finding_views(report: dict, rules: RuleSet, sources: SourceReader):
    """Each file's findings with source context, and (code, 'path:line:col') -> anchor for links."""
    views: dict[str, list[FindingView]] = {}
    anchors: dict[tuple[str, str], str] = {}
    for file_index, entry in enumerate(report.get("files", [])):
        findings = entry.get("findings", [])
        if not findings:
            continue
        lines = _source_lines(sources(entry["path"]))
        file_views = views[entry["path"]] = []
        for index, finding in enumerate(findings):
            info = rules.codes.get(finding["code"])
            anchor = f"finding-{file_index}-{index}"
            anchors.setdefault((finding["code"], f"{entry['path']}:{finding['line']}:{finding['column']}"), anchor)
            view = FindingView(
                anchor=anchor,
                code=finding["code"],
                code_name=info.name if info else finding["code"],
                severity=finding["severity"],
                line=finding["line"],
                column=finding["column"],
                name=finding["name"],
                message=finding.get("message", ""),
                help=info.help if info else "",
                context=_context(lines, finding) if lines is not None else [],
            )
            fix = finding.get("fix")
            if fix:
                view.fix, view.fix_applicability = fix["replacement"], fix.get("applicability")
                view.fixed_line = _fixed_line(lines, finding, fix["replacement"]) if lines is not None else None
            file_views.append(view)
    return views, anchors


def _source_lines(data: bytes | None) -> list[str] | None:
    if data is None:
        return None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    # split on \n only and drop \r, as hipport's line numbers do; a final newline ends the last line
    lines = [line.rstrip("\r") for line in data.decode("utf-8", "replace").split("\n")]
    return lines[:-1] if len(lines) > 1 and lines[-1] == "" else lines


def _context(lines: list[str], finding: dict) -> list[SourceLine]:
    number = finding["line"]
    if not 1 <= number <= len(lines):
        return []
    out = []
    for n in range(max(1, number - CONTEXT_LINES), min(len(lines), number + CONTEXT_LINES) + 1):
        text = lines[n - 1]
        if n == number:
            start, end = _span(text, finding)
            out.append(SourceLine(n, text[:start], text[start:end], text[end:], True))
        else:
            out.append(SourceLine(n, text, "", "", False))
    return out


def _span(text: str, finding: dict) -> tuple[int, int]:
    """The finding's columns on its first line as string indices (end exclusive)."""
    start = min(max(finding["column"] - 1, 0), len(text))
    same_line = finding.get("end_line", finding["line"]) == finding["line"]
    end = finding.get("end_column", finding["column"]) - 1 if same_line else len(text)
    return start, min(max(end, start), len(text))


def _fixed_line(lines: list[str], finding: dict, replacement: str) -> str | None:
    number = finding["line"]
    if finding.get("end_line", number) != number or not 1 <= number <= len(lines):
        return None
    text = lines[number - 1]
    start, end = _span(text, finding)
    return text[:start] + replacement + text[end:]
