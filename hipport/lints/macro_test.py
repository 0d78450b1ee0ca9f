"""'macro-test': one of NAMES (a CUDA macro such as __CUDA_ARCH__) in a preprocessor test or in code.

A directive's condition is judged from its text, not the tree: error recovery can shape the
same directive differently from one run to the next, and a fix must not depend on that.
Each use of the macro in the condition is one of:
  presence    `defined(M)`, `defined M`, `#ifdef M`: the rule's fix replaces M;
  bare        `#if M`, `M && ...`: a value test, true where M is defined (nonzero): the fix too;
  comparison  `M >= 700`, `600 > M` (a number or a name on the other side): kept as written,
              joined to the rule's NEWEST condition, `(M >= 700 || NEWEST)` for >, >= and !=,
              `(M < 600 && !NEWEST)` for <, <= and ==, so that where M is defined the test is
              what it was and where NEWEST holds it is what the newest M would make it;
  other       anything else (`M / 10`, `M + 1 > 800`): no fix.
Bare tests and comparisons are fixed only for a rule with NEWEST. A condition is fixed whole
or not at all: one use left as written would fall out of step with the others.
A line that already holds NEWEST was ported: its uses are hipport's own, not to be reported.
A use outside a directive is a value in code, which no condition can stand in for
(VALUE_SEVERITY); one in a #define body is judged where the macro is expanded, so it stays a
finding without a fix.
"""

from __future__ import annotations

import re

from hipport.lints.context import Context, Site, SyntaxPath
from hipport.lints.hit import LintHit
from hipport.lints.matcher import NAME, Matcher
from hipport.lints.rule import StructuralLint

_OPERATORS = r"(?:>=|<=|==|!=|>|<)"
_OPERAND = r"(?:\d+[uUlL]*|[A-Za-z_]\w*)"
# What may stand on each side of a whole operand of && / || (or of the condition).
_BEFORE = re.compile(r"(?:\A|[(!]|&&|\|\|)\s*\Z")
# ! binds tighter than a comparison: `!M >= 600` compares !M, not M.
_BEFORE_COMPARISON = re.compile(r"(?:\A|\(|&&|\|\|)\s*\Z")
_AFTER = re.compile(r"\s*(?:\Z|\)|&&|\|\||//|/\*)")
# The comparison's value for the newest architecture: these operators become true.
_NEWER_TRUE = {">=", ">", "!="}
_FLIPPED = {">=": "<=", "<=": ">=", ">": "<", "<": ">", "==": "==", "!=": "!="}


def match(
    ctx: Context, rule: StructuralLint, path: SyntaxPath, depth: int, start: int, end: int, name: str, site: Site | None
) -> LintHit | None:
    if path.type_at(depth) not in ("identifier", "preproc_arg", "ERROR"):
        return None
    return macro_test_hit(rule, ctx.source, start, end, name)


def value_test_at(source: bytes, start: int, end: int) -> bool:
    """Whether the macro at source[start:end] is a bare value test of an #if or #elif condition
    (`#if M`, `#elif !M`, `M && X`): true where M is defined nonzero. Not a presence test
    (`defined(M)`), a comparison (`M >= 2`) or any other use; rename rules' value_test spells it."""
    line_start, line = _logical_line(source, start)
    directive = re.match(r"\s*#\s*(?:if|elif)\b", line)
    if directive is None or not source[line_start:end].isascii():  # offsets in line: the bytes' up to end
        return False
    before = line[directive.end() : start - line_start]
    if re.search(r"\bdefined\s*\(?\s*\Z", before):
        return False
    return _BEFORE.search(before) is not None and _AFTER.match(line, end - line_start) is not None


def _logical_line(source: bytes, start: int) -> tuple[int, str]:
    """The start and text of the logical line holding start; continuations read as spaces of the same
    length, so offsets in the line stay the source's (for ASCII)."""
    line_start = _logical_line_start(source, start)
    line_end = _logical_line_end(source, start)
    text = source[line_start:line_end].decode("utf-8", "replace")
    return line_start, re.sub(r"\\(\r*\n)", lambda m: " " * len(m.group(0)), text)


