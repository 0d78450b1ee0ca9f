"""The custom-operator view of a report (docs/pytorch.md): what porting a model's PyTorch operators costs.

Over the JSON report alone: the operator files are those ported with the PyTorch dialect (their
entry's `dialect`) and the extension builds (a file with an HP505 finding: setup.py, CMake). It
gives, worst first:
- the silent runtime bugs: code that builds and runs on AMD, differently, because it assumes
  32-lane warps (the warp-size lints, HP40x), each with its place;
- the ROCm libraries the operators need (hipBLAS, hipCUB, MIOpen...), with how many files need each;
- each build's verdict, and the nvcc flags or architecture lists it cannot take there;
- a verdict per operator file: will not build / needs review / ports automatically, and why.

A file's verdict and libraries come from `judge` (by default the findings' verdict,
hipport/emit/verdict.py, whose libraries are HP436's); a report layout with a richer per-file
verdict (one that also counts the libraries a file reaches through ported names, as the ux
branch's report/verdict.py file_verdict does) passes its own: anything with kind, because, needs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from hipport.emit.verdict import verdict

DIALECT = "pytorch"
BUILD_CODE = "HP505"  # an extension build a ROCm PyTorch runs as it is (rules/buildfiles.toml)
BUILD_PROBLEM_CODES = ("HP502", "HP503")  # nvcc flags and architecture lists the ROCm build cannot take
SILENT_CODE_PREFIX = "HP40"  # the warp-size lints (rules/lint-warp-size.toml)
LABELS = {"fails": "will not build", "review": "needs review", "ports": "ports automatically"}
ORDER = ("fails", "review", "ports")


class Verdict(Protocol):
    """A file's verdict as the view reads it (report/verdict.py's FileVerdict is one)."""

    @property
    def kind(self) -> str: ...  # fails | review | ports

    @property
    def because(self) -> tuple[str, ...]: ...  # the error (fails) or warning (review) codes

    @property
    def needs(self) -> tuple[str, ...]: ...  # ROCm libraries beyond the HIP runtime


@dataclass(frozen=True)
class Judged:
    kind: str
    because: tuple[str, ...]
    needs: tuple[str, ...]


@dataclass
class OperatorFile:
    path: str
    judged: Verdict
    silent: int  # warp-size findings


@dataclass
class Place:
    path: str
    line: int
    code: str
    message: str


@dataclass
class OperatorView:
    files: list[OperatorFile] = field(default_factory=list)
    builds: list[OperatorFile] = field(default_factory=list)
    silent: list[Place] = field(default_factory=list)
    build_problems: list[Place] = field(default_factory=list)
    libraries: Counter[str] = field(default_factory=Counter)

    def counts(self) -> dict[str, int]:
        return {kind: sum(1 for f in self.files if f.judged.kind == kind) for kind in ORDER}


def judge_findings(entry: dict) -> Judged:
    judged = verdict(entry.get("findings", []))
    kind = "ports" if judged["verdict"] == "needs-library" else judged["verdict"]
    return Judged(kind, tuple(judged["because"]), tuple(judged["needs"]))


def operator_view(report: dict, judge: Callable[[dict], Verdict] = judge_findings) -> OperatorView | None:
    """The view of the report's operator files, or None when it has none (not a PyTorch extension)."""
    view = OperatorView()
    for entry in report.get("files", []):
        findings = entry.get("findings", [])
        is_build = any(f.get("code") == BUILD_CODE for f in findings)
        if entry.get("dialect") != DIALECT and not is_build:
            continue
        judged = judge(entry)
        silent = [f for f in findings if f.get("code", "").startswith(SILENT_CODE_PREFIX)]
        row = OperatorFile(entry["path"], judged, len(silent))
        (view.builds if is_build else view.files).append(row)
        view.silent += [_place(entry["path"], f) for f in silent]
        if is_build:
            view.build_problems += [_place(entry["path"], f) for f in findings if f.get("code") in BUILD_PROBLEM_CODES]
        else:
            view.libraries.update(judged.needs)
    if not view.files and not view.builds:
        return None
    view.files.sort(key=lambda f: (ORDER.index(f.judged.kind), -f.silent, f.path))
    return view


def _place(path: str, finding: dict) -> Place:
    return Place(path, finding.get("line", 0), finding.get("code", ""), finding.get("message", ""))


def operator_lines(report: dict, judge: Callable[[dict], Verdict] = judge_findings) -> list[str]:
    """The view as plain text lines (a heading first), or none for a report without operators."""
    view = operator_view(report, judge)
    if view is None:
        return []
    counts = view.counts()
    lines = [
        f"PyTorch custom operators: {len(view.files)} file(s): {counts['fails']} will not build, "
        f"{counts['review']} need review, {counts['ports']} port automatically"
    ]
    if view.silent:
        lines.append(
            f"  silent runtime bugs, fix first (32-lane warps; AMD wavefronts have 64 lanes): {len(view.silent)}"
        )
        lines += [f"    {p.path}:{p.line}: {p.code} {p.message}" for p in view.silent]
    if view.libraries:
        needed = ", ".join(f"{name} ({n} file{'s' if n > 1 else ''})" for name, n in sorted(view.libraries.items()))
        lines.append(f"  ROCm libraries the operators need: {needed}")
    for build in view.builds:
        problems = [p for p in view.build_problems if p.path == build.path]
        said = f"{len(problems)} setting(s) it cannot take" if problems else "nothing to change"
        lines.append(f"  build {build.path}: a ROCm PyTorch builds it as it is; {said}")
        lines += [f"    {p.path}:{p.line}: {p.code} {p.message}" for p in problems]
    width = max(len(LABELS[k]) for k in ORDER)
    for row in view.files:
        why = ", ".join(row.judged.because)
        needs = f"needs {', '.join(row.judged.needs)}" if row.judged.needs else ""
        detail = "; ".join(part for part in (why, needs) if part)
        lines.append(f"  {LABELS[row.judged.kind]:<{width}}  {row.path}" + (f"  ({detail})" if detail else ""))
    return lines
