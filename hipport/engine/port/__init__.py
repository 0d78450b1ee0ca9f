"""The rule engine: turn a parsed file's sites into edits and findings."""

from __future__ import annotations

from hipport.diagnostics import Edit, Severity
from hipport.engine.arguments import apply_plans
from hipport.engine.block_size import block_size_findings
from hipport.engine.port.file_result import FileResult
from hipport.engine.edits import apply_edits
from hipport.engine.includes import headers_need_runtime_first, plan_includes
from hipport.engine.launch_blanks import closed_up
from hipport.engine.linkage import out_of_linkage, runtime_before_linkage
from hipport.engine.warp.enable import group_member_defines, header_defines, with_enable_define
from hipport.engine.launch import launch_edits
from hipport.engine.macro_launch import macro_launch_scan
from hipport.engine.members import member_rewrites
from hipport.engine.port.checks import LintAndSemanticSteps
from hipport.engine.port.names import NameRuleSteps, calls_roc_library, encoded_name
from hipport.engine.strings import string_outcomes
from hipport.options import Options
from hipport.parse.encoding import wide_encoding
from hipport.parse.scan import scan
from hipport.parse.sites import ParsedFile
from hipport.ruleset.dialects import dialect_for
from hipport.ruleset.model import RuleSet
from hipport.suppress import apply_suppressions

__all__ = ["FileResult", "port_source"]


def port_source(
    source: bytes,
    rules: RuleSet,
    options: Options = Options(),
    path: str = "<stdin>",
    backend=None,
    declared_elsewhere: frozenset[str] = frozenset(),
) -> FileResult:
    """Port one file's bytes. Never raises on odd input: problems become findings.

    declared_elsewhere: names the user's project declares outside this file
    (macros from its own headers); they are treated like the file's own.
    """
    closed, spaced = closed_up(source)
    result = _port(closed, rules, options, path, backend, declared_elsewhere)
    if spaced:  # `k << < g, b >> > (...)`: the closing-up is an edit of its own, where none overlaps it
        result.source = source
        taken = [(e.start, max(e.end, e.start + 1)) for e in result.edits]
        result.edits = sorted(
            [*result.edits, *(e for e in spaced if not any(a < e.end and e.start < b for a, b in taken))],
            key=lambda e: (e.start, e.end),
        )
        result.output = apply_edits(source, result.edits)
    result.findings, result.suppressed = apply_suppressions(source, result.findings)
    return result


def _port(
    source: bytes, rules: RuleSet, options: Options, path: str, backend, declared_elsewhere: frozenset[str]
) -> FileResult:
    result = FileResult(path=path, source=source, output=source)
    encoding = wide_encoding(source)
    if encoding is not None:  # its identifiers are not ASCII bytes: editing could split characters
        porter = _Porter(source, rules, options, result)
        porter._finding(
            "HP904",
            0,
            0,
            "",
            rules.code_tables.message("HP904", "wide-encoding", encoding=encoding),
        )
        porter._finish()
        return result
    if rules.dialects:
        rules, dialect = dialect_for(source, rules, options.dialects, options.dialect_versions)
        result.dialect = dialect.name if dialect is not None else None
    candidates = scan(source, rules.is_interesting, rules.lint_index, rules.scan_memo)
    if not candidates:
        return result
    if backend is None:
        from hipport.parse.treesitter import TreeSitterBackend

        backend = TreeSitterBackend()
    parsed = backend.parse(source, candidates, rules.markers)
    del candidates  # about 3 times a big file's size; the porter below needs only the parse
    result.parsed = True
    _Porter(source, rules, options, result).run(parsed, declared_elsewhere)
    return result


