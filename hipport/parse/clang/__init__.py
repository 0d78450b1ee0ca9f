"""The precise parser backend: libclang resolves every name to its declaration.

It reports the same kinds of sites as the tree-sitter backend and refines them.
tree-sitter reads every byte of a file: all #if branches, macro bodies that are
never expanded, code clang rejects. clang then says, for each name it saw, what
the name is:

- a declaration the project makes itself: the site becomes a DECLARATION, as
  tree-sitter reports the declarations it can see;
- a reference to a declaration that is the project's own (a `cudaMalloc` that a
  project header declares, or an overload of it that overload resolution
  picked): the site is dropped, so it is never rewritten. tree-sitter cannot know
  this when the declaration is in another file;
- a reference into the CUDA toolkit (or clang's CUDA headers, a builtin, a
  system header): the site stays.
Names clang did not see (inactive #if branches, macros never expanded) keep
tree-sitter's reading.

Macros: libclang reports the "file location" of an expanded name: the argument
as written for a name passed as a macro argument, the expansion site for a name
from a macro body. The latter is followed into the body of the macro expanded
there (through nested macros), so a body is rewritten once, in the body. A name
that no body spells, because ## assembled it, becomes a PastedNameSite.

Each translation unit is parsed at most once per session, host side, and device
side too when the project's code tests __CUDA_ARCH__. Facts are kept for every
project file a unit includes, so headers are ported through the units that
include them. A unit with a fatal error is ported with tree-sitter alone, and
the report says why (HP903).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from hipport.toolchain import compdb
from hipport.parse.clang.env import DEFAULT_GPU_ARCH, environment, libclang_problem
from hipport.parse.clang.facts import DECL, TOOLKIT, USER, FileFacts, UnitCollector, content_digest
from hipport.parse.scan import Candidates
from hipport.parse.sites import ParsedFile, PastedNameSite, Role
from hipport.parse.treesitter import TreeSitterBackend


@dataclass
class ParseStats:
    units: int = 0
    passes: int = 0
    seconds: float = 0.0  # libclang parsing and fact collection
    failed: int = 0


class ClangSession:
    """One run's libclang state: the compile database and what each parse found."""

    name = "clang"

    def __init__(
        self, compile_commands: Path | None = None, clang_args: tuple[str, ...] = (), cuda_path: Path | None = None
    ) -> None:
        self.env = environment(cuda_path)
        entries = compdb.load(compile_commands) if compile_commands is not None else {}
        self.units: dict[str, compdb.CompileEntry] = {str(path): entry for path, entry in entries.items()}
        self.clang_args = list(clang_args)
        self.problem = libclang_problem()
        self.facts: dict[str, FileFacts] = {}
        self.owner: dict[str, str] = {}  # project file -> a unit that included it
        self.failed: dict[str, str] = {}  # unit -> why its precise parse failed
        self.parsed: set[str] = set()
        self.stats = ParseStats()

    def for_file(self, path: Path | str) -> ClangBackend:
        return ClangBackend(self, _key(path))

    # -- facts -----------------------------------------------------------------

    def facts_for(self, key: str, source: bytes) -> tuple[FileFacts | None, str | None]:
        """What clang knows about one file, or why it knows nothing."""
        digest = content_digest(source)
        known = self.facts.get(key)
        if known is not None and known.digest == digest:
            return known, None
        if key in self.failed:
            return None, self.failed[key]
        if key in self.units:
            unit = key
        elif known is not None and key in self.owner:
            unit = self.owner[key]  # the file changed since its unit was parsed
        else:
            self._parse_remaining_units()
            known = self.facts.get(key)
            if known is not None and known.digest == digest:
                return known, None
            unit = key  # included by no unit of the database: parse it on its own
        reason = self._parse_unit(unit, {key: source})
        known = self.facts.get(key)
        if known is not None and known.digest == digest:
            return known, None
        return None, reason or "clang read different contents for this file"

    def _parse_remaining_units(self) -> None:
        for unit in self.units:
            if unit not in self.parsed and unit not in self.failed:
                self._parse_unit(unit, {})

    def _parse_unit(self, unit: str, overrides: dict[str, bytes]) -> str | None:
        if self.problem is not None:
            self.failed[unit] = self.problem
            return self.problem
        started = time.perf_counter()
        try:
            reason = self._parse_unit_passes(unit, overrides)
        except (ValueError, UnicodeError, OSError) as exc:
            # A port must not fail because libclang said something odd (bytes that are
            # not UTF-8 in a name or a message): tree-sitter ports the file instead.
            reason = f"hipport could not read clang's result ({type(exc).__name__}: {exc})"
        finally:
            self.stats.seconds += time.perf_counter() - started
        self.stats.units += 1
        if reason is not None:
            self.stats.failed += 1
            self.failed[unit] = reason
        else:
            self.parsed.add(unit)
        return reason

    def _parse_unit_passes(self, unit: str, overrides: dict[str, bytes]) -> str | None:
        entry = self.units.get(unit)
        flags = list(entry.flags) if entry is not None else self._nearest_flags(unit)
        language = (entry.language if entry is not None else None) or _language(unit)
        args = ["-x", language, *self.env.base_args(), *flags, *self.clang_args]
        if language != "cuda" and self.env.cuda_path is not None:
            args += ["-isystem", str(self.env.cuda_path / "include")]  # what nvcc -x cu adds by itself
        # The file being ported is parsed as the engine has it; everything else as on
        # disk (tree runs port every file before they write any).
        contents = dict(overrides)
        unsaved = list(contents.items())
        passes = [args + ["--cuda-host-only"]] if language == "cuda" else [args]
        found: dict[str, FileFacts] = {}
        for number, pass_args in enumerate(passes):
            reason, tu = self._parse(unit, pass_args, unsaved)
            if reason is not None:
                if number == 0:
                    return reason
                continue  # a failed device pass leaves the host pass's facts
            collector = UnitCollector(tu, self.env, contents)
            for path, facts in collector.run().items():
                if path in found and found[path].digest == facts.digest:
                    found[path].merge(facts)
                else:
                    found[path] = facts
            if number == 0 and language == "cuda" and collector.tests_cuda_arch:
                arch = entry.gpu_archs[0] if entry is not None and entry.gpu_archs else DEFAULT_GPU_ARCH
                passes.append(args + ["--cuda-device-only", f"--cuda-gpu-arch={arch}"])
        for path, facts in found.items():
            known = self.facts.get(path)
            if known is not None and known.digest == facts.digest and path != unit:
                known.merge(facts)  # a header seen again through another unit
            else:
                self.facts[path] = facts
            if path != unit:
                self.owner.setdefault(path, unit)
        return None

    def _parse(self, unit: str, args: list[str], unsaved):
        from clang import cindex

        self.stats.passes += 1
        # An index per parse: a session can outlive the bindings at interpreter exit,
        # and an Index disposed then raises from its __del__.
        try:
            tu = cindex.Index.create().parse(
                unit, args=args, unsaved_files=unsaved, options=cindex.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD
            )
        except cindex.TranslationUnitLoadError:
            return "libclang rejected the command line: " + " ".join(args), None
        for diagnostic in tu.diagnostics:
            fatal = diagnostic.severity >= cindex.Diagnostic.Fatal
            # An error with no location comes from the driver: unusable flags.
            driver = diagnostic.severity >= cindex.Diagnostic.Error and diagnostic.location.file is None
            if fatal or driver:
                return _describe(diagnostic), None
        return None, tu

    def _nearest_flags(self, path: str) -> list[str]:
        """Flags for a file the database does not list: those of its nearest unit."""
        if not self.units:
            return []
        best = max(self.units, key=lambda unit: len(os.path.commonpath([unit, path])))
        return list(self.units[best].flags)


