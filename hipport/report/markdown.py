"""Markdown for a pull-request comment: the action list, summary table, top names not ported,
findings by code.

The per-file table goes in a <details> block so a large tree keeps the comment short.
"""

from __future__ import annotations

from hipport.report.actions import ActionList, FileActions, action_list, operator_summary, sections, verdict_counts
from hipport.report.metrics import Metrics, format_percent, library_title
from hipport.report.verdict import format_minutes
from hipport.ruleset.model import RuleSet

TOP_NAMES = 10
TOP_FILES = 50  # GitHub caps a comment at 65,536 characters
ACTION_FILES = 10  # per section of the action list
ACTION_PROBLEMS = 3  # per file there


def render_markdown(report: dict, metrics: Metrics, rules: RuleSet) -> str:
    m = metrics
    sev = m.findings_by_severity
    verdicts = ", ".join(f"**{text}**" if kind == "fails" else text for kind, text in verdict_counts(m))
    out = [
        "## hipport porting report",
        "",
        f"Target HIP **{m.hip_version}** · {len(m.files)} file(s): {verdicts} · estimated work "
        f"**{_work(m.minutes)}** · **{format_percent(m.percent)}** of {m.references} CUDA references "
        "ported automatically",
        "",
        *_action_section(action_list(report, m, rules), m),
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
        f"| estimated work | {_work(m.minutes)} |",
    ]
    operators = operator_summary(report, rules)  # a PyTorch extension's custom operators, worst first
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
            "| file | verdict | refs | auto | launches | errors | warnings | info | work |",
            "|---|---|---:|---:|---:|---:|---:|---:|---|",
        ]
        for f in attention[:TOP_FILES]:
            s = f.findings_by_severity
            out.append(
                f"| `{_cell(f.path)}` | {f.label} | {f.references} | {format_percent(f.percent)} | {f.launches} | "
                f"{s['error']} | {s['warning']} | {s['info']} | {_work(f.minutes)} |"
            )
        if len(attention) > TOP_FILES:
            out += ["", f"… and {len(attention) - TOP_FILES} more."]
        out.append("")
    out += [f"{clean} file(s) ported fully with no findings.", "", "</details>"]
    return out


def _action_section(a: ActionList, m: Metrics) -> list[str]:
    out = ["### What to do, worst first", ""]
    for number, section in enumerate(sections(a, m), 1):
        joint = ", " if section.files is a.runtime_risks else ": "
        detail = section.detail
        if section.libraries:
            detail = "; ".join(_library(lib) for lib in section.libraries)
        out += [f"{number}. **{section.head}**{joint}{detail}", *_problems(section.files)]
    return out


def _library(lib) -> str:
    about = [f"package `{lib.package}`"] if lib.package else []
    about += [f"for {', '.join(lib.replaces)}"] if lib.replaces else []
    return f"{lib.library} ({', '.join([*about, f'{lib.files} file(s)'])})"


def _problems(group: list[FileActions]) -> list[str]:
    out = []
    for actions in group[:ACTION_FILES]:
        f = actions.file
        out.append(f"   - `{_cell(f.path)}` ({_work(f.minutes)})")
        out += [
            f"     - {p.code}{f' x{p.count}' if p.count > 1 else ''} (line {p.line}): {_prose(p.message)}"
            for p in actions.problems[:ACTION_PROBLEMS]
        ]
        more = len(actions.problems) - ACTION_PROBLEMS
        if more > 0:
            out.append(f"     - and {more} more problem(s) in this file")
    if len(group) > ACTION_FILES:
        out.append(f"   - … and {len(group) - ACTION_FILES} more file(s)")
    return out


def _work(minutes: int) -> str:
    return "none" if minutes <= 0 else "about " + format_minutes(minutes)


def _prose(text: str) -> str:
    """A finding's message as Markdown shows it verbatim: __name__ and *ptr are no emphasis."""
    return "".join("\\" + c if c in "\\`*_<[" else c for c in _cell(text))


def _cell(text: str) -> str:
    """Keep a table cell one cell: pipes and line breaks would split it."""
    return text.replace("|", "\\|").replace("\n", " ")
