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

import ctypes
import hashlib
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from hipport.parse import compdb
from hipport.parse.clang_env import DEFAULT_GPU_ARCH, ClangEnvironment, environment, libclang_problem
from hipport.parse.macro_lexer import MacroIdentifier, macro_identifiers
from hipport.parse.scan import Candidates
from hipport.parse.sites import ParsedFile, PastedNameSite, Role
from hipport.parse.treesitter import TreeSitterBackend

DECL, TOOLKIT, USER = "declaration", "toolkit", "user"
MAX_MACRO_DEPTH = 8


@dataclass
class FileFacts:
    digest: str  # of the bytes clang read for this file
    kinds: dict[int, set[str]] = field(default_factory=dict)  # name offset -> what clang saw there
    pasted: dict[tuple[int, int], tuple[str, str, set[str]]] = field(default_factory=dict)

    def add(self, offset: int, kind: str) -> None:
        self.kinds.setdefault(offset, set()).add(kind)

    def merge(self, other: FileFacts) -> None:
        for offset, kinds in other.kinds.items():
            self.kinds.setdefault(offset, set()).update(kinds)
        for span, (piece, macro, names) in other.pasted.items():
            self.pasted.setdefault(span, (piece, macro, set()))[2].update(names)


@dataclass
class ParseStats:
    units: int = 0
    passes: int = 0
    seconds: float = 0.0  # libclang parsing and fact collection
    failed: int = 0


