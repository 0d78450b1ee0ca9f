"""Join compile failures of a ported tree to the report `hipport convert --report` wrote.

Each translation unit gets one verdict:
  ok          it compiles;
  no-lib      the first error is a missing header of a library that is not installed here;
  expected    a finding explains the first error (at its line, or naming what it names);
  semantic    the same, with a finding for a HIP semantic difference;
  no-include  the first error is a missing project header that is in the tree but not on the
              include path (a -I or compile database the compile lacked, not hipport's fault);
  port-fault  nothing explains it: hipport's output is wrong or incomplete, a bug to report.
A unit is "clean" when neither it nor any project header it includes carries an error or
warning finding: the report promised it would compile. The clean-verdict precision is the
share of clean units that compile or fail only for a missing library.

Finding lines are lines of the CUDA source; the compiler's are lines of the port, which may
have gained an #include line. Where the source is at hand (the report's root), lines are
mapped through a line diff of source and port.
"""

from __future__ import annotations

import difflib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from hipport.verify import CompileResult
from hipport.verify.diag import FirstError, Location, error_kind, first_error, quoted_names
from hipport.verify.includes import IncludeGraph
from hipport.verify.libraries import LibraryTable

PREDICTING = frozenset({"error", "warning"})
# how far an nvcc error's statement is followed, and the text that ends one
_STATEMENT_LINES = 12
_STATEMENT_ENDS = (b";", b"{", b"}")
_DIRECTIVE = re.compile(rb"^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b")
_INCLUDED = re.compile(rb'\s*#\s*include\s*[<"]([^>"]+)[>"]')
_TRAILING_COMMENT = re.compile(rb"\s*(?://.*|/\*.*?\*/\s*)$")
CLASSES = ("ok", "no-lib", "no-include", "expected", "semantic", "port-fault")
# A clean unit whose failure is one of these kept the report's promise: nothing hipport could port.
HONEST = ("ok", "no-lib", "no-include")


class ReportError(Exception):
    """The report cannot be read or is not a convert report."""


@dataclass
class Report:
    """A convert report's findings by the ported file's path relative to the tree."""

    root: Path | None
    findings: dict[str, list[dict]]
    sources: dict[str, str]  # ported relative path -> source relative path (they differ with --rename)

    @classmethod
    def load(cls, path: Path) -> Report:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise ReportError(f"{path}: cannot read the report: {exc.strerror}") from None
        except ValueError as exc:
            raise ReportError(f"{path}: not a JSON report: {exc}") from None
        if not isinstance(data, dict) or not isinstance(data.get("files"), list):
            raise ReportError(f"{path}: not a report of 'hipport convert --report' (no files list)")
        findings: dict[str, list[dict]] = {}
        sources: dict[str, str] = {}
        for entry in data["files"]:
            ported = entry.get("renamed_to") or entry["path"]
            findings[ported] = entry.get("findings", [])
            sources[ported] = entry["path"]
        root = data.get("root")
        return cls(_source_root(root, Path(path)) if root else None, findings, sources)


def _source_root(root: str, report: Path) -> Path:
    """convert writes the root as it was given, relative to where it ran: that is most often where
    the report was written too, or where verify runs now."""
    given = Path(root)
    if given.is_absolute():
        return given
    beside = Path(os.path.abspath(report)).parent / given
    return beside if beside.is_dir() and not given.is_dir() else given


@dataclass
class Verdict:
    unit: str
    verdict: str
    detail: str = ""
    clean: bool = False
    first_error: str = ""
    error_kind: str = ""
    library: str | None = None
    finding: dict | None = None
    predictions: int = 0  # error and warning findings in the unit and its project headers

    def as_json(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if v not in (None, "")}


