"""The ROCm libraries a port needs beyond HIP itself, known before anything is compiled.

A file whose port uses cuBLAS names needs hipBLAS (rocBLAS with --roc) installed to build:
`hipport verify` would say NO-LIB only after compiling. The library of each name comes from
its rule, its package from the library's main header (hipblas/hipblas.h -> hipblas), so the
data stays in rules/headers.toml.
"""
from __future__ import annotations

from collections import Counter

from hipport.ruleset.model import RuleSet


def library_packages(rules: RuleSet, roc: bool = False) -> dict[str, str]:
    """Rule library (CUBLAS) -> the ROCm package its port includes (hipblas), HIP's own left out."""
    packages: dict[str, str] = {}
    for rule in rules.headers.values():
        if not (rule.role or "").startswith("main_header"):
            continue
        header = rule.roc if roc and rule.roc else rule.hip
        top = (header or "").split("/")[0].removesuffix(".h")
        if header and top != "hip":
            packages.setdefault(rule.library, top)
    return packages


def libraries_needed(report: dict, rules: RuleSet) -> dict[str, int]:
    """Each ROCm library the report's ported names need, with the number of files using it."""
    packages = library_packages(rules, bool(report.get("options", {}).get("roc")))
    files: Counter[str] = Counter()
    for entry in report.get("files", []):
        for package in {packages[lib] for lib in entry.get("converted", {}) if lib in packages}:
            files[package] += 1
    return dict(sorted(files.items()))
