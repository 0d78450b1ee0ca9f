"""The libraries a ported file needs besides the HIP runtime, as information.

A TU that fails to compile only because hipBLAS, rocThrust or OpenGL is not
installed is not a porting fault; saying which library each file needs, before
anyone compiles, lets a report (and `hipport verify`) tell the two apart. The
needs are rule data (`library_need` in rules/lint-semantics.toml), matched on
the include paths the ported file has: after the header renames.
"""

from __future__ import annotations

from collections.abc import Iterator

from hipport.parse.sites import IncludeSite, ParsedFile
from hipport.ruleset.model import LibraryNeed, RuleSet


def library_needs(parsed: ParsedFile, rules: RuleSet, roc: bool) -> list[tuple[int, int, str, str, str]]:
    """(start, end, include path as written, library name, message) for the first include of each
    library needed."""
    if not rules.library_needs or not parsed.includes:
        return []
    found: dict[str, tuple[int, int, str, str, str]] = {}
    for site, path, need in _include_needs(parsed, rules, roc):
        if need.library in found:
            continue
        package = f" (package {need.package})" if need.package else ""
        ported = f" (<{path}> once ported)" if path != site.path else ""
        found[need.library] = (
            site.path_start,
            site.path_end,
            site.path,
            need.library,
            f"the file includes <{site.path}>{ported}, so it needs {need.library}{package} besides the HIP runtime",
        )
    return list(found.values())


def _include_needs(parsed: ParsedFile, rules: RuleSet, roc: bool) -> Iterator[tuple[IncludeSite, str, LibraryNeed]]:
    """Each include with the first of its ported paths that a library need names, and that need."""
    for site in parsed.includes:
        for path in _ported_paths(site.path, rules, roc):
            need = _need(path, rules.library_needs)
            if need is not None:
                yield site, path, need
                break


def _ported_paths(path: str, rules: RuleSet, roc: bool) -> list[str]:
    header = rules.headers.get(path)
    if header is None:
        return [path]
    if header.hip is None and header.roc is None:
        return []  # dropped or unsupported: other findings say so
    first = header.roc if roc and header.roc else header.hip
    return [p for p in (first, header.hip_flat) if p]


def _need(path: str, needs: list[LibraryNeed]) -> LibraryNeed | None:
    for need in needs:
        if path == need.include or (need.include.endswith("/") and path.startswith(need.include)):
            return need
    return None


def nvidia_limits(parsed: ParsedFile, rules: RuleSet, roc: bool) -> list[tuple[int, int, str, str, str]]:
    """(start, end, include path as written, library name, message) for each include whose library
    does not build for NVIDIA with today's CUDA (a need's nvidia_limit)."""
    return [
        (site.path_start, site.path_end, site.path, need.library, need.nvidia_limit)
        for site, _, need in _include_needs(parsed, rules, roc)
        if need.nvidia_limit
    ]
