"""CUDA header macros in #if/#ifdef/#elif conditions (rules/macros.toml).

Helper headers ask "is the runtime header included?" with `#ifdef __CUDA_RUNTIME_H__`,
or "is cuRAND included?" with `#ifdef CURAND_H_`. After the port the header they mean is a
HIP header with its own guard, so the question is asked with that guard; left alone,
everything behind it silently vanishes. A macro HIP has no counterpart for (a CUDA version
number) is reported: its test is never turned true or false behind the user's back.
Only conditions are touched: the same name elsewhere (an API decoration, a #define) is
not a question about which header is included.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hipport.ruleset.model import MacroRule
from hipport.versions import Version, format_version, parse_version

_CONDITION = re.compile(rb"[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|elifdef|elifndef)\b")


@dataclass(frozen=True)
class MacroOutcome:
    replacement: str | None  # the HIP macro to write, None to leave the name as written
    code: str | None = None  # a finding to report, with its message
    message: str = ""


def in_condition(source: bytes, offset: int) -> bool:
    """Whether offset lies in the condition of an #if, #ifdef, #ifndef or #elif directive."""
    start = source.rfind(b"\n", 0, offset) + 1
    while start > 0:  # a directive continued with backslash-newline starts on an earlier line
        end = start - 1  # the newline that ends the previous line
        if end > 0 and source[end - 1] == 0x0D:
            end -= 1
        if end == 0 or source[end - 1] != 0x5C:
            break
        start = source.rfind(b"\n", 0, end - 1) + 1
    return _CONDITION.match(source, start) is not None


def macro_outcome(rule: MacroRule, target: Version) -> MacroOutcome:
    where = f" (CUDA's <{rule.header}>)" if rule.header else ""
    note = f"; {rule.note}" if rule.note else ""
    if rule.hip is None:
        return MacroOutcome(
            None,
            "HP302",
            (
                f"'{rule.cuda}'{where} has no HIP counterpart, so this test is false on HIP; "
                f"decide what the HIP build needs here{note}"
            ),
        )
    if rule.added and parse_version(rule.added) > target:
        return MacroOutcome(
            rule.hip,
            "HP201",
            (
                f"'{rule.cuda}' -> '{rule.hip}' needs HIP {format_version(parse_version(rule.added))}, "
                f"target is {format_version(target)}: the test is false there{note}"
            ),
        )
    return MacroOutcome(rule.hip)