class _Porter(NameRuleSteps, LintAndSemanticSteps):
    """One file's port: the steps, in order; the state and each step's methods come from the base classes."""

    def _group_member_defines(self) -> None:
        """Cooperative groups' vote and match members need the masked intrinsics' macro (HP212)."""
        for define, start, end, member in group_member_defines(self.rules, self.target, self.source):
            self._needs_define(define, start, end, member, "group-member")

    def _launches(self, parsed: ParsedFile) -> None:
        """Kernel launches, the parser's and those in #define bodies, become HIP's launch (or HP105 says why not)."""
        launches = parsed.launches
        if self.options.launch_syntax == "hip":  # #define bodies are text to the parser: read them here
            seen = {launch.start for launch in launches}
            in_macros, unread = macro_launch_scan(self.source)
            launches = launches + [m for m in in_macros if m.start not in seen]
            for at in unread:
                self._finding(
                    "HP105",
                    at,
                    at + 3,
                    "<<<",
                    self.rules.code_tables.message("HP105", "launch-in-define"),
                )
        if launches:
            self.uses_device_code = True
            self.result.launches = len(launches)
            if self.options.launch_syntax == "hip":
                for launch in launches:
                    edits = launch_edits(launch, self.source)
                    if edits is None:
                        self._finding(
                            "HP105",
                            launch.start,
                            launch.start + 3,
                            "<<<",
                            self.rules.code_tables.message("HP105", "unusual-launch"),
                        )
                    else:
                        self.edits.extend(edits)

    def run(self, parsed: ParsedFile, declared_elsewhere: frozenset[str]) -> None:
        # Names the file declares itself hide CUDA's only where C++ scope says (site.shadowed,
        # from the backend); a project header's macros hide them in the whole file.
        self.parsed = parsed
        self.declared_elsewhere = declared_elsewhere
        if self.options.roc:
            self.calls_roc = calls_roc_library(parsed, self.rules)
        for site in parsed.names:
            self._name(site, declared_elsewhere)
        for pasted in parsed.pasted:
            self._pasted(pasted)
        if parsed.strings:
            for string_site, target, lookup in string_outcomes(parsed.strings, self.rules, self.options):
                if target is not None:
                    self.edits.append(Edit(string_site.start, string_site.end, encoded_name(target)))
                if lookup is not None:
                    self._finding("HP119", string_site.start, string_site.end, string_site.name, lookup)
        self._lints(parsed, declared_elsewhere)
        self._launches(parsed)
        if self.rules.member_accessors:
            members = member_rewrites(self.source, self.rules.member_accessors)
            self.edits.extend(members.edits)
            for finding in members.findings:
                self._finding(*finding)
        self._source_fixes(parsed)
        self._group_member_defines()
        namespaces = {cuda: rule.hip for cuda, rule in self.rules.namespaces.items()}
        findings, edits = block_size_findings(self.source, self.rules.block_primitives, namespaces)
        self.edits.extend(Edit(*edit) for edit in edits)
        for code, start, end, name, message, fixed in findings:
            self._finding(code, start, end, name, message, Severity.INFO if fixed else None, library="CUB")
        if self.argument_plans:  # after every other edit: the new argument lists take in the renames inside them
            self.edits = apply_plans(self.argument_plans, self.source, self.edits, self._c_made_hip())
        include_plan = plan_includes(
            self.source,
            parsed,
            self.rules,
            self.options,
            needs_runtime=self.uses_device_code or headers_need_runtime_first(declared_elsewhere, self.rules),
            needs_runtime_api=self.uses_runtime_api,
            declared_elsewhere=declared_elsewhere,
        )
        runtime = self.rules.runtime_include
        out_of_linkage(self.source, parsed, include_plan.edits)
        runtime_before_linkage(self.source, parsed, include_plan.edits, runtime, declared_elsewhere)
        defines = self.enable_defines | header_defines(self.rules, self.target, declared_elsewhere)
        # written by the user, inserted by the port, or a CUDA header ported to it
        includes_runtime = runtime in {s.path for s in parsed.includes} or any(
            runtime.encode("ascii") in edit.text for edit in include_plan.edits
        )
        if defines and (self.uses_device_code or includes_runtime):
            self.enable_defines = defines
        for define in sorted(self.enable_defines):
            with_enable_define(self.source, parsed, include_plan.edits, self.rules.runtime_include, define)
        self.edits.extend(include_plan.edits)
        self._semantic_differences(parsed)  # after the includes: a guard at offset 0 goes below them
        for finding in include_plan.findings:
            self._finding(*finding)
        if parsed.syntax_error_at is not None:
            at = min(parsed.syntax_error_at, len(self.source))  # a missing #endif is found past the last byte
            self._finding(
                "HP901",
                at,
                at,
                "",
                self.rules.code_tables.message("HP901", "syntax-error", detail=parsed.syntax_error_detail),
            )
        for code, at, message in parsed.notes:
            self._finding(code, at, at, "", message)
        self._finish()
