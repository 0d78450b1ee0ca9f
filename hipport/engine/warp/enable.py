"""The macro that turns on HIP's masked warp intrinsics, defined by the port itself.

HIP 6.2 to 6.4 declare __shfl_down_sync and friends only when HIP_ENABLE_WARP_SYNC_BUILTINS is
defined before the HIP runtime header. The port chooses where that header is included, so a file
that uses them gets the macro (guarded, so a -D on the command line still wins) just before the
runtime include: before the inserted or ported one, else before the file's first include.
"""

from __future__ import annotations

import re

from hipport.diagnostics import Edit
from hipport.parse.lines import newline_of
from hipport.parse.sites import ParsedFile


# A project header that calls a masked warp intrinsic: ProjectHeaders adds this mark (no identifier
# can spell it) to the names a file including that header sees, so the file's runtime include gets
# the macro too (it is included before the header, which is too late for the header's own define).
USES_WARP_SYNC = "<warp-sync>"
# A project header with device code (it gets the HIP runtime include): with a macro that breaks HIP's
# headers (rules/device-code.toml's name_set "runtime-clash-macros") visible too, the including file
# includes the runtime first, as nvcc's implicit include came before everything (hipport.engine.includes).
USES_DEVICE_CODE = "<device-code>"


def full_mask_mark(name: str) -> str:
    """The mark a project header's `#define NAME 0xffffffff` (a whole 32-lane warp) adds to the names
    a file including it sees: the file's masked calls with NAME pass the whole wavefront."""
    return f"<full-mask:{name}>"


DEVICE_CODE = re.compile(rb"\b(?:__global__|__device__|__shared__|__constant__|threadIdx|blockIdx|blockDim|gridDim)\b")
WARP_SYNC_CALL = re.compile(rb"\b__(?:shfl(?:_up|_down|_xor)?|any|all|ballot|match_any|match_all)_sync\s*\(")


# A cooperative group's vote or match member called with an argument (`tile.ballot(p)`, `g->any(p)`).
# HIP 6.2 to 6.4 declare these members of thread_block_tile and coalesced_group only behind the
# same macro as the intrinsics they call (amd_hip_cooperative_groups.h): member X is the group form
# of the __X_sync rewrite rule, so the rule's versions and macro are the member's. bitset's any()
# and all() take no argument, so they do not match.
GROUP_MEMBER_CALL = re.compile(rb"(?:\.|->)\s*(ballot|any|all|match_any|match_all)\s*\(\s*[^\s)]")
_GROUPS_INCLUDE = re.compile(rb"^[ \t]*#[ \t]*include[ \t]*[<\"](?:hip/hip_)?cooperative_groups(?:\.h)?[>\"]", re.M)


def calls_group_votes(source: bytes) -> bool:
    """A file that includes cooperative groups and calls a vote or match member (a project header
    that does needs the macro in the units that include it, as USES_WARP_SYNC marks)."""
    return bool(_GROUPS_INCLUDE.search(source) and GROUP_MEMBER_CALL.search(source))


def group_member_defines(rules, target, source: bytes) -> list[tuple[str, int, int, str]]:
    """The enabling macros the cooperative-group members this file calls need at target: for
    each macro, its first call as (macro, start, end, member)."""
    if not _GROUPS_INCLUDE.search(source):
        return []
    from hipport.versions import parse_version

    found: dict[str, tuple[str, int, int, str]] = {}
    for m in GROUP_MEMBER_CALL.finditer(source):
        member = m.group(1).decode("ascii")
        rule = rules.rewrites.get(f"__{member}_sync")
        if rule is None or not rule.enable_define or rule.default_since is None:
            continue
        if parse_version(rule.since) <= target < parse_version(rule.default_since):
            found.setdefault(rule.enable_define, (rule.enable_define, m.start(1), m.end(1), member))
    return list(found.values())


def header_defines(rules, target, declared_elsewhere: frozenset[str]) -> set[str]:
    """The enabling macros a file needs for what the project headers it includes call."""
    if USES_WARP_SYNC not in declared_elsewhere:
        return set()
    rule = rules.rewrites.get("__shfl_sync")
    if rule is None or not rule.enable_define or rule.default_since is None:
        return set()
    from hipport.versions import parse_version

    if parse_version(rule.since) <= target < parse_version(rule.default_since):
        return {rule.enable_define}
    return set()


def define_block(name: str, newline: bytes) -> bytes:
    n = name.encode("ascii")
    return b"#ifndef " + n + newline + b"#define " + n + newline + b"#endif" + newline


def with_enable_define(source: bytes, parsed: ParsedFile, include_edits: list[Edit], runtime: str, name: str) -> None:
    """Put the define in include_edits: with the runtime include the plan inserts, before the one it
    ports, else before the file's first unconditional include."""
    if re.search(rb"\b" + name.encode("ascii") + rb"\b", source):
        return  # the file defines it itself (or a port did already): its choice stands
    include = b"#include <" + runtime.encode("ascii") + b">"
    block = define_block(name, newline_of(source))
    for i, edit in enumerate(include_edits):
        if edit.start == edit.end and edit.text.startswith(include):
            include_edits[i] = Edit(edit.start, edit.end, block + edit.text)
            return
    include_edits.append(_before_runtime(source, parsed, include_edits, runtime, block))


def _before_runtime(source: bytes, parsed: ParsedFile, include_edits: list[Edit], runtime: str, block: bytes) -> Edit:
    path = runtime.encode("ascii")
    for edit in include_edits:
        if edit.text == path:
            site = next((s for s in parsed.includes if s.path_start == edit.start), None)
            if site is not None:
                return Edit(site.line_start, site.line_start, block)
    for site in sorted(parsed.includes, key=lambda s: s.line_start):
        if source[site.path_start : site.path_end] == path or not site.scope:
            return Edit(site.line_start, site.line_start, block)
    return Edit(parsed.top_insert_at, parsed.top_insert_at, block)