class ClangSession:
    """One run's libclang state: the compile database and what each parse found."""

    name = "clang"

    def __init__(self, compile_commands: Path | None = None, clang_args: tuple[str, ...] = (),
                 cuda_path: Path | None = None) -> None:
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
        digest = _digest(source)
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
            collector = _Collector(tu, self.env, contents)
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
            tu = cindex.Index.create().parse(unit, args=args, unsaved_files=unsaved,
                                   options=cindex.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
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
    unseen = {site.name for site in parsed.names
              if site.role is Role.DECLARATION and DECL not in facts.kinds.get(site.start, ())}
    kept = []
    for site in parsed.names:
        kinds = facts.kinds.get(site.start)
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


# -- reading one translation unit ---------------------------------------------------


@dataclass
class _Macro:
    path: str
    body_start: int
    tokens: list[MacroIdentifier]


class _Collector:
    """Walks the parts of a translation unit that belong to the project."""

    def __init__(self, tu, env: ClangEnvironment, contents: dict[str, bytes]) -> None:
        from clang import cindex

        self.ci = cindex
        self.lib = cindex.conf.lib
        _declare_location_functions(self.lib)
        self.tu = tu
        self.toolkit_dirs = env.toolkit_dirs()
        self.contents = contents
        self.files: dict[str, bytes | None] = {}
        self.project_files: set[str] = set()
        self.facts: dict[str, FileFacts] = {}
        self.macros: dict[str, _Macro] = {}
        self.expansions: dict[tuple[str, int], str] = {}
        self.pending: list[tuple[str, object, str]] = []
        self._paths: dict[str, str] = {}
        self.tests_cuda_arch = False
        kinds = cindex.CursorKind
        self.reference_kinds = {
            kinds.DECL_REF_EXPR, kinds.MEMBER_REF_EXPR, kinds.TYPE_REF, kinds.TEMPLATE_REF,
            kinds.NAMESPACE_REF, kinds.MEMBER_REF, kinds.VARIABLE_REF, kinds.OVERLOADED_DECL_REF,
        }
        self.not_declarations = {
            kinds.USING_DIRECTIVE, kinds.USING_DECLARATION, kinds.LINKAGE_SPEC, kinds.UNEXPOSED_DECL,
            kinds.CXX_ACCESS_SPEC_DECL, kinds.FRIEND_DECL, kinds.STATIC_ASSERT,
        }

    def run(self) -> dict[str, FileFacts]:
        kinds = self.ci.CursorKind
        for top in self._project_children():
            file = top.location.file
            if file is None:
                continue
            path = self._path(file.name)
            if self._is_toolkit(path) or self._read(path) is None:
                continue
            self.project_files.add(path)
            if top.kind == kinds.MACRO_DEFINITION:
                self._macro_definition(top, path)
            elif top.kind == kinds.MACRO_INSTANTIATION:
                self._macro_expansion(top, path)
            else:
                for cursor in _preorder(top):
                    self._cursor(cursor)
        for name, location, kind in self.pending:
            self._attribute(name, location, kind)
        return self.facts

    def _project_children(self) -> list:
        """The unit's top-level cursors outside system headers.

        The CUDA and C++ headers make up nearly all of a unit (some 16,000
        top-level cursors for cuda_runtime.h and <vector>); the bindings' own
        get_children costs more per cursor than this filter does.
        """
        lib, tu = self.lib, self.tu
        location, in_system_header = lib.clang_getCursorLocation, lib.clang_Location_isInSystemHeader
        found = []

        def visit(child, parent, data):
            if not in_system_header(location(child)):
                child._tu = tu
                found.append(child)
            return 1  # CXChildVisit_Continue

        lib.clang_visitChildren(tu.cursor, self.ci.callbacks["cursor_visit"](visit), None)
        return found

    def _cursor(self, cursor) -> None:
        kind = cursor.kind
        if kind in self.reference_kinds:
            if kind == self.ci.CursorKind.OVERLOADED_DECL_REF:
                name, origin = cursor.spelling, self._overload_origin(cursor)
            else:
                target = cursor.referenced
                if target is None:
                    return
                if target.kind == self.ci.CursorKind.OVERLOADED_DECL_REF:  # a dependent call in a template
                    name, origin = target.spelling, self._overload_origin(target)
                elif target.kind.is_declaration() or target.kind == self.ci.CursorKind.MACRO_DEFINITION:
                    name, origin = target.spelling, self._origin(target)
                else:
                    return
            if name and origin is not None:
                self.pending.append((name, cursor.location, origin))
        elif kind.is_declaration() and kind not in self.not_declarations:
            name = cursor.spelling
            if name:
                self.pending.append((name, cursor.location, DECL))

    # -- where a declaration lives -------------------------------------------------

    def _origin(self, declaration) -> str | None:
        """TOOLKIT or USER: whose entity a reference names."""
        if declaration.kind.is_invalid():
            return None
        if declaration.kind == self.ci.CursorKind.FUNCTION_DECL and \
                declaration.extent.start.offset == declaration.location.offset:
            # No return type before the name: clang made this declaration where a
            # builtin (__syncthreads) was first used; it is no one's source.
            return TOOLKIT
        definition = declaration.get_definition()
        if definition is not None and not self._declared_by_toolkit(definition):
            return USER  # the project defines it: a mock or replacement of the API is the project's
        if self._declared_by_toolkit(declaration):
            return TOOLKIT
        canonical = declaration.canonical
        if canonical is not None and canonical != declaration and self._declared_by_toolkit(canonical):
            return TOOLKIT  # the project only redeclares a CUDA API: still the API
        return USER

    def _declared_by_toolkit(self, declaration) -> bool:
        location = declaration.location
        file = location.file
        if file is None:
            return True  # a compiler builtin: __syncthreads, __shfl_sync, ...
        return location.is_in_system_header or self._is_toolkit(self._path(file.name))

    def _overload_origin(self, cursor) -> str | None:
        count = self.lib.clang_getNumOverloadedDecls(cursor)
        origins = {self._origin(self.lib.clang_getOverloadedDecl(cursor, i)) for i in range(count)}
        return origins.pop() if len(origins) == 1 else None  # a mixed set: undecided until instantiation

    def _is_toolkit(self, path: str) -> bool:
        return path.startswith(self.toolkit_dirs)

    # -- macros --------------------------------------------------------------------

    def _macro_definition(self, cursor, path: str) -> None:
        data = self.files[path]
        name = cursor.spelling
        start = cursor.location.offset
        if data is None or data[start:start + len(name)] != name.encode():
            return
        self._facts(path).add(start, DECL)
        end = cursor.extent.end.offset
        body_start, params = start + len(name), frozenset()
        if data[body_start:body_start + 1] == b"(":
            close = data.find(b")", body_start)
            if close == -1 or close > end:
                return
            params = frozenset(p.strip().decode("ascii", "replace") for p in data[body_start + 1:close].split(b","))
            body_start = close + 1
        tokens = macro_identifiers(data[body_start:end], params)
        self.macros[name] = _Macro(path, body_start, tokens)

    def _macro_expansion(self, cursor, path: str) -> None:
        offset = cursor.location.offset
        self.expansions[(path, offset)] = cursor.spelling
        definition = cursor.referenced
        if definition is None or definition.location.file is None:
            return  # a predefined macro: __CUDA_ARCH__, __FILE__, ...
        origin = TOOLKIT if self._declared_by_toolkit(definition) else USER
        self._facts(path).add(offset, origin)

    # -- mapping a location back to the bytes that spelled the name -------------------

    def _attribute(self, name: str, location, kind: str) -> None:
        path, offset = self._location("clang_getFileLocation", location)
        if path is None:
            return
        if path in self.project_files and _spelled_at(self.files[path], offset, name):
            self._facts(path).add(offset, kind)
            return
        # The file location is itself an expansion site when the macro was used
        # inside another macro's argument; otherwise the outermost expansion is.
        macro = self.expansions.get((path, offset))
        if macro is None:
            macro = self.expansions.get(self._location("clang_getExpansionLocation", location))
        if macro is not None:
            self._into_body(macro, name, kind, {macro})

    def _into_body(self, macro: str, name: str, kind: str, seen: set[str]) -> bool:
        definition = self.macros.get(macro)
        if definition is None:
            return False  # defined outside the project
        hits = [t for t in definition.tokens if t.name == name and t.context != "pasted"]
        for token in hits:
            self._facts(definition.path).add(definition.body_start + token.start, kind)
        if hits:
            return True
        for token in definition.tokens:
            if token.name in self.macros and token.name not in seen and len(seen) < MAX_MACRO_DEPTH:
                seen.add(token.name)
                if self._into_body(token.name, name, kind, seen):
                    return True
        if kind == TOOLKIT:
            return self._pasted(definition, macro, name)
        return False

    def _pasted(self, definition: _Macro, macro: str, name: str) -> bool:
        pieces = [t for t in definition.tokens if t.context == "pasted"
                  and (name.startswith(t.name) or name.endswith(t.name)) and t.name != name]
        if not pieces:
            return False
        token = pieces[0]
        span = (definition.body_start + token.start, definition.body_start + token.end)
        facts = self._facts(definition.path)
        facts.pasted.setdefault(span, (token.name, macro, set()))[2].add(name)
        return True

    def _location(self, function: str, location) -> tuple[str | None, int]:
        file, line, column, offset = self.ci.c_object_p(), ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint()
        getattr(self.lib, function)(location, ctypes.byref(file), ctypes.byref(line), ctypes.byref(column),
                                    ctypes.byref(offset))
        if not file:
            return None, 0
        name = self.lib.clang_getFileName(self.ci.File(file))
        return self._path(name), offset.value

    # -- files -----------------------------------------------------------------------

    def _path(self, name) -> str:
        name = name.decode() if isinstance(name, bytes) else str(name)
        path = self._paths.get(name)
        if path is None:
            path = self._paths[name] = os.path.normpath(os.path.abspath(name))
        return path

    def _read(self, path: str) -> bytes | None:
        """The bytes of a project file, read once; None if unreadable."""
        if path not in self.files:
            data = self.contents.get(path)
            if data is None:
                try:
                    data = Path(path).read_bytes()
                except OSError:
                    data = None
            self.files[path] = data
            if data is not None and b"__CUDA_ARCH__" in data:
                self.tests_cuda_arch = True
        return self.files[path]

    def _facts(self, path: str) -> FileFacts:
        facts = self.facts.get(path)
        if facts is None:
            facts = self.facts[path] = FileFacts(_digest(self.files[path] or b""))
        return facts


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


def _preorder(cursor):
    """cursor and its descendants, parents first, without recursion.

    cindex's walk_preorder recurses once per level, so a 10,000-term
    expression overflowed it, and the bindings swallow the RecursionError
    inside their visitor callback: the walk silently lost cursors.
    """
    stack = [cursor]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(list(node.get_children())))


def _spelled_at(data: bytes, offset: int, name: str) -> bool:
    end = offset + len(name)
    if data[offset:end] != name.encode():
        return False
    after = data[end:end + 1]
    return not (after.isalnum() or after == b"_")


def _declare_location_functions(lib) -> None:
    # The bindings declare only the expansion ("instantiation") location; these
    # two map macro arguments back to where they were written.
    from clang.cindex import SourceLocation, c_object_p

    for function in ("clang_getFileLocation", "clang_getExpansionLocation"):
        getattr(lib, function).argtypes = [SourceLocation, ctypes.POINTER(c_object_p),
                                           ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint),
                                           ctypes.POINTER(ctypes.c_uint)]


def _describe(diagnostic) -> str:
    location = diagnostic.location
    if location.file is None:
        return diagnostic.spelling
    return f"{os.path.basename(str(location.file.name))}:{location.line}: {diagnostic.spelling}"


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _key(path: Path | str) -> str:
    return os.path.normpath(os.path.abspath(os.fspath(path)))
