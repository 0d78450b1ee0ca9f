"""Header mapping, de-duplication and the implicit runtime include.

Include changes are planned together, after every name is seen, so the
runtime include is inserted once and two CUDA headers that map to one HIP
header leave a single #include (the LibCST-style queue, applied once).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from hipport.diagnostics import Edit
from hipport.engine.host_math import with_host_math
from hipport.engine.linkage import own_header
from hipport.engine.polyfills import guarded_block
from hipport.options import Options
from hipport.parse.lines import newline_of
from hipport.parse.sites import IncludeSite, ParsedFile
from hipport.ruleset.model import HeaderRule, RuleSet
from hipport.versions import format_version, parse_version


@dataclass
class IncludePlan:
    edits: list[Edit] = field(default_factory=list)
    findings: list[tuple[str, int, int, str, str]] = field(default_factory=list)  # code, start, end, name, msg


def plan_includes(
    source: bytes,
    parsed: ParsedFile,
    rules: RuleSet,
    options: Options,
    needs_runtime: bool,
    needs_runtime_api: bool,
    declared_elsewhere: frozenset[str] = frozenset(),
) -> IncludePlan:
    plan = IncludePlan()
    kept: list[tuple[str, tuple[int, ...]]] = []
    ported: list[tuple[IncludeSite, str]] = []  # the includes whose path the port rewrites, in order
    for site in sorted(parsed.includes, key=lambda s: s.line_start):
        handled, inline = _inline(source, site, rules)
        if handled:
            plan.edits.extend([inline] if inline is not None else [])
            continue
        # "cuda.h" beside the file is the project's own header: the compiler never reaches CUDA's
        own = _quoted(source, site) and own_header(site.path) in declared_elsewhere
        target = site.path if own else _target(site, rules, options, plan)
        if target is None or (target != site.path and _already_included(kept, target, site.scope)):
            _remove_line(source, site, plan)
            if target is None:
                continue
        if target != site.path:
            if _already_included(kept, target, site.scope):
                continue
            plan.edits.append(Edit(site.path_start, site.path_end, target.encode("ascii")))
            ported.append((site, target))
        kept.append((target, site.scope))
    targets = {target for target, _ in kept}
    runtime = rules.runtime_include
    # nvcc includes cuda_runtime.h before anything else in a CUDA file, so every CUDA header saw
    # the runtime; HIP's own headers need it too (hip_cooperative_groups.h, driver_types.h and
    # channel_descriptor.h do not compile without it on HIP 5.2).
    first_ported = next(
        (site for site, target in ported if target != rules.runtime_api_include and _needs_runtime(site.path, rules)),
        None,
    )
    if runtime in targets:
        _runtime_first(source, parsed, rules, ported, first_ported, needs_runtime, plan)
    elif needs_runtime or first_ported is not None or (needs_runtime_api and rules.runtime_api_include not in targets):
        plan.edits.append(_runtime_include(source, parsed, runtime, first_ported))
    plan.edits = with_host_math(source, targets, rules, plan.edits)
    return plan


def headers_need_runtime_first(declared_elsewhere: frozenset[str], rules: RuleSet) -> bool:
    """The file includes a project header with device code (which gets the HIP runtime include) and
    sees a project macro that breaks HIP's headers when defined before them (`#define T int`: HIP's
    templates are written with T). nvcc included the runtime before everything, so the macro never
    met CUDA's headers; the file includes the HIP runtime first for the same reason."""
    from hipport.engine.warp.enable import USES_DEVICE_CODE

    if USES_DEVICE_CODE not in declared_elsewhere:
        return False
    return not declared_elsewhere.isdisjoint(rules.code_tables.name_set("runtime-clash-macros"))


def _needs_runtime(cuda_path: str, rules: RuleSet) -> bool:
    header = header_rule(rules, cuda_path)
    if header is None:
        return False
    return header.library in rules.runtime_libraries or header.library in rules.runtime_first_libraries