@dataclass
class Joiner:
    """Classifies compile results of units under root against a report."""

    root: Path
    report: Report
    libraries: LibraryTable
    include_dirs: tuple[Path, ...] = ()
    graph: IncludeGraph = field(init=False)
    _line_maps: dict[str, list[int | None] | None] = field(default_factory=dict, init=False)
    _files: list[str] | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.root = Path(os.path.abspath(self.root))
        self.graph = IncludeGraph(self.root, self.include_dirs)

    def rel(self, path: str | Path) -> str | None:
        """path relative to the tree in the report's spelling, None outside the tree."""
        absolute = Path(os.path.abspath(path))
        if not self.graph.inside(absolute):
            return None
        return absolute.relative_to(self.root).as_posix()

    def scope(self, unit: Path) -> list[tuple[str, dict]]:
        """The error and warning findings of unit and of every project header it includes."""
        found = []
        for path in (Path(os.path.abspath(unit)), *self.graph.headers(unit)):
            rel = self.rel(path)
            if rel is None:
                continue
            for finding in self.report.findings.get(rel, []):
                if finding.get("severity") in PREDICTING:
                    found.append((rel, finding))
        return found

    def classify(self, unit: Path, result: CompileResult) -> Verdict:
        rel = self.rel(unit) or str(unit)
        scope = self.scope(unit)
        verdict = Verdict(rel, "ok", clean=not scope, predictions=len(scope))
        if result.ok:
            return verdict
        error = first_error(result.output)
        if error is None:  # a crash or a message clang does not shape as file:line: error
            lines = result.output.strip().splitlines()
            verdict.verdict, verdict.first_error = "port-fault", lines[-1] if lines else "hipcc failed"
            verdict.error_kind = verdict.first_error
            verdict.detail = f"hipport bug (please report it): {verdict.first_error}"
            return verdict
        verdict.first_error, verdict.error_kind = self._shown(error), error_kind(error.message)
        header = error.missing_header
        library = self.libraries.library_of(header) if header else None
        if library is not None:
            verdict.verdict, verdict.library = "no-lib", library
            verdict.detail = f"{header} ({library}) is not installed"
            return verdict
        elsewhere = self.in_tree(header) if header else None
        if elsewhere is not None:
            verdict.verdict = "no-include"
            verdict.detail = f"{header} is in the tree ({elsewhere}) but not on the include path: give -I or -p"
            return verdict
        match = self._explaining(error, scope)
        if match is None and header and not self.libraries.is_cuda(header) and self._included_by_source(error, header):
            verdict.verdict = "no-include"
            verdict.detail = (
                f"{header} is not in the tree, and the CUDA source includes it too (a header the build makes, "
                "as configure makes config.h, or another project's): give -I or -p"
            )
            return verdict
        if match is None:
            verdict.verdict = "port-fault"
            verdict.detail = f"hipport bug (please report it): {verdict.first_error}"
            if verdict.clean:
                verdict.detail += " [clean verdict miss]"
            return verdict
        where, finding = match
        verdict.verdict = "semantic" if self.libraries.semantic(finding["code"]) else "expected"
        verdict.finding = {
            "code": finding["code"],
            "name": finding.get("name"),
            "file": where,
            "line": finding.get("line"),
        }
        verdict.detail = (
            f"{verdict.verdict}: {finding['code']} {finding.get('name') or ''} at {where}:{finding.get('line')}"
        ).replace("  ", " ")
        return verdict

    def in_tree(self, header: str) -> str | None:
        """The tree's file that #include <header> would have meant, if there is one."""
        if self._files is None:
            self._files = sorted(p.relative_to(self.root).as_posix() for p in self.root.rglob("*") if p.is_file())
        tail = "/" + header.lstrip("./")
        return next((rel for rel in self._files if ("/" + rel).endswith(tail)), None)

    def _included_by_source(self, error: FirstError, header: str) -> bool:
        """Whether the CUDA source's line that the failing #include came from names header too:
        the port did not write that include, so its absence is not the port's fault."""
        rel = self.rel(error.file)
        source_rel = self.report.sources.get(rel) if rel is not None else None
        line = self.source_line(rel, error.line) if rel is not None else None
        if self.report.root is None or source_rel is None or line is None:
            return False
        try:
            lines = (self.report.root / source_rel).read_bytes().splitlines()
        except OSError:
            return False
        named = _INCLUDED.match(lines[line - 1]) if 0 < line <= len(lines) else None
        return named is not None and named.group(1) == header.encode("utf-8", "replace")

    def _shown(self, error: FirstError) -> str:
        """The error as file:line:col: message; an error in a system header also says which
        project #include led there (an include-order fault shows there, not in HIP's header)."""
        rel = self.rel(error.file)
        shown = f"{rel or error.file}:{error.line}:{error.column}: {error.message}"
        if rel is None:
            chain = [(self.rel(loc.file), loc.line) for loc in error.chain]
            project = [f"{r}:{line}" for r, line in chain if r is not None]
            if project:
                shown += f" (included from {project[-1]})"
        return shown

    def _explaining(self, error: FirstError, scope: list[tuple[str, dict]]) -> tuple[str, dict] | None:
        """The finding that best explains error: one at a line of the error's block (the error,
        its include chain, its macro notes), else one naming what the error names, else one
        naming the missing header, else, for an error with no location in the tree's sources (ptxas
        on the PTX nvcc generated), one whose code binds the unit to one HIP platform (platform_codes
        of rules/verify/libraries.toml: HP441), else one on an #if whose branch holds the error and
        which takes another branch under HIP (branch_codes: HP301). Errors before warnings at each step."""
        at_lines: set[tuple[str, int]] = set()
        for location in error.locations:
            rel = self.rel(location.file)
            if rel is None:
                continue
            port_lines = self._statement(rel, location.line) if error.nvcc else (location.line,)
            for line in port_lines:
                source_line = self.source_line(rel, line)
                if source_line is not None:
                    at_lines.add((rel, source_line))
        names = error.names()
        header = error.missing_header
        ranked = sorted(scope, key=lambda item: item[1].get("severity") != "error")
        branches = self._branches(error.locations[0]) if error.locations else set()
        steps = (
            lambda rel, f: (rel, f.get("line")) in at_lines,
            lambda rel, f: bool(names & _finding_names(f)),
            lambda rel, f: header is not None and (f.get("name") == header or f"'{header}'" in f.get("message", "")),
            lambda rel, f: not at_lines and f.get("code") in self.libraries.platform_codes,
            lambda rel, f: f.get("code") in self.libraries.branch_codes and (rel, f.get("line")) in branches,
        )
        for explains in steps:
            for rel, finding in ranked:
                if explains(rel, finding):
                    return rel, finding
        return None

    def _branches(self, location: Location) -> set[tuple[str, int]]:
        """(file, source line) of the #if, #elif and #else lines whose branches hold the location."""
        rel = self.rel(location.file)
        if rel is None:
            return set()
        lines = self._port_lines(rel)
        found: set[tuple[str, int]] = set()
        depth = 0
        for number in range(min(location.line, len(lines) + 1) - 1, 0, -1):
            directive = _DIRECTIVE.match(lines[number - 1])
            if directive is None:
                continue
            word = directive.group(1)
            if word == b"endif":
                depth += 1
            elif depth and word in (b"if", b"ifdef", b"ifndef"):
                depth -= 1
            elif not depth:  # a directive of a chain the location is inside
                source_line = self.source_line(rel, number)
                if source_line is not None:
                    found.add((rel, source_line))
        return found

    def _port_lines(self, rel: str) -> list[bytes]:
        """The lines of a file of the port ([] when it cannot be read)."""
        try:
            return (self.root / rel).read_bytes().splitlines()
        except OSError:
            return []

    def _statement(self, rel: str, line: int) -> tuple[int, ...]:
        """The port's lines from line to the end of the statement that starts there: nvcc's front
        end reports an error inside a macro's arguments at the line where the invocation begins,
        so the name at fault may be on a later line of it."""
        lines = self._port_lines(rel)
        last = line
        while last < min(len(lines), line + _STATEMENT_LINES) and not _ends_statement(lines[last - 1]):
            last += 1
        return tuple(range(line, last + 1))

    def source_line(self, rel: str, line: int) -> int | None:
        """The source line a line of the port came from (the same line when no source is at hand)."""
        if rel not in self._line_maps:
            self._line_maps[rel] = self._line_map(rel)
        mapping = self._line_maps[rel]
        if mapping is None:
            return line
        return mapping[line - 1] if 0 < line <= len(mapping) else None

    def _line_map(self, rel: str) -> list[int | None] | None:
        source_rel = self.report.sources.get(rel)
        if self.report.root is None or source_rel is None:
            return None
        try:
            source = (self.report.root / source_rel).read_bytes().splitlines()
            ported = (self.root / rel).read_bytes().splitlines()
        except OSError:
            return None
        if source == ported:
            return None
        mapping: list[int | None] = [None] * len(ported)
        matcher = difflib.SequenceMatcher(None, source, ported, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            for j in range(j1, j2):
                if tag == "insert":
                    mapping[j] = None
                else:  # equal, or lines an edit rewrote: the k-th rewritten line is the k-th original
                    mapping[j] = min(i1 + (j - j1), i2 - 1) + 1
        return mapping


def _ends_statement(line: bytes) -> bool:
    return _TRAILING_COMMENT.sub(b"", line).rstrip().endswith(_STATEMENT_ENDS)


def _finding_names(finding: dict) -> frozenset[str]:
    """The CUDA name a finding is about and the HIP names its message quotes ('a' -> 'b')."""
    names = quoted_names(finding.get("message", ""), shortest=3)
    return names | {finding["name"]} if finding.get("name") else names


def join(
    root: Path,
    units: list[Path],
    results: list[CompileResult],
    report: Report,
    libraries: LibraryTable,
    include_dirs: tuple[Path, ...] = (),
) -> list[Verdict]:
    """A verdict for each unit, in the order of units."""
    joiner = Joiner(root, report, libraries, include_dirs)
    return [joiner.classify(unit, result) for unit, result in zip(units, results)]
