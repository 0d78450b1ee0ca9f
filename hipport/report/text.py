"""A compact terminal summary: headline numbers, a table of files, what was not ported.

Colour comes from click.style; click.echo drops it when stdout is not a TTY.
"""

from __future__ import annotations

import click

from hipport.report.metrics import Metrics, format_percent, library_title
from hipport.report.operators import operator_lines
from hipport.ruleset.model import RuleSet

SEVERITY_COLOURS = {"error": "red", "warning": "yellow", "info": "blue"}
SEVERITY_LABELS = {"error": "error(s)", "warning": "warning(s)", "info": "info"}
EFFORT_COLOURS = {"high": "red", "medium": "yellow", "low": "green"}
MAX_LOCATIONS = 3


def render_text(report: dict, metrics: Metrics, rules: RuleSet) -> str:
    lines = _headline(metrics)
    operators = operator_lines(report)  # a PyTorch extension's custom operators, worst first
    if operators:
        lines += ["", _bold(operators[0]), *operators[1:]]
    lines += ["", *_files_table(metrics)]
    if metrics.converted_by_library:
        lines += ["", _bold("converted by library"), *_library_lines(metrics, rules)]
    if metrics.not_ported:
        lines += ["", _bold("not ported automatically"), *_not_ported_lines(metrics)]
    if metrics.findings_by_code:
        lines += ["", _bold("findings by code"), *_code_lines(metrics)]
    return "\n".join(lines) + "\n"


def _headline(m: Metrics) -> list[str]:
    sev = m.findings_by_severity
    not_ported = [
        f"{m.unsupported} with no HIP equivalent",
        f"{m.unmapped} unknown to hipport",
        f"{m.target_lacks} needing a newer HIP",
    ]
    return [
        _bold(f"hipport report: {len(m.files)} file(s), target HIP {m.hip_version}"),
        f"CUDA references: {m.references}, ported automatically {m.ported_automatically} "
        f"({_percent(m.percent)}); " + ", ".join(not_ported),
        f"kernel launches: {m.launches}; findings: "
        + ", ".join(_count(sev[s], SEVERITY_LABELS[s], SEVERITY_COLOURS[s]) for s in SEVERITY_COLOURS),
        "manual effort (findings by class): "
        + ", ".join(_count(n, c, EFFORT_COLOURS[c]) for c, n in m.effort_by_class.items()),
    ]


def _files_table(m: Metrics) -> list[str]:
    header = ["file", "refs", "ported", "auto", "launches", "errors", "warnings", "info", "effort"]
    rows = [
        [
            f.path,
            f.references,
            f.ported_automatically,
            format_percent(f.percent),
            f.launches,
            f.findings_by_severity["error"],
            f.findings_by_severity["warning"],
            f.findings_by_severity["info"],
            f.effort or "-",
        ]
        for f in m.files
    ]
    sev = m.findings_by_severity
    rows.append(
        [
            "total",
            m.references,
            m.ported_automatically,
            format_percent(m.percent),
            m.launches,
            sev["error"],
            sev["warning"],
            sev["info"],
            _overall_effort(m),
        ]
    )
    return _table(header, rows, total_row=True)


def _library_lines(m: Metrics, rules: RuleSet) -> list[str]:
    rows = []
    for library, count in sorted(m.converted_by_library.items(), key=lambda kv: (-kv[1], kv[0])):
        kinds = m.converted_by_library_kind.get(library, {})
        detail = ", ".join(f"{kind} {n}" for kind, n in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])))
        rows.append([library_title(library, rules), count, detail])
    return _table(None, rows, indent="  ")


def _not_ported_lines(m: Metrics) -> list[str]:
    rows = []
    for row in m.not_ported:
        shown = row.locations[:MAX_LOCATIONS]
        more = len(row.locations) - len(shown)
        rows.append([row.name, row.status, row.count, ", ".join(shown) + (f", +{more} more" if more else "")])
    return _table(None, rows, indent="  ")


def _code_lines(m: Metrics) -> list[str]:
    rows = [[c.code, c.name, c.severity, c.count, f"effort {c.effort}", c.summary] for c in m.findings_by_code]
    return _table(None, rows, indent="  ")


def _table(header: list[str] | None, rows: list[list], indent: str = "", total_row: bool = False) -> list[str]:
    """Left-align text columns and right-align numeric ones; the last column is not padded."""
    cells = [[str(v) for v in row] for row in ([header] if header else []) + rows]
    numeric = (
        [
            all(isinstance(row[i], int) or str(row[i]).endswith("%") or row[i] == "n/a" for row in rows)
            for i in range(len(cells[0]))
        ]
        if rows
        else []
    )
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))] if cells else []
    lines = []
    for index, row in enumerate(cells):
        parts = []
        for i, value in enumerate(row):
            last = i == len(row) - 1
            if numeric[i]:
                parts.append(value.rjust(widths[i]))
            else:
                parts.append(value if last else value.ljust(widths[i]))
        line = indent + "  ".join(parts).rstrip()
        is_header = header is not None and index == 0
        is_total = total_row and index == len(cells) - 1
        lines.append(_bold(line) if is_header or is_total else line)
    return lines


def _overall_effort(m: Metrics) -> str:
    return next((c for c, n in m.effort_by_class.items() if n), "-")


def _count(n: int, label: str, colour: str) -> str:
    text = f"{n} {label}"
    return click.style(text, fg=colour) if n else text


def _percent(value: float | None) -> str:
    text = format_percent(value)
    if value is None:
        return text
    return click.style(text, fg="green" if value >= 95 else "yellow" if value >= 80 else "red")


def _bold(text: str) -> str:
    return click.style(text, bold=True)