def _runtime_first(
    source: bytes,
    parsed: ParsedFile,
    rules: RuleSet,
    ported: list[tuple[IncludeSite, str]],
    first_ported: IncludeSite | None,
    device_code: bool,
    plan: IncludePlan,
) -> None:
    """A CUDA include ported to the runtime moves up to just before the first include that
    needs it: a ported CUDA header, or in device code (which nvcc compiled with the runtime
    included first) a project header, which may test the runtime's guard, or <assert.h>, whose
    assert HIP's NVIDIA header would otherwise replace with a bare trap."""
    runtime = next((site for site, target in ported if target == rules.runtime_include), None)
    if runtime is None:
        return  # the user wrote hip_runtime.h: their order stands
    anchor = first_ported
    if device_code:
        quoted = next((site for site in parsed.includes if _quoted(source, site)), None)
        for site in (quoted, assert_include(parsed, rules)):
            if site is not None and (anchor is None or site.line_start < anchor.line_start):
                anchor = site
    if anchor is None or anchor.line_start >= runtime.line_start:
        return
    if anchor.scope or runtime.scope or not _removable(source, runtime):
        return  # inside #if blocks: moving it could change what another branch sees
    plan.edits = [edit for edit in plan.edits if edit.start != runtime.path_start]
    _remove_line(source, runtime, plan)
    newline = newline_of(source)
    plan.edits.append(
        Edit(
            anchor.line_start, anchor.line_start, b"#include <" + rules.runtime_include.encode("ascii") + b">" + newline
        )
    )


def assert_include(parsed: ParsedFile, rules: RuleSet) -> IncludeSite | None:
    """The file's first include of a header that defines assert (name set "assert-headers")."""
    asserts = rules.code_tables.name_set("assert-headers")
    return next((site for site in parsed.includes if site.path in asserts), None)


def _quoted(source: bytes, site: IncludeSite) -> bool:
    return source[site.path_start - 1 : site.path_start] == b'"'


def _target(site: IncludeSite, rules: RuleSet, options: Options, plan: IncludePlan) -> str | None:
    """The header this include names after porting; None when the line goes."""
    header = header_rule(rules, site.path)
    if header is None:
        return site.path
    if header.drop:
        return None
    if header.hip is None:
        note = f": {header.note}" if header.note else ""
        plan.findings.append(
            ("HP103", site.path_start, site.path_end, site.path, f"<{site.path}> has no HIP equivalent{note}")
        )
        return site.path
    roc = options.roc and header.roc is not None
    path = header.roc if roc else header.hip
    if header.rename_words and path is not None and header.cuda.endswith("/"):
        path += renamed_words(site.path[len(header.cuda) :], header.rename_words)
    target = options.hip_version or rules.newest_hip
    if header.added and not roc and target < parse_version(header.added):
        if header.older:
            return header.older  # what that HIP declares the same API in
        plan.findings.append(
            (
                "HP201",
                site.path_start,
                site.path_end,
                site.path,
                f"'{site.path}' -> '{path}' needs HIP {format_version(parse_version(header.added))}, "
                f"target is {format_version(target)}",
            )
        )
        return path
    # ROCm before the library's move to its include directory only has the flat path.
    if header.dir_added and target < parse_version(header.dir_added):
        flat = header.roc_flat if roc else header.hip_flat
        if flat:
            removed = f" and gone in {header.flat_removed}" if header.flat_removed else ""
            plan.findings.append(
                (
                    "HP205",
                    site.path_start,
                    site.path_end,
                    site.path,
                    f"'{site.path}' -> '{flat}': HIP {format_version(target)} predates '{path}' "
                    f"(ROCm {header.dir_added}); the flat path is deprecated from {header.dir_added}{removed}",
                )
            )
            return flat
    return path


def renamed_words(rest: str, words: tuple[str, ...]) -> str:
    """The path below a rename_words directory rule as a ROCm PyTorch names it (CUDAContext.h ->
    HIPContext.h with "CUDA=HIP", detail/ stays)."""
    for word in words:
        old, _, new = word.partition("=")
        rest = rest.replace(old, new)
    return rest


