"""The one model every finding and edit in hipport goes through."""

from __future__ import annotations

import hashlib
import sys
from bisect import bisect_right, insort
from collections import Counter
from dataclasses import dataclass, field
from enum import Enum


# Lines longer than this (generated or minified code) get the treatment of
# LineIndex.position and _fingerprinted_text; shorter lines are handled whole.
_LONG_LINE = 4096
_WINDOW = 256


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"info": 0, "warning": 1, "error": 2}[self.value]


class Applicability(str, Enum):
    SAFE = "safe"  # applied by convert
    UNSAFE = "unsafe"  # shown, never applied automatically


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace source[start:end] with text (start == end inserts)."""

    start: int
    end: int
    text: bytes


@dataclass(slots=True)
class Finding:
    code: str
    severity: Severity
    start: int
    end: int
    name: str
    message: str
    library: str | None = None
    line: int = 0
    column: int = 0
    end_line: int = 0
    end_column: int = 0
    fingerprint: str = ""
    fix: str | None = None
    applicability: Applicability | None = None

    def to_json(self) -> dict:
        data: dict[str, object] = {
            "code": self.code,
            "severity": self.severity.value,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "name": self.name,
            "library": self.library,
            "message": self.message,
            "fingerprint": self.fingerprint,
        }
        if self.fix is not None:
            assert self.applicability is not None  # a fix always says how safe it is
            data["fix"] = {"replacement": self.fix, "applicability": self.applicability.value}
        return data


@dataclass(slots=True)
class LineIndex:
    """Byte offsets to 1-based line/column; columns count characters, as editors do."""

    source: bytes
    starts: list[int] = field(default_factory=list)
    # (line, offset, column) already computed: a long line is decoded once, not once per finding
    _known: list[tuple[int, int, int]] = field(default_factory=list, init=False, repr=False)

    def __post_init__(self) -> None:
        starts = [0]
        find = self.source.find
        pos = find(b"\n")
        while pos != -1:
            starts.append(pos + 1)
            pos = find(b"\n", pos + 1)
        self.starts = starts

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self.starts, offset)
        line_start = self.starts[line - 1]
        base, column = line_start, 1
        if offset - line_start > _LONG_LINE:
            # Count on from the nearest known position before offset on this line. Splitting
            # the decode there is exact when it falls on a character's first byte.
            i = bisect_right(self._known, (line, offset, sys.maxsize)) - 1
            if i >= 0 and self._known[i][0] == line and not 0x80 <= self.source[self._known[i][1]] <= 0xBF:
                _, base, column = self._known[i]
        prefix = self.source[base:offset]
        if line == 1 and base == 0 and prefix.startswith(b"\xef\xbb\xbf"):
            prefix = prefix[3:]
        column += len(prefix.decode("utf-8", "replace"))
        if offset - line_start > _LONG_LINE and offset < len(self.source):
            insort(self._known, (line, offset, column))
        return line, column

    def line_text(self, line: int) -> bytes:
        start = self.starts[line - 1]
        end = self.starts[line] if line < len(self.starts) else len(self.source)
        return self.source[start:end].rstrip(b"\r\n")


def assign_positions_and_fingerprints(findings: list[Finding], index: LineIndex) -> None:
    """Fill line/column spans and fingerprints that survive unrelated line shifts.

    A fingerprint hashes the code, the name and the whitespace-normalised text of
    the finding's line (of the 256 bytes either side of the finding, on a line
    over 4 KB), plus how many identical (code, name, text) findings came
    before it in the file; line numbers are left out so that a baseline still
    matches after lines are added above the finding.
    """
    seen: Counter = Counter()
    for finding in findings:
        finding.line, finding.column = index.position(finding.start)
        finding.end_line, finding.end_column = index.position(max(finding.end, finding.start))
        text = b" ".join(_fingerprinted_text(index, finding).split())
        key = (finding.code, finding.name, text)
        occurrence = seen[key]
        seen[key] += 1
        digest = hashlib.sha256(
            b"\0".join([finding.code.encode(), finding.name.encode(), text, str(occurrence).encode()])
        )
        finding.fingerprint = digest.hexdigest()[:16]


def _fingerprinted_text(index: LineIndex, finding: Finding) -> bytes:
    """The finding's line; on a line longer than _LONG_LINE, the text around the finding.

    Hashing a whole 100 MB line (a minified or generated file) once per
    finding made a big one-line file quadratic.
    """
    start = index.starts[finding.line - 1]
    end = index.starts[finding.line] if finding.line < len(index.starts) else len(index.source)
    if end - start <= _LONG_LINE:
        return index.line_text(finding.line)
    return index.source[max(start, finding.start - _WINDOW) : min(end, max(finding.start, finding.end) + _WINDOW)]
