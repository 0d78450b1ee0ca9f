"""What libclang says about one translation unit's names: the facts hipport.parse.clang refines sites with.

UnitCollector walks a parsed unit once and records, per project file, what each
name at each offset is (a declaration, a toolkit reference, the project's own)
and which names ## assembled in macro bodies.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from hipport.parse.clang.env import ClangEnvironment
from hipport.parse.macro_lexer import MacroIdentifier, macro_identifiers

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


# -- reading one translation unit ---------------------------------------------------


@dataclass
class _Macro:
    path: str
    body_start: int
    tokens: list[MacroIdentifier]


class UnitCollector:
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
            kinds.DECL_REF_EXPR,
            kinds.MEMBER_REF_EXPR,
            kinds.TYPE_REF,
            kinds.TEMPLATE_REF,
            kinds.NAMESPACE_REF,
            kinds.MEMBER_REF,
            kinds.VARIABLE_REF,
            kinds.OVERLOADED_DECL_REF,
        }
        self.not_declarations = {
            kinds.USING_DIRECTIVE,
            kinds.USING_DECLARATION,
            kinds.LINKAGE_SPEC,
            kinds.UNEXPOSED_DECL,
            kinds.CXX_ACCESS_SPEC_DECL,
            kinds.FRIEND_DECL,
            kinds.STATIC_ASSERT,
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
        if (
            declaration.kind == self.ci.CursorKind.FUNCTION_DECL
            and declaration.extent.start.offset == declaration.location.offset
        ):
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
        if data is None or data[start : start + len(name)] != name.encode():
            return
        self._facts(path).add(start, DECL)
        end = cursor.extent.end.offset
        body_start, params = start + len(name), frozenset[str]()
        if data[body_start : body_start + 1] == b"(":
            close = data.find(b")", body_start)
            if close == -1 or close > end:
                return
            params = frozenset(p.strip().decode("ascii", "replace") for p in data[body_start + 1 : close].split(b","))
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
        data = self.files.get(path)
        if path in self.project_files and data is not None and _spelled_at(data, offset, name):
            self._facts(path).add(offset, kind)
            return
        # The file location is itself an expansion site when the macro was used
        # inside another macro's argument; otherwise the outermost expansion is.
        macro = self.expansions.get((path, offset))
        if macro is None:
            expanded_in, expanded_at = self._location("clang_getExpansionLocation", location)
            macro = self.expansions.get((expanded_in, expanded_at)) if expanded_in is not None else None
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
        pieces = [
            t
            for t in definition.tokens
            if t.context == "pasted" and (name.startswith(t.name) or name.endswith(t.name)) and t.name != name
        ]
        if not pieces:
            return False
        token = pieces[0]
        span = (definition.body_start + token.start, definition.body_start + token.end)
        facts = self._facts(definition.path)
        facts.pasted.setdefault(span, (token.name, macro, set()))[2].add(name)
        return True

    def _location(self, function: str, location) -> tuple[str | None, int]:
        file, line, column, offset = self.ci.c_object_p(), ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint()
        getattr(self.lib, function)(
            location, ctypes.byref(file), ctypes.byref(line), ctypes.byref(column), ctypes.byref(offset)
        )
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
            facts = self.facts[path] = FileFacts(content_digest(self.files[path] or b""))
        return facts


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
    after = data[end : end + 1]
    return not (after.isalnum() or after == b"_")


def _declare_location_functions(lib) -> None:
    # The bindings declare only the expansion ("instantiation") location; these
    # two map macro arguments back to where they were written.
    from clang.cindex import SourceLocation, c_object_p

    for function in ("clang_getFileLocation", "clang_getExpansionLocation"):
        getattr(lib, function).argtypes = [
            SourceLocation,
            ctypes.POINTER(c_object_p),
            ctypes.POINTER(ctypes.c_uint),
            ctypes.POINTER(ctypes.c_uint),
            ctypes.POINTER(ctypes.c_uint),
        ]


def content_digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()