class ClangBackend:
    """The backend the engine sees for one file of a session."""

    name = "clang"

    def __init__(self, session: ClangSession, key: str) -> None:
        self.session = session
        self.key = key

    def parse(self, source: bytes, candidates: Candidates, markers: frozenset[str]) -> ParsedFile:
        parsed = TreeSitterBackend().parse(source, candidates, markers)
        facts, reason = self.session.facts_for(self.key, source)
        if facts is None:
            parsed.notes.append(("HP903", 0, f"precise parse failed: {reason}; ported with tree-sitter"))
            return parsed
        refine(parsed, facts)
        return parsed


def refine(parsed: ParsedFile, facts: FileFacts) -> None:
    """Correct tree-sitter's sites with what clang resolved."""
    for site in parsed.names:
        kinds = facts.kinds.get(site.start, ())
        if DECL in kinds and site.role is not Role.MARKER:
            site.role, site.arguments = Role.DECLARATION, None
    declared = {site.name for site in parsed.names if site.role is Role.DECLARATION}
    # A declaration clang did not see sits in an #if branch this configuration
    # skips (a CPU-build stub, say). What the file's uses mean then depends on
    # the configuration, so those names keep tree-sitter's scoped shadowing.
    unseen = {
        site.name
        for site in parsed.names
        if site.role is Role.DECLARATION and DECL not in facts.kinds.get(site.start, ())
    }
    kept = []
    for site in parsed.names:
        kinds = facts.kinds.get(site.start, set())
        if kinds and site.role is not Role.MARKER and DECL not in kinds:
            if kinds == {USER}:
                if site.name not in declared:
                    continue  # the project's own entity, declared in another file: never rewritten
                site.shadowed = True
            if kinds == {TOOLKIT}:
                if site.role is Role.DECLARATION:
                    site.role = Role.USE  # tree-sitter took a use of the toolkit for a declaration
                site.resolved = site.name not in unseen
        kept.append(site)
    parsed.names = kept
    for (start, end), (piece, macro, names) in sorted(facts.pasted.items()):
        parsed.pasted.append(PastedNameSite(start, end, piece, macro, tuple(sorted(names))))


def _language(path: str) -> str:
    """How a file the database does not describe is parsed: host C and C++ as such, the rest as CUDA.

    Host sources get no implicit cuda_runtime.h, as with g++; headers may hold
    kernels, so they are read as CUDA.
    """
    suffix = os.path.splitext(path)[1].lower()
    if suffix == ".c":
        return "c"
    if suffix in (".cpp", ".cc", ".cxx", ".c++"):
        return "c++"
    return "cuda"


def _describe(diagnostic) -> str:
    location = diagnostic.location
    if location.file is None:
        return diagnostic.spelling
    return f"{os.path.basename(str(location.file.name))}:{location.line}: {diagnostic.spelling}"


def _key(path: Path | str) -> str:
    return os.path.normpath(os.path.abspath(os.fspath(path)))
