"""Markdown for a pull-request comment: summary table, top names not ported, findings by code.

The per-file table goes in a <details> block so a large tree keeps the comment short.
"""

from __future__ import annotations

from hipport.report.metrics import Metrics, format_percent, library_title
from hipport.report.operators import operator_lines
from hipport.ruleset.model import RuleSet

TOP_NAMES = 10
TOP_FILES = 50  # GitHub caps a comment at 65,536 characters


def render_markdown(report: dict, metrics: Metrics, rules: RuleSet) -> str:
    m = metrics
    sev = m.findings_by_severity
    effort = m.effort_by_class
    out = [
        "## hipport porting report",
        "",
        f"Target HIP **{m.hip_version}** · {len(m.files)} file(s) · **{format_percent(m.percent)}** "
        f"of {m.references} CUDA references ported automatically",
        "",
        "| | count |",
        "|---|---:|",
        f"| CUDA references | {m.references} |",
        f"| ported automatically | {m.ported_automatically} |",
        f"| no HIP equivalent | {m.unsupported} |",
        f"| unknown to hipport | {m.unmapped} |",
        f"| need a newer HIP | {m.target_lacks} |",
        f"| kernel launches | {m.launches} |",
        f"| findings | {sev['error']} error(s), {sev['warning']} warning(s), {sev['info']} info |",
        f"| manual effort (findings) | {effort['high']} high, {effort['medium']} medium, {effort['low']} low |",
    ]
    operators = operator_lines(report)  # a PyTorch extension's custom operators, worst first
    if operators:
        out += ["", f"### {operators[0]}", "", "```", *(line[2:] for line in operators[1:]), "```"]
    if m.not_ported:
        shown = m.not_ported[:TOP_NAMES]
        title = "Not ported automatically" + (
            f" (top {TOP_NAMES} of {len(m.not_ported)})" if len(m.not_ported) > TOP_NAMES else ""
        )
        out += ["", f"### {title}", "", "| name | why | uses | first use |", "|---|---|---:|---|"]
        out += [
            f"| `{_cell(r.name)}` | {_cell(r.status)} | {r.count} | {_cell(r.locations[0]) if r.locations else ''} |"
            for r in shown
        ]
    if m.findings_by_code:
        out += [
            "",
            "### Findings by code",
            "",
            "| code | name | severity | effort | count | meaning |",
            "|---|---|---|---|---:|---|",
        ]
        out += [
            f"| {c.code} | {_cell(c.name)} | {c.severity} | {c.effort} | {c.count} | {_cell(c.summary)} |"
            for c in m.findings_by_code
        ]
    if m.converted_by_library:
        out += ["", "### Ported by library", "", "| library | references |", "|---|---:|"]
        out += [
            f"| {_cell(library_title(lib, rules))} | {n} |"
            for lib, n in sorted(m.converted_by_library.items(), key=lambda kv: (-kv[1], kv[0]))
        ]
    out += _files_section(m)
    return "\n".join(out) + "\n"


def _files_section(m: Metrics) -> list[str]:
    """The files that need a hand, worst first; files that ported fully without findings are only counted."""
    attention = [f for f in m.files if f.references != f.ported_automatically or any(f.findings_by_severity.values())]
    attention.sort(
        key=lambda f: (
            f.ported_automatically - f.references,
            -f.findings_by_severity["error"],
            -sum(f.findings_by_severity.values()),
            f.path,
        )
    )
    clean = len(m.files) - len(attention)
    out = ["", f"<details><summary>Files that need a hand ({len(attention)} of {len(m.files)})</summary>", ""]
    if attention:
        out += [
            "| file | refs | ported | auto | launches | errors | warnings | info | effort |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---|",
        ]
        for f in attention[:TOP_FILES]:
            s = f.findings_by_severity
            out.append(
                f"| `{_cell(f.path)}` | {f.references} | {f.ported_automatically} | "
                f"{format_percent(f.percent)} | {f.launches} | {s['error']} | {s['warning']} | {s['info']} | "
                f"{f.effort or '-'} |"
            )
        if len(attention) > TOP_FILES:
            out += ["", f"… and {len(attention) - TOP_FILES} more."]
        out.append("")
    out += [f"{clean} file(s) ported fully with no findings.", "", "</details>"]
    return out


def _cell(text: str) -> str:
    """Keep a table cell one cell: pipes and line breaks would split it."""
    return text.replace("|", "\\|").replace("\n", " ")
