"""The porter's name step: apply the rule for each name site (renames, macros, rewrites, argument plans)."""

from __future__ import annotations

from functools import cache, partial

from hipport.diagnostics import Applicability, Edit, Severity
from hipport.engine.arguments import calls_by_name, choose_rule, dropped_spans, is_address, plan_call
from hipport.engine.case_labels import absent_case_edit, case_label_span
from hipport.engine.declared_type import declared_with
from hipport.engine.elaborated import elaborated_keyword
from hipport.engine.macros import in_condition, macro_outcome
from hipport.engine.pasting import pasted_piece
from hipport.engine.platform_calls import platform_casts, uncast_arguments
from hipport.engine.pointer_types import pointer_type_edit
from hipport.engine.polyfills import in_polyfill
from hipport.engine.port.qualified import QualifiedSteps
from hipport.engine.warp import plan_rewrite
from hipport.lints.macro_test import value_test_at
from hipport.parse.sites import NameSite, ParsedFile, PastedNameSite, Role
from hipport.ruleset.argrules import ArgumentRule
from hipport.ruleset.model import NameRule, RuleSet
from hipport.versions import format_version, parse_version

# Looked up once: an enum member read through its class costs more than the test itself,
# and the engine tests a role for every candidate name of every file.
_USE, _DECLARATION, _NAMESPACE, _MARKER = Role.USE, Role.DECLARATION, Role.NAMESPACE, Role.MARKER


_PLATFORM_NAMES = {"amd": "AMD", "nvidia": "NVIDIA"}


