"""Read clang's diagnostics: where the first error is, what it names, and what kind it is.

hipcc is clang, so a failure prints `file:line:col: error: message`, preceded by the
`In file included from file:line:` chain that led to the file and followed by notes
(`note: expanded from macro 'X'`, `note: candidate function`). The locations of that whole
block are where a finding may predict the error: the error's own line, a macro's
definition it expanded from, or the #include line in the translation unit that led there.

nvcc prints its front end's errors as `file(line): error: message` (no column; names in double
quotes: `identifier "hipFoo" is undefined`), followed by the source line, a caret and, in a
template, `detected during instantiation of ... at line N of file`; its preprocessor is gcc's,
whose missing header is `file:line:col: fatal error: x.h: No such file or directory`, after
gcc's own `In file included from file:line,` chain. ptxas, the assembler nvcc runs on the PTX it
generated, prints `ptxas /tmp/x.ptx, line 209; error   : message`: an error with no location in
the sources at all (verify/join.py says which findings explain such an error).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_DIAGNOSTIC = re.compile(
    r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?P<level>fatal error|error|warning|note): "
    r"(?P<message>.*)$"
)
_NVCC_DIAGNOSTIC = re.compile(
    r"^(?P<file>.+?)\((?P<line>\d+)\): (?P<level>catastrophic error|error|warning(?: #\d+-D)?|remark): "
    r"(?P<message>.*)$"
)
# ptxas, the assembler nvcc runs on the PTX it generated: no source location, only the PTX's line.
_PTXAS = re.compile(r"^ptxas (?P<file>\S+?),? line (?P<line>\d+); (?P<level>error|fatal)\s*: (?P<message>.*)$")
_INSTANTIATED_AT = re.compile(r"\bat line (?P<line>\d+) of (?P<file>.+?)\s*$")
_DOUBLE_QUOTED = re.compile(r'"([^"]+)"')
_INCLUDED_FROM = re.compile(r"^(?:In file included from|\s+from) (?P<file>.+?):(?P<line>\d+)[:,]?$")
_QUOTED = re.compile(r"'([^']+)'")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MISSING_HEADER = re.compile(
    r"^(?:'(?P<clang>[^']+)' file not found|(?P<gcc>[^:\s]+): No such file or directory"
    r'|cannot open source file "(?P<edg>[^"]+)")$'
)
# Details a kind of error can drop: a suggestion, the other operand of a candidate set, numbers.
_SUGGESTION = re.compile(r"; did you mean '[^']*'\?$")
_NUMBER = re.compile(r"\b\d+\b")


@dataclass(frozen=True)
class Location:
    file: str
    line: int


@dataclass(frozen=True)
class FirstError:
    """The first error of a compile and the locations of its block (include chain, notes)."""

    file: str
    line: int
    column: int
    message: str
    text: str  # the error line as the compiler printed it
    locations: tuple[Location, ...]
    chain: tuple[Location, ...] = ()  # the #include lines that led to the error's file, outermost first
    nvcc: bool = False  # nvcc's front end's format: names in double quotes

    @property
    def missing_header(self) -> str | None:
        m = _MISSING_HEADER.match(self.message)
        return (m.group("clang") or m.group("gcc") or m.group("edg")) if m else None

    def names(self) -> frozenset[str]:
        if self.nvcc:
            return frozenset(w for q in _DOUBLE_QUOTED.findall(self.message) for w in _IDENTIFIER.findall(q))
        return quoted_names(self.message)


def quoted_names(text: str, shortest: int = 1) -> frozenset[str]:
    """The identifiers a message quotes ('hipFoo', 'struct hipBar', 'float4 &')."""
    return frozenset(
        word for quoted in _QUOTED.findall(text) for word in _IDENTIFIER.findall(quoted) if len(word) >= shortest
    )


def first_error(output: str) -> FirstError | None:
    """The first error (or fatal error) in a compiler's output, None if there is none."""
    lines = output.splitlines()
    chain: list[Location] = []
    for i, line in enumerate(lines):
        included = _INCLUDED_FROM.match(line)
        if included:
            chain.append(Location(included.group("file"), int(included.group("line"))))
            continue
        m = _DIAGNOSTIC.match(line)
        if m is None:
            ptxas = _PTXAS.match(line)
            if ptxas is not None:  # located in a temporary .ptx file alone: no location of the sources
                where = (ptxas.group("file"), int(ptxas.group("line")), 0, ptxas.group("message").strip(), line)
                return FirstError(*where, locations=())
            nvcc = _NVCC_DIAGNOSTIC.match(line)
            if nvcc is not None and nvcc.group("level") in ("error", "catastrophic error"):
                return _nvcc_error(nvcc, lines[i + 1 :], tuple(chain))
            continue
        if m.group("level") not in ("error", "fatal error"):
            chain = []
            continue
        here = Location(m.group("file"), int(m.group("line")))
        return FirstError(
            m.group("file"),
            here.line,
            int(m.group("col")),
            m.group("message"),
            line,
            (here, *chain, *_notes(lines[i + 1 :])),
            tuple(chain),
        )
    return None


def _nvcc_error(m: re.Match, rest: list[str], chain: tuple[Location, ...]) -> FirstError:
    """nvcc's error: its own line and the instantiation lines that follow, up to the next diagnostic."""
    here = Location(m.group("file"), int(m.group("line")))
    found = [here]
    for line in rest:
        if _NVCC_DIAGNOSTIC.match(line) or _DIAGNOSTIC.match(line):
            break
        at = _INSTANTIATED_AT.search(line)
        if at is not None:
            found.append(Location(at.group("file"), int(at.group("line"))))
    return FirstError(here.file, here.line, 1, m.group("message"), m.group(0), (*found, *chain), chain, nvcc=True)


def _notes(rest: list[str]) -> list[Location]:
    """The locations of the notes that follow an error, up to the next error or warning."""
    found = []
    for line in rest:
        m = _DIAGNOSTIC.match(line)
        if m is None:
            continue
        if m.group("level") != "note":
            break
        found.append(Location(m.group("file"), int(m.group("line"))))
    return found


def error_kind(message: str) -> str:
    """A message with its incidental details dropped, so that the same mistake counts once:
    "use of undeclared identifier 'checkCudaErrors'" stays as it is (the name is the point),
    "too few arguments to function call, expected 3, have 2" loses its numbers."""
    return _NUMBER.sub("N", _SUGGESTION.sub("", message)).strip()
