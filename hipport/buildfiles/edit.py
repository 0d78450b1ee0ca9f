"""What every build-file porter shares: words with positions, edits, findings.

Build files are read as latin-1 so that a string offset is a byte offset and
every byte outside an edit survives, whatever the file's encoding.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from hipport.ruleset.build_rules import BuildRules
from hipport.diagnostics import Edit, Finding, Severity

# A rename callback: a path as the build file writes it -> the renamed path, or None.
RenamePath = Callable[[str], "str | None"]


@dataclass(frozen=True)
class BuildSettings:
    offload_arch: tuple[str, ...]
    rename: RenamePath | None = None  # None: sources keep their names
    rename_suffixes: tuple[tuple[str, str], ...] = ((".cu", ".hip"), (".cuh", ".hip.h"))
    packages: tuple[str, ...] = ()  # extra find_package()s a CMake file must provide (its subdirectories')


@dataclass
class Word:
    """A whitespace- or list-separated piece of a build file.

    core is the part flags live in; a generator expression $<...:core> keeps
    its prefix and closing brackets outside it.
    """

    start: int
    end: int
    text: str
    core_start: int = -1
    core_end: int = -1
    quoted: bool = False  # inside a CMake quoted argument

    def __post_init__(self) -> None:
        if self.core_start < 0:
            self.core_start, self.core_end = _core_span(self.text)
            self.core_start += self.start
            self.core_end += self.start

    @property
    def core(self) -> str:
        return self.text[self.core_start - self.start : self.core_end - self.start]

    @property
    def wrapped(self) -> bool:
        return self.core_start != self.start or self.core_end != self.end


def _core_span(text: str) -> tuple[int, int]:
    if not text.startswith("$<"):
        return 0, len(text)
    colon = text.find(":-")
    if colon < 0:
        return 0, len(text)
    end = len(text)
    while end > colon + 1 and text[end - 1] == ">":
        end -= 1
    return colon + 1, end


WORD = re.compile(r"[^\s;]+")


def split_words(text: str, base: int, pattern: re.Pattern[str] = WORD, quoted: bool = False) -> list[Word]:
    return [Word(base + m.start(), base + m.end(), m.group(), quoted=quoted) for m in pattern.finditer(text)]


@dataclass
class BuildPort:
    """Collects the edits and findings of one build file."""

    text: str
    rules: BuildRules
    settings: BuildSettings
    edits: list[Edit] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    codes: dict = field(default_factory=dict)  # code -> CodeInfo, for default severities

    def replace(self, start: int, end: int, new: str) -> None:
        if self.text[start:end] != new:
            self.edits.append(Edit(start, end, new.encode("latin-1")))

    def insert(self, at: int, new: str) -> None:
        self.edits.append(Edit(at, at, new.encode("latin-1")))

    def finding(self, code: str, start: int, end: int, name: str, message: str) -> None:
        info = self.codes.get(code)
        severity = Severity(info.severity) if info else Severity.WARNING
        self.findings.append(Finding(code, severity, start, end, name, message))

    def line_indent(self, offset: int) -> str:
        line_start = self.text.rfind("\n", 0, offset) + 1
        match = re.match(r"[ \t]*", self.text[line_start:])
        return match.group() if match else ""

    def newline(self) -> str:
        return "\r\n" if "\r\n" in self.text else "\n"
