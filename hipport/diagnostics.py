"""The one model every finding and edit in hipport goes through."""
from __future__ import annotations

import hashlib
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass, field
from enum import Enum


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
        data = {
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
            data["fix"] = {"replacement": self.fix, "applicability": self.applicability.value}
        return data


@dataclass(slots=True)
class LineIndex:
    """Byte offsets to 1-based line/column; columns count characters, as editors do."""

    source: bytes
    starts: list[int] = field(default_factory=list)

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
        prefix = self.source[line_start:offset]
        if line == 1 and prefix.startswith(b"\xef\xbb\xbf"):
            prefix = prefix[3:]
        return line, len(prefix.decode("utf-8", "replace")) + 1

    def line_text(self, line: int) -> bytes:
        start = self.starts[line - 1]
        end = self.starts[line] if line < len(self.starts) else len(self.source)
        return self.source[start:end].rstrip(b"\r\n")


def assign_positions_and_fingerprints(findings: list[Finding], index: LineIndex) -> None:
    """Fill line/column spans and fingerprints that survive unrelated line shifts.

    A fingerprint hashes the code, the name and the whitespace-normalised text of
    the finding's line, plus how many identical (code, name, text) findings came
    before it in the file; line numbers are left out so that a baseline still
    matches after lines are added above the finding.
    """
    seen: Counter = Counter()
    for finding in findings:
        finding.line, finding.column = index.position(finding.start)
        finding.end_line, finding.end_column = index.position(max(finding.end, finding.start))
        text = b" ".join(index.line_text(finding.line).split())
        key = (finding.code, finding.name, text)
        occurrence = seen[key]
        seen[key] += 1
        digest = hashlib.sha256(b"\0".join([finding.code.encode(), finding.name.encode(), text,
                                             str(occurrence).encode()]))
        finding.fingerprint = digest.hexdigest()[:16]
