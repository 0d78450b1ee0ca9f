"""Header mapping, de-duplication and the implicit runtime include.

Include changes are planned together, after every name is seen, so the
runtime include is inserted once and two CUDA headers that map to one HIP
header leave a single #include (the LibCST-style queue, applied once).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from hipport.diagnostics import Edit
from hipport.options import Options
from hipport.parse.lines import newline_of
from hipport.parse.sites import IncludeSite, ParsedFile
from hipport.ruleset.model import RuleSet
from hipport.versions import format_version, parse_version


@dataclass
class IncludePlan:
    edits: list[Edit] = field(default_factory=list)
    findings: list[tuple[str, int, int, str, str]] = field(default_factory=list)  # code, start, end, name, msg


def plan_includes(source: bytes, parsed: ParsedFile, rules: RuleSet, options: Options,
                  needs_runtime: bool, needs_runtime_api: bool) -> IncludePlan:
    plan = IncludePlan()
    kept: list[tuple[str, tuple[int, ...]]] = []
    for site in sorted(parsed.includes, key=lambda s: s.line_start):
        target = _target(site, rules, options, plan)
        if target is None or (target != site.path and _already_included(kept, target, site.scope)):
            _remove_line(source, site, plan)
            if target is None:
                continue
        if target != site.path:
            if _already_included(kept, target, site.scope):
                continue
            plan.edits.append(Edit(site.path_start, site.path_end, target.encode("ascii")))
        kept.append((target, site.scope))
    targets = {target for target, _ in kept}
    runtime = rules.runtime_include
    if runtime in targets:
        return plan
    if needs_runtime or (needs_runtime_api and rules.runtime_api_include not in targets):
        plan.edits.append(_runtime_include(source, parsed, runtime))
    return plan


def _target(site: IncludeSite, rules: RuleSet, options: Options, plan: IncludePlan) -> str | None:
    """The header this include names after porting; None when the line goes."""
    header = rules.headers.get(site.path)
    if header is None:
        return site.path
    if header.drop:
        return None
    if header.hip is None:
        plan.findings.append(("HP103", site.path_start, site.path_end, site.path,
                              f"<{site.path}> has no HIP equivalent"))
        return site.path
    roc = options.roc and header.roc is not None
    path = header.roc if roc else header.hip
    target = options.hip_version or rules.newest_hip
    # ROCm before the library's move to its include directory only has the flat path.
    if header.dir_added and target < parse_version(header.dir_added):
        flat = header.roc_flat if roc else header.hip_flat
        if flat:
            removed = f" and gone in {header.flat_removed}" if header.flat_removed else ""
            plan.findings.append((
                "HP205", site.path_start, site.path_end, site.path,
                f"'{site.path}' -> '{flat}': HIP {format_version(target)} predates '{path}' "
                f"(ROCm {header.dir_added}); the flat path is deprecated from {header.dir_added}{removed}",
            ))
            return flat
    return path


def _remove_line(source: bytes, site: IncludeSite, plan: IncludePlan) -> None:
    """Delete an include line, but never the code or comment that shares the line."""
    rest = source[site.path_end + 1:site.line_end].strip()
    if not rest:
        plan.edits.append(Edit(site.line_start, site.line_end, b""))
    elif rest.startswith(b"//") or (rest.startswith(b"/*") and rest.endswith(b"*/") and rest.count(b"*/") == 1):
        plan.edits.append(Edit(site.line_start, site.path_end + 1, b""))  # the comment stays on its line
    else:
        plan.findings.append(("HP105", site.path_start, site.path_end, site.path,
                              f"text follows '#include <{site.path}>' on its line; remove the include by hand"))


def _already_included(kept: list[tuple[str, tuple[int, ...]]], target: str, scope: tuple[int, ...]) -> bool:
    # An earlier include covers this one only from the same or an enclosing #if block.
    return any(t == target and scope[: len(s)] == s for t, s in kept)


def _runtime_include(source: bytes, parsed: ParsedFile, header: str) -> Edit:
    newline = newline_of(source)
    first = min(parsed.includes, key=lambda s: s.line_start, default=None)
    at = first.line_start if first is not None and not first.scope else parsed.top_insert_at
    return Edit(at, at, b"#include <" + header.encode("ascii") + b">" + newline)
