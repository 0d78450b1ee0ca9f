"""The porter's lint and semantic-difference steps: findings (and safe fixes) beyond the renames."""

from __future__ import annotations

from hipport.engine.assert_parens import assert_paren_edits
from hipport.engine.includes import assert_include, header_rule
from hipport.engine.literal_suffix import literal_suffix_edits
from hipport.engine.narrowing import narrowing_edits
from hipport.engine.brace_assign import brace_assign_edits
from hipport.engine.c_allocations import allocation_cast_edits
from hipport.engine.dim3_from_uint3 import dim3_edits
from hipport.engine.storage_class import register_edits
from hipport.engine.template_keyword import template_keyword_edits
from hipport.engine.polyfills import in_polyfill, polyfill_edits
from hipport.parse.lines import newline_of
from hipport.diagnostics import Applicability, Edit, Severity
from hipport.engine.collapse import collapsed_overloads
from hipport.engine.library_needs import library_needs, nvidia_limits
from hipport.lints.findings import lint_outcome
from hipport.engine.port.state import PortState
from hipport.engine.host_half import host_half_findings
from hipport.lints.registry import FILE_MATCHERS, OWN_NAME_SILENCES
from hipport.engine.warp.fix import fix_warp_size
from hipport.parse.sites import LintHit, ParsedFile


