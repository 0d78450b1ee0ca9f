"""What porting one file produced: its output bytes, edits, findings and counts."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from hipport.diagnostics import Edit, Finding


@dataclass
class FileResult:
    path: str
    source: bytes
    output: bytes
    edits: list[Edit] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    converted: Counter = field(default_factory=Counter)  # library -> references ported
    converted_names: Counter = field(default_factory=Counter)
    unmapped: Counter = field(default_factory=Counter)
    launches: int = 0
    parsed: bool = False
    suppressed: int = 0  # findings hidden by hipport: ignore comments
    dialect: str | None = None  # the dialect whose rules the file was ported with (pytorch)
    _changed: bool | None = field(default=None, repr=False)  # set by release()

    @property
    def changed(self) -> bool:
        return self.output != self.source if self._changed is None else self._changed

    def release(self) -> None:
        """Let the source and output go (a tree run has written the output); changed keeps its answer."""
        self._changed = self.changed
        self.source = self.output = b""
