"""The per-file state the porter's steps share, how they add a finding, and the final edit assembly."""

from __future__ import annotations

from hipport.diagnostics import Applicability, Edit, Finding, LineIndex, Severity, assign_positions_and_fingerprints
from hipport.engine.arguments import PlannedCall
from hipport.engine.builtin_types import OwnTypes
from hipport.engine.edits import apply_edits, order_edits
from hipport.engine.port.file_result import FileResult
from hipport.options import Options
from hipport.parse.sites import NameSite, ParsedFile
from hipport.ruleset.model import RuleSet
from hipport.versions import format_version


class PortState:
    def __init__(self, source: bytes, rules: RuleSet, options: Options, result: FileResult) -> None:
        self.source = source
        self.rules = rules
        self.options = options
        self.result = result
        self.target = options.hip_version or rules.newest_hip
        self.edits: list[Edit] = []
        self.uses_device_code = False
        self.own_types = OwnTypes(source, result.path)  # the vector types the file declares, searched once
        self.uses_runtime_api = False
        self.rewritten_calls: dict[int, int | None] = {}  # call name start -> argument the rewrite dropped
        self.dropped: list[tuple[int, int]] = []  # source spans a rewrite deletes
        self.mask_warnings: dict[int, tuple] = {}  # call name start -> HP213 finding, until a lint says more
        self.reported_once: set = set()
        self.enable_defines: set[str] = set()  # macros the port defines before the runtime include
        self.polyfills_used: dict[str, tuple[int, str]] = {}  # polyfill -> (first call, its definition)
        self.declared_elsewhere: frozenset[str] = frozenset()  # names and marks of the project's headers
        self.calls_roc = False  # --roc, and the file uses a ROC library: its value types are ROC's too
        self.argument_plans: list[PlannedCall] = []
        self.parsed: ParsedFile | None = None
        self._calls: dict[str, list[NameSite]] | None = None
        # a dialect's qualified chains (engine/qualified.py): the last one read ends here, and the
        # spans of its parts that a rule handled
        self.chain_end = 0
        self.chain_spans: list[tuple[int, int]] = []
        self.qualified_index: dict | None = None

    def _dropped(self, offset: int) -> bool:
        return bool(self.dropped) and any(start <= offset < end for start, end in self.dropped)

    # -- output ----------------------------------------------------------------

    def _finding(
        self,
        code: str,
        start: int,
        end: int,
        name: str,
        message: str,
        severity: Severity | None = None,
        library: str | None = None,
        fix: str | None = None,
        applicability: Applicability | None = None,
    ) -> None:
        info = self.rules.codes.get(code)
        if severity is None:
            severity = Severity(info.severity) if info else Severity.WARNING
        self.result.findings.append(
            Finding(code, severity, start, end, name, message, library=library, fix=fix, applicability=applicability)
        )

    def _reported(self, key: str) -> bool:
        """Whether a once-per-file finding was made already (and, if not, that it is now)."""
        if key in self.reported_once:
            return True
        self.reported_once.add(key)
        return False

    def _needs_define(
        self, define: str, start: int, end: int, name: str, key: str, library: str | None = None, **fields: object
    ) -> None:
        """The port defines `define` before the HIP runtime include; the first use that needs it says
        so, once (HP212, message `key` of rules/codes.toml)."""
        self.enable_defines.add(define)
        if self._reported("define:" + define):
            return
        target = format_version(self.target)
        message = self.rules.code_tables.message("HP212", key, name=name, define=define, target=target, **fields)
        self._finding("HP212", start, end, name, message, library=library)

    def _finish(self) -> None:
        ordered, rejected = order_edits(self.edits)
        for edit in rejected:
            self._finding("HP902", edit.start, edit.end, "", self.rules.code_tables.message("HP902", "overlap"))
        self.result.edits = ordered
        self.result.output = apply_edits(self.source, ordered)
        if self.result.findings:  # most files have none, and then no line index is needed
            self.result.findings.sort(key=lambda f: (f.start, f.code))
            assign_positions_and_fingerprints(self.result.findings, LineIndex(self.source))
