"""Which library a missing header belongs to, which CUDA headers the rules know, and which
finding codes name semantic differences: what the verify join reads a failed compile with."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from hipport.verify import rule_library_headers


@dataclass(frozen=True)
class LibraryTable:
    """Which library a missing header belongs to, and which codes name semantic differences."""

    exact: dict[str, str]
    prefixes: tuple[tuple[str, str], ...]
    semantic_codes: frozenset[str]
    platform_codes: frozenset[str] = frozenset()  # findings that bind a unit to one HIP platform
    branch_codes: frozenset[str] = frozenset()  # findings that say an #if takes another branch under HIP
    cuda_headers: frozenset[str] = frozenset()  # the CUDA headers the rules know ("cuda/" a whole folder)

    def is_cuda(self, header: str) -> bool:
        header = header.lstrip("./")
        return header in self.cuda_headers or any(header.startswith(h) for h in self.cuda_headers if h.endswith("/"))

    def library_of(self, header: str) -> str | None:
        header = header.lstrip("./")
        if header in self.exact:
            return self.exact[header]
        return next((name for prefix, name in self.prefixes if header.startswith(prefix)), None)

    def semantic(self, code: str) -> bool:
        return code in self.semantic_codes or f"{code[:-1]}x" in self.semantic_codes


def library_table(rules, data: Path | None = None) -> LibraryTable:
    """The ROCm headers the rules emit (named after their directory: hipblas) plus the
    third-party libraries of rules/verify/libraries.toml."""
    from hipport.ruleset.loader import builtin_rules_dir

    exact = rule_library_headers(rules)
    path = data or builtin_rules_dir() / "verify" / "libraries.toml"
    with open(path, "rb") as f:
        table = tomllib.load(f)
    prefixes: list[tuple[str, str]] = []
    for library in table.get("library", []):
        for header in library["headers"]:
            if header.endswith(("/", "_")):  # a directory, or a family of names (nvmedia_)
                prefixes.append((header, library["name"]))
            else:
                exact.setdefault(header, library["name"])
    return LibraryTable(
        exact,
        tuple(prefixes),
        frozenset(table.get("semantic_codes", [])),
        frozenset(table.get("platform_codes", [])),
        frozenset(table.get("branch_codes", [])),
        frozenset(rules.headers),
    )