class LintAndSemanticSteps(PortState):
    def _lints(self, parsed: ParsedFile, declared_elsewhere: frozenset[str]) -> None:
        index = self.rules.lint_index
        hits = list(parsed.lint_hits)
        for launch in parsed.launches:
            if launch.in_device_code:
                hits.extend(LintHit(rule_id, launch.start, launch.config_close, "<<<") for rule_id in index.launch)
        superseded = set()
        for hit in hits:
            rule = index.rules[hit.rule]
            if self._dropped(hit.start):
                continue  # the port deletes this code
            if (hit.own_name or hit.trigger in declared_elsewhere) and rule.match in OWN_NAME_SILENCES:
                continue
            if rule.once and rule.index in self.reported_once:
                continue
            if rule.platform is not None and rule.platform == self.options.platform:
                continue  # a construct of the one platform the port is for
            if rule.fix_definition and in_polyfill(self.source, rule.fix or "", hit.start):
                continue  # the definition a port wrote, ported again: its CUDA call is meant
            outcome = lint_outcome(hit, rule, self.target, call_kept=hit.call not in self.rewritten_calls)
            if outcome is None:
                continue
            if self.options.fix_warp_size:
                outcome = fix_warp_size(outcome, hit, rule, self.source)
            if rule.once:
                self.reported_once.add(rule.index)
            if hit.call is not None:
                superseded.add(hit.call)
            if outcome.applicability is Applicability.SAFE:
                assert outcome.fix is not None  # lint_outcome rates a fix, never its absence, SAFE
                self.edits.append(Edit(outcome.start, outcome.end, outcome.fix.encode("utf-8")))
                if rule.fix_definition:
                    self.polyfills_used.setdefault(outcome.fix, (outcome.start, rule.fix_definition))
            self._finding(
                outcome.code,
                outcome.start,
                outcome.end,
                outcome.name,
                outcome.message,
                Severity(outcome.severity) if outcome.severity else None,
                outcome.library,
                fix=outcome.fix,
                applicability=outcome.applicability,
            )
        for call, finding in self.mask_warnings.items():
            if call not in superseded:
                self._finding(*finding)

    def _semantic_differences(self, parsed: ParsedFile) -> None:
        edits, findings = collapsed_overloads(self.source, parsed, self.rules, self.options.roc)
        self._insert_after_includes(edits)
        newline = newline_of(self.source)  # a definition at offset 0 joins the runtime include, below it
        self._insert_after_includes(polyfill_edits(parsed.syntax.root, self.polyfills_used, newline))
        for f in findings:
            self._finding(
                f.code,
                f.start,
                f.end,
                f.name,
                f.message,
                Severity(f.severity) if f.severity else None,
                fix=f.fix,
                applicability=f.applicability,
            )
        for start, end, path, library, message in library_needs(parsed, self.rules, self.options.roc):
            self._finding("HP436", start, end, path, message, library=library)
        if self.options.platform != "amd":
            for start, end, path, library, message in nvidia_limits(parsed, self.rules, self.options.roc):
                self._finding("HP441", start, end, path, message, library=library)
        for matcher in FILE_MATCHERS:
            lints = [lint for lint in self.rules.structural_lints if lint.match == matcher.name]
            self._file_findings(matcher.run(self.source, lints, parsed.syntax.root))

    def _file_findings(self, semantic) -> None:
        """The findings of a matcher that read the file's syntax tree, with the guards their fixes add."""
        for found in semantic:
            self._insert_after_includes(found.edits)
            self._finding(
                found.code,
                found.start,
                found.end,
                found.name,
                found.message,
                Severity(found.severity),
                found.library,
                fix=found.fix,
                applicability=found.applicability,
            )

    def _source_fixes(self, parsed: ParsedFile) -> None:
        """What nvcc accepts and clang or HIP's overloads do not (issue 27), fixed in place."""
        self.edits.extend(register_edits(self.source))  # C++17 has no `register`; hipcc rejects it
        self.edits.extend(brace_assign_edits(self.source))  # `h2 = {}` is ambiguous in HIP
        self.edits.extend(literal_suffix_edits(self.source))  # `"%"PRIu64`: clang reads a literal suffix
        self.edits.extend(narrowing_edits(self.source))  # `int a[] = {0.0}`: clang rejects the narrowing
        configs = [span for launch in parsed.launches for span in launch.config[:2]]
        self.edits.extend(dim3_edits(self.source, configs))  # HIP's dim3 has no constructor from uint3
        self.edits.extend(template_keyword_edits(self.source, parsed.syntax.root))  # `X<T>::template f<N>()`
        for finding in host_half_findings(self.source):
            self._finding(*finding)
        nvidia = self.options.platform != "amd" and (self.uses_runtime_api or self.uses_device_code)
        if nvidia and not self._cuda_assert_in_force(parsed):
            self.edits.extend(assert_paren_edits(self.source))  # HIP's NVIDIA assert(COND) is `!COND`
        if self._c_made_hip():
            self.edits.extend(allocation_cast_edits(self.source))  # hipcc on NVIDIA builds a .c as C++

    def _cuda_assert_in_force(self, parsed: ParsedFile) -> bool:
        """<assert.h> comes after the runtime include in the port (hipport.engine.includes moves the
        runtime above it), so CUDA's assert is the one defined last and HIP's NVIDIA macro needs no
        parentheses, which would show in the failure message (`Assertion `(i < n)' failed`)."""
        # without device code the runtime include stays where it was, and nvcc's device pass still reads HIP's macro
        defines_assert = assert_include(parsed, self.rules)
        if not self.uses_device_code or defines_assert is None or defines_assert.scope:
            return False
        runtime = self.rules.runtime_include
        return not any(
            site.scope
            for site in parsed.includes
            if (rule := header_rule(self.rules, site.path)) and rule.hip == runtime
        )

    def _c_made_hip(self) -> bool:
        """A C source the port gives HIP's headers: hipcc on NVIDIA builds it as CUDA C++."""
        suffix = str(self.result.path).rpartition(".")[2]
        return suffix == "c" and (self.uses_runtime_api or self.uses_device_code)

    def _insert_after_includes(self, edits) -> None:
        """Add (start, end, text) edits; a guard inserted where the runtime #include goes joins it, after it
        (order_edits would otherwise order the two insertions by their text)."""
        for start, end, text in edits:
            if start == end:
                for i, edit in enumerate(self.edits):
                    if edit.start == edit.end == start:
                        self.edits[i] = Edit(start, start, edit.text + text)
                        break
                else:
                    self.edits.append(Edit(start, end, text))
            else:
                self.edits.append(Edit(start, end, text))
