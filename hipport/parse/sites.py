"""What a parser backend reports: the places in a file the engine may act on.

Every position is a byte offset into the original source. Backends differ in how
they find these places, never in what they report.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from struct import Struct
from typing import Any

from hipport.lints.hit import LintHit

_PAIR = Struct("<qq")
_PAIR_SIZE = _PAIR.size


class Role(str, Enum):
    USE = "use"  # a name used as code: value, type, call target, template argument
    DECLARATION = "declaration"  # the file declares this name itself
    NAMESPACE = "namespace"  # a namespace token: `cub` in cub::X, using namespace cub
    MARKER = "marker"  # a CUDA keyword such as __global__


class Spans:
    """A call's argument spans, read as a list of (start, end) pairs.

    Packed into one bytes object: a call's list of tuples of ints costs some 300 bytes, and a
    file of nothing but calls has one every 17 bytes (issue 22's one-line files). Reads as the
    list it replaces: len, truthiness, indexing (a pair; a slice gives a list), iteration, and
    equality with a list of pairs.
    """

    __slots__ = ("_packed",)

    def __init__(self, pairs) -> None:
        self._packed = b"".join(_PAIR.pack(start, end) for start, end in pairs)

    def __len__(self) -> int:
        return len(self._packed) // _PAIR_SIZE

    def __getitem__(self, index):
        if isinstance(index, slice):
            return list(self)[index]
        count = len(self._packed) // _PAIR_SIZE
        if index < 0:
            index += count
        if not 0 <= index < count:
            raise IndexError("argument index out of range")
        return _PAIR.unpack_from(self._packed, index * _PAIR_SIZE)

    def __iter__(self):
        return _PAIR.iter_unpack(self._packed)

    def __eq__(self, other) -> bool:
        if isinstance(other, Spans):
            return self._packed == other._packed
        if isinstance(other, list):
            return list(self) == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # like the list it stands for

    def __repr__(self) -> str:
        return repr(list(self))

    def __getstate__(self):
        return self._packed

    def __setstate__(self, packed: bytes) -> None:
        self._packed = packed


@dataclass(slots=True)
class NameSite:
    start: int
    end: int
    name: str
    role: Role
    # For calls: byte spans of the arguments, so argument-aware rules can wrap one.
    # (tree-sitter gives a Spans, which reads as this list)
    arguments: list[tuple[int, int]] | None = None
    in_macro_body: bool = False
    in_device_code: bool = False
    # A precise backend resolved this use to the CUDA toolkit's declaration, so a
    # same-named declaration elsewhere in the file (an overload, say) does not shadow it.
    resolved: bool = False
    # A declaration of the file's own is in scope here (hipport.parse.treesitter.scopes), so the name
    # means the user's entity and is left alone.
    shadowed: bool = False


@dataclass(slots=True)
class IncludeSite:
    line_start: int  # first byte of the #include line
    line_end: int  # one past its newline
    path_start: int  # the path between the delimiters
    path_end: int
    path: str
    scope: tuple[int, ...]  # start offsets of the enclosing #if/#else blocks


@dataclass(slots=True)
class LaunchSite:
    """k<<<config...>>>(args): spans of the pieces a launch rewrite keeps."""

    start: int
    end: int
    kernel: tuple[int, int]
    kernel_is_template: bool
    config: list[tuple[int, int]]
    config_close: int  # one past '>>>'
    args_open: int  # the '(' of the argument list
    arguments: list[tuple[int, int]]
    in_device_code: bool = False


@dataclass(slots=True)
class PastedNameSite:
    """The literal piece of names a macro body assembles with ##: `cuda` in cuda##fn.

    Only a backend that expands macros can see the names; tree-sitter never reports these.
    """

    start: int
    end: int
    piece: str
    macro: str
    names: tuple[str, ...]  # every complete name the expansions produced, sorted


@dataclass(slots=True)
class StringNameSite:
    """A known name inside a string literal: "cudaMalloc failed". Ported only with --port-strings."""

    start: int
    end: int
    name: str
    call: str | None = None  # the function the literal is passed to directly (dlsym), if any


class SyntaxTree:
    """The file's syntax tree (its root node), as the backend read the file, built at most once.

    A backend that parsed the file whole hands over the tree it walked; one that parsed it in pieces
    (hipport.parse.treesitter.chunks), whose trees were let go, gives how to build it, and the first
    caller that needs it (a lint that reads a file's functions whole) builds it.
    """

    __slots__ = ("_build", "_root")

    def __init__(self, root: Any = None, build: Callable[[], Any] | None = None) -> None:
        self._root, self._build = root, build

    def root(self) -> Any:
        if self._root is None and self._build is not None:
            self._root, self._build = self._build(), None
        if self._root is None:
            raise ValueError("this parse carries no syntax tree")
        return self._root


@dataclass(slots=True)
class ParsedFile:
    names: list[NameSite] = field(default_factory=list)
    includes: list[IncludeSite] = field(default_factory=list)
    launches: list[LaunchSite] = field(default_factory=list)
    syntax_error_at: int | None = None
    syntax_error_detail: str = ""
    top_insert_at: int = 0  # where a new top-level #include goes when there is none
    # What a backend wants the report to say about how it read the file: (code, offset, message),
    # e.g. a precise parse that failed and fell back to tree-sitter.
    notes: list[tuple[str, int, str]] = field(default_factory=list)
    pasted: list[PastedNameSite] = field(default_factory=list)
    lint_hits: list[LintHit] = field(default_factory=list)
    strings: list[StringNameSite] = field(default_factory=list)
    # The engine's one way to the tree; not part of what the parse found (two parses compare by their sites).
    syntax: SyntaxTree = field(default_factory=SyntaxTree, compare=False, repr=False)