def macro_test_hit(rule: StructuralLint, source: bytes, start: int, end: int, name: str) -> LintHit | None:
    line_start, line = _logical_line(source, start)
    if rule.newest and rule.newest in line:
        return None  # a condition hipport wrote
    escaped = re.escape(name)
    if re.match(rf"\s*#\s*(?:ifdef|ifndef|elifdef|elifndef)\s+{escaped}\b", line):
        return LintHit(rule.index, start, end, name)
    directive = re.match(r"\s*#\s*(?:if|elif)\b", line)
    if directive is None:
        if re.match(r"\s*#", line):
            return LintHit(rule.index, start, end, name, fixable=False)
        detail = "(a value in code: AMD has no architecture number to put here)" if rule.value_severity else ""
        return LintHit(rule.index, start, end, name, fixable=False, severity=rule.value_severity, detail=detail)
    # Offsets in the decoded line match the bytes' only for ASCII; a directive with other
    # characters before the use is judged, but not fixed.
    ascii_line = line.isascii()
    condition_at = directive.end()
    uses = [_use(line, m.start(), m.end(), condition_at, rule) for m in re.finditer(rf"\b{escaped}\b", line)]
    fixable = ascii_line and all(kind != "other" for kind, _, _, _ in uses)
    here = start - line_start
    for kind, a, b, replacement in uses:
        if not a <= here < b:
            continue
        if kind == "presence":
            return LintHit(rule.index, start, end, name, fixable=fixable)
        if kind == "other" or not ascii_line:
            return LintHit(rule.index, start, end, name, fixable=False)
        detail = (
            f"(rewritten '{replacement}': kept where {name} is defined; where it is not, in AMD device code, "
            f"the test takes the branch of the newest architecture)"
            if kind == "comparison"
            else ""
        )
        return LintHit(
            rule.index, line_start + a, line_start + b, name, fixable=fixable, replacement=replacement, detail=detail
        )
    return LintHit(rule.index, start, end, name, fixable=False)


def _use(line: str, start: int, end: int, condition_at: int, rule: StructuralLint) -> tuple[str, int, int, str | None]:
    """(kind, span start, span end, replacement) of the use of the macro at line[start:end]."""
    before = line[condition_at:start]
    if re.search(r"\bdefined\s*\(?\s*\Z", before):
        return "presence", start, end, rule.fix
    if rule.newest is None:
        return "other", start, end, None
    after = re.match(rf"\s*({_OPERATORS})\s*{_OPERAND}", line[end:])
    if after is not None and _BEFORE_COMPARISON.search(before) and _AFTER.match(line, end + after.end()):
        span_end = end + after.end()
        return "comparison", start, span_end, _joined(line[start:span_end], after.group(1), rule.newest)
    reversed_ = re.search(rf"(?<![\w.]){_OPERAND}\s*({_OPERATORS})\s*\Z", before)
    if reversed_ is not None and _BEFORE_COMPARISON.search(before[: reversed_.start()]) and _AFTER.match(line, end):
        span_start = condition_at + reversed_.start()
        operator = _FLIPPED[reversed_.group(1)]
        return "comparison", span_start, end, _joined(line[span_start:end], operator, rule.newest)
    if _BEFORE.search(before) and _AFTER.match(line, end):
        return "bare", start, end, rule.fix
    return "other", start, end, None


def _joined(comparison: str, operator: str, newest: str) -> str:
    if operator in _NEWER_TRUE:
        return f"({comparison} || {newest})"
    return f"({comparison} && !{newest})"


def _logical_line_start(source: bytes, start: int) -> int:
    """The start of the line holding start, or of the first line a backslash continues into it."""
    line_start = source.rfind(b"\n", 0, start) + 1
    while line_start > 0:
        end = line_start - 1  # the newline ending the line before
        while end > 0 and source[end - 1] == 0x0D:
            end -= 1
        if not (end > 0 and source[end - 1] == 0x5C):
            break
        line_start = source.rfind(b"\n", 0, end) + 1
    return line_start


def _logical_line_end(source: bytes, start: int) -> int:
    """The end of the line holding start, backslash continuations included."""
    line_end = start
    while True:
        line_end = source.find(b"\n", line_end)
        if line_end < 0:
            return len(source)
        end = line_end
        while end > 0 and source[end - 1] == 0x0D:
            end -= 1
        if not (end > 0 and source[end - 1] == 0x5C):
            return line_end
        line_end += 1


MATCHER = Matcher(
    "macro-test",
    NAME,
    frozenset({"names"}),
    frozenset({"newest", "value_severity"}),
    run=match,
    own_name_silences=True,
)