class NameRuleSteps(QualifiedSteps):
    def _name(self, site: NameSite, declared_elsewhere: frozenset[str]) -> None:
        rules = self.rules
        name = site.name
        role = site.role
        if self.dropped and self._dropped(site.start):
            return
        if (rules.dialect_scopes or rules.qualified) and self._qualified(site):
            return
        if role is _MARKER:
            self._marker(site)
            return
        if role is _DECLARATION:
            if name in rules.vocabulary and name in rules.names:
                message = f"this file declares its own '{name}', so hipport leaves the uses that refer to it as written"
                self._finding("HP104", site.start, site.end, name, message)
            return
        if (site.shadowed or name in declared_elsewhere) and not site.resolved:
            return
        if role is _USE and name in rules.macros and in_condition(self.source, site.start):
            self._macro(site, rules.macros[name])
            return
        if role is _NAMESPACE:
            namespace = rules.namespaces.get(name)
            if namespace is not None:
                self._rename(site, namespace.hip, namespace.library, name)
            return
        if role is _USE and site.arguments is not None and self.options.platform != "amd":
            casts = platform_casts(rules).get(name)
            if casts is not None:
                self._platform_call(site, casts)
        polyfill = rules.polyfills.get(name) if role is _USE and site.arguments is not None else None
        if polyfill is not None:
            if not in_polyfill(self.source, polyfill[0], site.start):
                self._polyfill(site, *polyfill)
            return
        rule = rules.names.get(name)
        rewrite = rules.rewrites.get(name)
        if rewrite is not None and role is _USE and (rule is None or rule.origin.builtin):
            self._rewrite(site, rewrite)  # a version-gated rewrite outranks the reference table
            return
        argument_rule = self._argument_rule(site, rule) if name in rules.arguments and role is _USE else None
        if argument_rule is not None and argument_rule.keep_name:
            self._plan_arguments(site, argument_rule)
            return
        if rule is not None and rule.kind == "kept":  # a dialect's name its HIP build declares as it is
            self.result.converted[rule.library] += 1
            self.result.converted_names[name] += 1
            return
        if (
            argument_rule is None
            and rule is not None
            and rule.hip == name
            and not name.startswith("__")
            and not self._roc_target(site, rule)
        ):
            return  # scanned for --roc only (csrilu02Info_t is HIP's spelling too)
        if rule is not None:
            self._apply_name_rule(site, rule, argument_rule.hip if argument_rule else None)
        elif argument_rule is not None and argument_rule.hip:
            self._rename(site, argument_rule.hip, argument_rule.library or "user", name)
        if argument_rule is not None:
            self._plan_arguments(site, argument_rule)
        lint = rules.lints.get(name)
        if lint is not None and not (lint.once and self._reported(lint.message)):
            self._finding(
                lint.code, site.start, site.end, name, lint.message, Severity(lint.severity) if lint.severity else None
            )
        if rule is None and lint is None and name not in rules.namespaces and rules.unmapped_re.match(name):
            self.result.unmapped[name] += 1
            self._finding(
                "HP102",
                site.start,
                site.end,
                name,
                f"'{name}' looks like a CUDA API but no rule maps it; port it by hand",
            )

    def _roc_target(self, site: NameSite, rule: NameRule) -> bool:
        """Whether --roc's spelling applies here (rules/roc-types.toml: value types only in host
        code of a file that calls a ROC library)."""
        if not self.options.roc or not rule.roc:
            return False
        return rule.roc_in is None or (self.calls_roc and not site.in_device_code)

    def _macro(self, site: NameSite, rule) -> None:
        outcome = macro_outcome(rule, self.target)
        if outcome.replacement is not None:
            self.result.converted["Macros"] += 1
            self.result.converted_names[site.name] += 1
            if outcome.replacement != site.name:
                self.edits.append(Edit(site.start, site.end, encoded_name(outcome.replacement)))
        if outcome.code is not None:
            self._finding(outcome.code, site.start, site.end, site.name, outcome.message)

    def _pasted(self, site: PastedNameSite) -> None:
        piece = pasted_piece(site, self.rules, self.options.roc)
        names = ", ".join(site.names)
        if piece is None:
            self._finding(
                "HP105",
                site.start,
                site.end,
                site.piece,
                f"macro '{site.macro}' assembles {names} with ##; port it by hand",
            )
            return
        self.uses_runtime_api = True
        for name in site.names:
            self.result.converted[self.rules.names[name].library] += 1
            self.result.converted_names[name] += 1
        self.edits.append(Edit(site.start, site.end, piece.encode("ascii")))

    def _argument_rule(self, site: NameSite, rule: NameRule | None) -> ArgumentRule | None:
        candidates = self.rules.arguments[site.name]
        if self.options.roc:  # a ROC rule may also supply the ROC call the reference table lacks
            chosen = choose_rule(candidates, site, "roc", self.target, self.source)
            if chosen is not None or (rule is not None and rule.roc):
                return chosen
        return choose_rule(candidates, site, "hip", self.target, self.source)

    def _plan_arguments(self, site: NameSite, argument_rule: ArgumentRule) -> None:
        plan, findings = plan_call(site, argument_rule, self.source, self._calls_by_name())
        library = argument_rule.library or (
            self.rules.names[site.name].library if site.name in self.rules.names else None
        )
        for finding in findings:
            self._finding(*finding, library=library)
        if plan is not None:
            self.argument_plans.append(plan)
            self.dropped.extend(dropped_spans(plan))

    def _calls_by_name(self) -> dict[str, list[NameSite]]:
        if self._calls is None:
            self._calls = calls_by_name(self.parsed.names if self.parsed else [])
        return self._calls

    def _apply_name_rule(self, site: NameSite, rule: NameRule, override: str | None = None) -> None:
        name = rule.cuda
        target = rule.roc if self._roc_target(site, rule) else rule.hip
        if rule.older and rule.added and parse_version(rule.added) > self.target:
            target = rule.older  # the spelling the target has, older HIP's (no HP201)
        if override is not None:  # an argument rewrite names the call to write, even where the table has none
            target = override
        elif rule.value_test is not None and value_test_at(self.source, site.start, site.end):
            target = rule.value_test  # `#if __CUDACC__`: HIP's macro may be defined empty, test its presence
        if target is None:
            library = self.rules.library_titles.get(rule.library, rule.library)
            span = case_label_span(self.source, site.start, site.end) if rule.kind == "constant" else None
            if span is not None:  # a status switch's label for a value HIP never returns
                edit, message = absent_case_edit(self.source, span, name, library)
                self.edits.append(edit)
                self._finding("HP120", site.start, site.end, name, message, library=rule.library)
                return
            hint = f"; use {rule.replacement}" if rule.replacement else ""
            self._finding(
                "HP101",
                site.start,
                site.end,
                name,
                f"'{name}' ({library}) has no HIP equivalent{hint}",
                library=rule.library,
            )
            return
        library = rule.library
        self._rename(site, target, library, name)
        if (
            self.calls_roc
            and not rule.roc
            and rule.kind == "function"
            and not site.in_device_code
            and library in self.rules.roc_type_libraries
        ):
            self._finding(
                "HP118",
                site.start,
                site.end,
                name,
                f"'{name}' -> '{target}' works on HIP's value type, but under --roc this file's host "
                "code uses the ROC library's (rocblas_float_complex, rocblas_half): use that type's "
                "own operations or convert",
                library=library,
            )
        if library in self.rules.runtime_libraries:
            self.uses_runtime_api = True
            if library == "Device_API" and (target != name or name.startswith("__")):
                self.uses_device_code = True
        self._version_findings(site, rule, target)
        wrap = self.rules.wraps.get(name)
        if wrap is not None:
            self._wrap_argument(site, wrap)

    def _rename(self, site: NameSite, target: str, library: str, name: str) -> None:
        self.result.converted[library] += 1
        self.result.converted_names[name] += 1
        pointer = self.rules.pointer_types.get(name)
        if pointer is not None and self._pointer_type(site, name, target, pointer):
            return
        if target != name:
            self.edits.append(Edit(site.start, site.end, encoded_name(target)))
            if pointer is None:  # _pointer_type reported the struct already
                self._platform_name(site, name, target)
            if target in self.rules.typedef_names:  # `struct T` where HIP's T is a typedef
                keyword = elaborated_keyword(self.source, site.start, site.end)
                if keyword is not None:
                    self.edits.append(Edit(keyword, site.start, b""))

    def _platform_call(self, site: NameSite, casts) -> None:
        """HP441 at each argument of a HIP call that only one platform's HIP headers take uncast."""
        for start, end, cast, platform in uncast_arguments(self.source, site.arguments, casts):
            if platform == self.options.platform:
                continue
            text = self.source[start:end].decode("utf-8", "replace")
            fix = f"reinterpret_cast<{cast}>({text})"
            self._finding(
                "HP441",
                start,
                end,
                site.name,
                f"'{site.name}' takes '{text}' on {_PLATFORM_NAMES.get(platform, platform)} only: HIP's "
                f"{_PLATFORM_NAMES['amd' if platform == 'nvidia' else 'nvidia']} headers declare it with {cast} "
                f"alone (no template for typed pointers), so write {fix}",
                fix=fix,
                applicability=Applicability.SAFE,
            )
            self.edits.append(Edit(start, end, fix.encode("utf-8")))

    def _platform_name(self, site: NameSite, name: str, target: str) -> None:
        """HP441 where the HIP name is one only the other platform's HIP headers declare (rules/generated)."""
        lint = self.rules.platform_names.get(target)
        if lint is None or lint.platform == self.options.platform:
            return
        message = lint.message.replace("{name}", target)
        self._finding("HP441", site.start, site.end, name, f"'{name}' becomes '{target}': {message}")

    def _pointer_type(self, site: NameSite, name: str, target: str, pointer: tuple[str, str | None]) -> bool:
        """`cudaArray *a` -> `hipArray_t a` (engine/pointer_types.py); False: rename the struct as usual."""
        edits = pointer_type_edit(self.source, site.start, site.end, *pointer)
        if edits is not None:
            self.edits.extend(Edit(*edit) for edit in edits)
            return True
        if self.options.platform != "amd":
            self._finding(
                "HP441",
                site.start,
                site.end,
                name,
                f"'{name}' becomes '{target}', a struct only AMD's HIP headers declare (NVIDIA's have the "
                f"pointer typedef '{pointer[0]}' alone): write the pointer as {pointer[0]}, or this code builds "
                "on AMD only",
            )
        return False

    def _version_findings(self, site: NameSite, rule: NameRule, target: str) -> None:
        if not _has_version_finding(rule, self.target):
            return  # the usual case, before any message is built
        wanted = format_version(self.target)
        use = f"; use {rule.replacement}" if rule.replacement else ""
        finding = partial(self._finding, library=rule.library)
        where, arrow = (site.start, site.end, rule.cuda), f"'{rule.cuda}' -> '{target}'"
        if rule.added and not rule.older and parse_version(rule.added) > self.target:
            finding("HP201", *where, f"{arrow} needs HIP {_short(rule.added)}, target is {wanted}")
        if rule.removed and parse_version(rule.removed) <= self.target:
            finding(
                "HP203",
                *where,
                f"{arrow}: '{target}' was removed in HIP {_short(rule.removed)}, target is {wanted}{use}",
            )
        elif rule.deprecated and parse_version(rule.deprecated) <= self.target:
            finding("HP202", *where, f"{arrow}: '{target}' is deprecated since HIP {_short(rule.deprecated)}{use}")
        if rule.experimental:
            finding("HP204", *where, f"{arrow}: '{target}' is experimental in HIP {_short(rule.experimental)}")

    def _wrap_argument(self, site: NameSite, wrap) -> None:
        arguments = site.arguments
        if arguments is None or wrap.argument >= len(arguments):
            self._finding(
                "HP105",
                site.start,
                site.end,
                site.name,
                f"'{site.name}' is not called here; wrap its symbol argument in {wrap.wrapper}(...) by hand",
            )
            return
        start, end = arguments[wrap.argument]
        argument = self.source[start:end]
        if argument.startswith(wrap.wrapper.encode("ascii") + b"(") or is_address(argument):
            return  # wrapped already, or an address: the wrapper takes the variable itself
        if declared_with(argument, self.source, wrap.unless_declared):
            return  # a cast for overload resolution, and the variable has a type that resolves
        self.edits.append(Edit(start, start, wrap.wrapper.encode("ascii") + b"("))
        self.edits.append(Edit(end, end, b")"))

    def _marker(self, site: NameSite) -> None:
        self.uses_device_code = self.uses_device_code or not self.own_types(site.name)
        rule = self.rules.names.get(site.name)
        if rule is not None and rule.erase:  # a qualifier HIP needs no counterpart for: it goes, with its blanks
            after = self.source[site.end :]
            self.edits.append(Edit(site.start, site.end + len(after) - len(after.lstrip(b" \t")), b""))
        elif rule is not None and rule.hip is None:  # a marker HIP lacks
            self._apply_name_rule(site, rule)

    def _polyfill(self, site: NameSite, hip: str, definition: str) -> None:
        """A device function HIP lacks: the call names the port's own definition (engine/polyfills.py)."""
        self.uses_device_code = True
        self.edits.append(Edit(site.start, site.end, encoded_name(hip)))
        self.polyfills_used.setdefault(hip, (site.start, definition))
        rule = self.rules.names.get(site.name)
        self.result.converted[rule.library if rule is not None else "Device_API"] += 1
        self.result.converted_names[site.name] += 1

    def _rewrite(self, site: NameSite, rewrite) -> None:
        self.uses_device_code = True
        outcome = plan_rewrite(site, rewrite, self.target, self.source, self.options.platform, self.declared_elsewhere)
        self.edits.extend(outcome.edits)
        for finding in outcome.findings:
            self._finding(*finding, library=rewrite.library)
        # Counted like a rename: HP201 (the target is too old and there is no older
        # form) is a reference the report subtracts from the ported ones.
        if outcome.edits or outcome.kept or any(f[0] == "HP201" for f in outcome.findings):
            self.result.converted[rewrite.library] += 1
            self.result.converted_names[site.name] += 1
        if not outcome.kept:
            self.rewritten_calls[site.start] = outcome.dropped_argument
        if outcome.dropped_argument is not None:
            assert site.arguments is not None  # an argument is dropped only from a call
            self.dropped.append(site.arguments[outcome.dropped_argument])
        if outcome.needs_define:
            default = _short(rewrite.default_since)
            self._needs_define(
                outcome.needs_define, site.start, site.end, site.name, "intrinsic", rewrite.library, default=default
            )
        if outcome.mask_warning is not None:
            start, end, message = outcome.mask_warning
            self.mask_warnings[site.start] = ("HP213", start, end, site.name, message)


def calls_roc_library(parsed: ParsedFile, rules: RuleSet) -> bool:
    """A name the file uses has a ROC library spelling of its own (cublasCreate: rocblas_create_handle)."""
    names = rules.names
    for site in parsed.names:
        if site.role is _USE and not site.shadowed:
            rule = names.get(site.name)
            if rule is not None and rule.roc and rule.roc_in is None:
                return True
    return False


@cache  # rule targets only: one bytes object per name, not per edit, in a big tree
def encoded_name(name: str) -> bytes:
    return name.encode("ascii")


def _has_version_finding(rule: NameRule, target) -> bool:
    """Whether _version_findings has anything to say about rule at target."""
    return (
        bool(rule.experimental)
        or bool(rule.added and not rule.older and parse_version(rule.added) > target)
        or bool(rule.removed and parse_version(rule.removed) <= target)
        or bool(rule.deprecated and parse_version(rule.deprecated) <= target)
    )


def _short(version: str) -> str:
    return format_version(parse_version(version))
