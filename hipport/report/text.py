"""A compact terminal report: the action list first, then the numbers, a table of files, what was
not ported.

Colour comes from click.style; click.echo drops it when stdout is not a TTY.
"""

from __future__ import annotations

import click

from hipport.report.actions import ActionList, FileActions, action_list, operator_summary, sections, verdict_counts
from hipport.report.metrics import Metrics, format_percent, library_title
from hipport.report.verdict import format_minutes
from hipport.ruleset.model import RuleSet

SEVERITY_COLOURS = {"error": "red", "warning": "yellow", "info": "blue"}
SEVERITY_LABELS = {"error": "error(s)", "warning": "warning(s)", "info": "info"}
VERDICT_COLOURS = {"fails": "red", "review": "yellow", "ports": "green"}
MAX_LOCATIONS = 3
MAX_FILES = 10  # per section of the action list
MAX_PROBLEMS = 5  # per file there


def render_text(report: dict, metrics: Metrics, rules: RuleSet) -> str:
    actions = action_list(report, metrics, rules)
    lines = _title(metrics) + ["", *_action_lines(actions, metrics)]
    operators = operator_summary(report, rules)  # a PyTorch extension's custom operators, worst first
    if operators:
        lines += ["", _bold(operators[0]), *operators[1:]]
    lines += ["", *_headline(metrics)]
    lines += ["", *_files_table(metrics)]
    if metrics.converted_by_library:
        lines += ["", _bold("converted by library"), *_library_lines(metrics, rules)]
    if metrics.not_ported:
        lines += ["", _bold("not ported automatically"), *_not_ported_lines(metrics)]
    if metrics.findings_by_code:
        lines += ["", _bold("findings by code"), *_code_lines(metrics)]
    return "\n".join(lines) + "\n"


def _title(m: Metrics) -> list[str]:
    verdicts = [
        click.style(text, fg=VERDICT_COLOURS[kind]) if kind != "ports" and not text.startswith("0 ") else text
        for kind, text in verdict_counts(m)
    ]
    return [
        _bold(f"hipport report: {len(m.files)} file(s), target HIP {m.hip_version}"),
        ", ".join(verdicts) + f"; estimated work: {_work(m.minutes)}",
    ]


def _action_lines(a: ActionList, m: Metrics) -> list[str]:
    lines = [_bold("What to do, worst first")]
    for number, section in enumerate(sections(a, m), 1):
        # the risks' head and detail read as one phrase: "Silent runtime risks, 32-lane warp ..."
        joint = ", " if section.files is a.runtime_risks else ": "
        lines.append(f"{number}. {section.head}{joint}{section.detail}")
        if section.libraries:
            rows = [
                [
                    lib.library,
                    f"package {lib.package}" if lib.package else "",
                    f"for {', '.join(lib.replaces)}" if lib.replaces else "",
                    f"{lib.files} file(s)",
                ]
                for lib in section.libraries
            ]
            lines += _table(None, rows, indent="   ")
        lines += _file_problems(section.files)
    return lines


def _file_problems(group: list[FileActions]) -> list[str]:
    lines = []
    for actions in group[:MAX_FILES]:
        f = actions.file
        lines.append(f"   {f.path}  ({click.style(f.label, fg=VERDICT_COLOURS[f.kind])}, {_work(f.minutes)})")
        for p in actions.problems[:MAX_PROBLEMS]:
            times = f" x{p.count}" if p.count > 1 else ""
            lines.append(f"     {p.line:>5}  {p.code}{times}  {p.message}")
        if len(actions.problems) > MAX_PROBLEMS:
            lines.append(f"            ... and {len(actions.problems) - MAX_PROBLEMS} more problem(s) in this file")
    if len(group) > MAX_FILES:
        lines.append(f"   ... and {len(group) - MAX_FILES} more file(s)")
    return lines


def _headline(m: Metrics) -> list[str]:
    sev = m.findings_by_severity
    not_ported = [
        f"{m.unsupported} with no HIP equivalent",
        f"{m.unmapped} unknown to hipport",
        f"{m.target_lacks} needing a newer HIP",
    ]
    return [
        f"CUDA references: {m.references}, ported automatically {m.ported_automatically} "
        f"({_percent(m.percent)}); " + ", ".join(not_ported),
        f"kernel launches: {m.launches}; findings: "
        + ", ".join(_count(sev[s], SEVERITY_LABELS[s], SEVERITY_COLOURS[s]) for s in SEVERITY_COLOURS),
    ]


def _files_table(m: Metrics) -> list[str]:
    header = ["file", "verdict", "refs", "auto", "launches", "errors", "warnings", "info", "work"]
    rows = [
        [
            f.path,
            click.style(f.label, fg=VERDICT_COLOURS[f.kind]),
            f.references,
            format_percent(f.percent),
            f.launches,
            f.findings_by_severity["error"],
            f.findings_by_severity["warning"],
            f.findings_by_severity["info"],
            _work(f.minutes),
        ]
        for f in m.files
    ]
    sev = m.findings_by_severity
    rows.append(
        [
            "total",
            "",
            m.references,
            format_percent(m.percent),
            m.launches,
            sev["error"],
            sev["warning"],
            sev["info"],
            _work(m.minutes),
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


def _work(minutes: int) -> str:
    return "-" if minutes <= 0 else "about " + format_minutes(minutes)


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
    # widths as shown: a cell's colour codes take no room on the screen
    widths = [max(len(click.unstyle(row[i])) for row in cells) for i in range(len(cells[0]))] if cells else []
    lines = []
    for index, row in enumerate(cells):
        parts = []
        for i, value in enumerate(row):
            last = i == len(row) - 1
            pad = " " * (widths[i] - len(click.unstyle(value)))
            if numeric[i]:
                parts.append(pad + value)
            else:
                parts.append(value if last else value + pad)
        line = indent + "  ".join(parts).rstrip()
        is_header = header is not None and index == 0
        is_total = total_row and index == len(cells) - 1
        lines.append(_bold(line) if is_header or is_total else line)
    return lines


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