def header_rule(rules: RuleSet, path: str) -> HeaderRule | None:
    """The rule for an include path: its own, or the nearest directory rule ("cuda/") above it."""
    rule = rules.headers.get(path)
    slash = path.rfind("/")
    while rule is None and slash > 0:
        rule = rules.headers.get(path[: slash + 1])
        slash = path.rfind("/", 0, slash)
    return rule


def _inline(source: bytes, site: IncludeSite, rules: RuleSet) -> tuple[bool, Edit | None]:
    """(handled, edit): the include line replaced by its header's content for HIP, where a rule has
    it (`inline`); handled with no edit inside such a block already written (a port ported again)."""
    header = rules.headers.get(site.path)
    if header is None or header.inline is None or source[site.path_end + 1 : site.line_end].strip():
        return False, None
    if any(re.search(rb"\b" + word.encode("ascii") + rb"\b", source) for word in header.inline_unless):
        return False, None  # an API of the family HIP lacks: the include stays, with its HP103
    guard = "HIPPORT_INLINE_" + re.sub(r"[^A-Za-z0-9]", "_", site.path).upper()
    if b"#define " + guard.encode("ascii") in source[: site.line_start]:
        return True, None
    return True, Edit(site.line_start, site.line_end, guarded_block(guard, header.inline, newline_of(source)))


def _remove_line(source: bytes, site: IncludeSite, plan: IncludePlan) -> None:
    """Delete an include line, but never the code or comment that shares the line."""
    rest = source[site.path_end + 1 : site.line_end].strip()
    if not rest:
        plan.edits.append(Edit(site.line_start, site.line_end, b""))
    elif rest.startswith(b"//") or (rest.startswith(b"/*") and rest.endswith(b"*/") and rest.count(b"*/") == 1):
        plan.edits.append(Edit(site.line_start, site.path_end + 1, b""))  # the comment stays on its line
    else:
        plan.findings.append(
            (
                "HP105",
                site.path_start,
                site.path_end,
                site.path,
                f"text follows '#include <{site.path}>' on its line; remove the include by hand",
            )
        )


def _already_included(kept: list[tuple[str, tuple[int, ...]]], target: str, scope: tuple[int, ...]) -> bool:
    # An earlier include covers this one only from the same or an enclosing #if block.
    return any(t == target and scope[: len(s)] == s for t, s in kept)


def _removable(source: bytes, site: IncludeSite) -> bool:
    rest = source[site.path_end + 1 : site.line_end].strip()
    return not rest or rest.startswith(b"//")


_LEADING = re.compile(rb"(?:\s+|//[^\n]*|/\*.*?\*/)*", re.S)
_PRAGMA_ONCE = re.compile(rb"[ \t]*#[ \t]*pragma[ \t]+once\b[^\n]*\n?")
_GUARD = re.compile(
    rb"[ \t]*#[ \t]*ifndef[ \t]+(\w+)[^\n]*\n(?:[ \t]*(?://[^\n]*)?\n)*"
    rb"[ \t]*#[ \t]*define[ \t]+\1\b[^\n]*\n?"
)


def _after_guard(source: bytes, default: int) -> int:
    """Past a leading #pragma once or include guard, where a header's first include belongs."""
    leading = _LEADING.match(source, default)
    at = leading.end() if leading is not None else default  # the pattern matches the empty string
    for directive in (_PRAGMA_ONCE, _GUARD):
        match = directive.match(source, source.rfind(b"\n", 0, at) + 1)
        if match is not None:
            return match.end()
    return default


def _runtime_include(source: bytes, parsed: ParsedFile, header: str, first_ported: IncludeSite | None) -> Edit:
    """Before the first include when it is unconditional (nvcc's implicit one came before
    everything), else before the first ported CUDA include, else past the include guard."""
    newline = newline_of(source)
    first = min(parsed.includes, key=lambda s: s.line_start, default=None)
    if first is not None and not first.scope:
        at = first.line_start
    elif first_ported is not None and not first_ported.scope:
        at = first_ported.line_start
    else:
        at = _after_guard(source, parsed.top_insert_at)
    return Edit(at, at, b"#include <" + header.encode("ascii") + b">" + newline)
