"""`convert --fix-warp-size`: the warp-size lints' fixes that are mechanical and provably safe.

Each fix is applied only where the code around the finding shows it means the
lanes of a warp; anywhere else the finding keeps its suggestion and the code
is left as written. The finding's message says which it was.

- HP402: a variable initialised from a ballot becomes `unsigned long long`
  (one declarator, declared at the call; an assignment to a variable declared
  elsewhere is only reported).
- HP403: `x % 32` and `x & 31` become `x % warpSize`, `x / 32` and `x >> 5` become
  `x / warpSize`, in a function that uses warp operations (directly or through a
  function of the file), and only where the value is used in place or named like
  a lane or warp number (a `tx = threadIdx.x % 32` may be a tile column).
- HP404: a shuffle loop starts at `warpSize / 2` or runs below `warpSize`, when no
  shuffle in it passes a width (a width of 32 would pair with the old bound).
- HP406: `__popc`/`__ffs` of a variable holding a ballot become `__popcll`/`__ffsll`
  when the variable is unsigned (zero-extended: the count is the same) or is a
  ballot-initialised variable HP402 widens.
- HP405 (per-warp partials sized 32) stays a suggestion: 32 slots already hold
  the 16 a 64-lane wavefront needs, and warpSize is no constant expression in
  HIP 7, so no size written with it is safe everywhere.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from hipport.diagnostics import Applicability
from hipport.parse.lines import matching_bracket

FLAG = "--fix-warp-size"
WARP_CALL = re.compile(r"\b(?:__shfl\w*|__ballot\w*|__activemask|__any\w*|__all\w*|__match\w*)\s*\(")
LANE_NAME = re.compile(r"(?i)lane|warp|wid")
_SIMPLE_OPERAND = re.compile(r"[A-Za-z_][\w.]*(?:->[\w.]+)*\Z")
_TOKENS = re.compile(rb'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|[{}]', re.S)
_FUNCTION_NAME = re.compile(r"([A-Za-z_]\w*)\s*\([^;{}()]*\)\s*(?:const\s*)?\{\Z", re.S)
_UNSIGNED = r"unsigned\s+long\s+long(?:\s+int)?|unsigned\s+long|unsigned(?:\s+int)?|uint32_t|uint64_t|size_t"
_WIDENED = r"int|int32_t"  # signed types HP402 widens where it can
# (operator, literal) -> the warpSize operator
_LANE_OPERATORS = {("%", 32): "%", ("&", 31): "%", ("/", 32): "/", (">>", 5): "/"}


def fix_warp_size(outcome, hit, rule, source: bytes):
    """outcome with the --fix-warp-size fix applied (or its reason not to), or outcome unchanged."""
    code = rule.code
    if code == "HP402":
        return _decided(
            outcome,
            "unsigned long long" if hit.fixable else None,
            "" if hit.fixable else "the variable is declared elsewhere or with others",
        )
    if code == "HP403":
        return _lane_arithmetic(outcome, hit, source)
    if code == "HP404":
        return _loop_bound(outcome, hit, rule, source)
    if code == "HP406" and not hit.fixable and outcome.fix:
        return _count_through_variable(outcome, hit, source)
    if code == "HP405":
        return replace(
            outcome,
            message=f"{outcome.message} ({FLAG} leaves it: 32 slots hold the 16 "
            "a 64-lane wavefront needs; read back only blockDim.x / warpSize)",
        )
    return outcome


def _decided(outcome, fix: str | None, reason: str):
    if fix is None:
        return replace(outcome, message=f"{outcome.message} ({FLAG} left it: {reason})")
    old = outcome.name
    return replace(
        outcome,
        fix=fix,
        applicability=Applicability.SAFE,
        message=f"{outcome.message} ({FLAG}: '{old}' became '{fix}')",
    )


def _lane_arithmetic(outcome, hit, source: bytes):
    text = source[hit.start : hit.end].decode("utf-8", "replace")
    parsed = _split_operation(text)
    if parsed is None:
        return _decided(outcome, None, "not a plain 'x OP literal'")
    operand, operator = parsed
    start, end = _enclosing_function(source, hit.start)
    scope = source[start:end].decode("utf-8", "replace")
    if not _uses_warp_operations(scope, source):
        return _decided(outcome, None, "this function uses no warp operation, so 32 may not be about lanes")
    assigned = re.search(
        r"([A-Za-z_]\w*)\s*=\s*\(?\s*\Z", source[max(start, hit.start - 200) : hit.start].decode("utf-8", "replace")
    )
    if assigned and not LANE_NAME.search(assigned.group(1)):
        return _decided(outcome, None, f"'{assigned.group(1)}' is not named as a lane or warp number")
    if not _SIMPLE_OPERAND.match(operand) and not _parenthesized(operand):
        operand = f"({operand})"
    return _decided(replace(outcome, name=text), f"{operand} {operator} warpSize", "")


def _split_operation(text: str) -> tuple[str, str] | None:
    for (op, literal), warp_op in _LANE_OPERATORS.items():
        m = re.fullmatch(rf"(.+?)\s*{re.escape(op)}\s*(?:{literal}|0[xX]0*{literal:x})[uU]?", text, re.S)
        if m and not m.group(1).rstrip().endswith(("&", ">", "<")):
            return m.group(1).strip(), warp_op
        if op == "&":  # 31 & x
            m = re.fullmatch(r"(?:31|0[xX]0*1[fF])[uU]?\s*&\s*(.+)", text, re.S)
            if m:
                return m.group(1).strip(), warp_op
    return None


def _parenthesized(text: str) -> bool:
    if not (text.startswith("(") and text.endswith(")")):
        return False
    depth = 0
    for index, char in enumerate(text):
        depth += char == "("
        depth -= char == ")"
        if depth == 0 and index < len(text) - 1:
            return False
    return True


def _loop_bound(outcome, hit, rule, source: bytes):
    loop = source.rfind(b"for", 0, hit.start)
    header_open = source.find(b"(", loop)
    header_close = matching_bracket(source, header_open, b"(", b")")
    if loop < 0 or header_close < 0:
        return _decided(outcome, None, "the loop could not be read")
    body_start = header_close + 1
    while body_start < len(source) and source[body_start : body_start + 1].isspace():
        body_start += 1
    if source[body_start : body_start + 1] == b"{":
        body_end = matching_bracket(source, body_start, b"{", b"}")
    else:
        body_end = source.find(b";", body_start)
    body = source[body_start : body_end + 1].decode("utf-8", "replace")
    for m in re.finditer(r"\b(__shfl\w*)\s*\(", body):
        arguments = _argument_count(body, m.end() - 1)
        if arguments > (3 if m.group(1).endswith("_sync") else 2):
            return _decided(outcome, None, f"'{m.group(1)}' passes a width, which pairs with this bound")
    fix = "warpSize / 2" if rule.position == "initializer" else "warpSize"
    return _decided(outcome, fix, "")


def _count_through_variable(outcome, hit, source: bytes):
    start, end = _enclosing_function(source, hit.start)
    scope = source[start:end].decode("utf-8", "replace")
    call_text = source[hit.start : matching_bracket(source, source.find(b"(", hit.end), b"(", b")") + 1]
    variable = re.search(rb"\(\s*([A-Za-z_]\w*)\s*\)", call_text)
    if variable is None:
        return _decided(outcome, None, "the argument is not a variable")
    name = re.escape(variable.group(1).decode())
    if re.search(rf"\b(?:{_UNSIGNED})\s+{name}\b", scope) or re.search(
        rf"\b(?:{_WIDENED})\s+{name}\s*=\s*[\s(]*(?:__ballot\w*|__activemask)\s*\(", scope
    ):
        return _decided(outcome, outcome.fix, "")
    return _decided(outcome, None, f"'{variable.group(1).decode()}' is signed and stays 32-bit")


def _uses_warp_operations(scope: str, source: bytes) -> bool:
    if WARP_CALL.search(scope):
        return True
    helpers = _functions_with_warp_operations(source)
    return any(re.search(rf"\b{re.escape(name)}\s*\(", scope) for name in helpers)


def _functions_with_warp_operations(source: bytes) -> set[str]:
    names = set()
    for opened, closed in _outer_blocks(source, len(source)):
        if closed >= 0 and WARP_CALL.search(source[opened:closed].decode("utf-8", "replace")):
            head = source[max(0, opened - 300) : opened + 1].decode("utf-8", "replace")
            found = _FUNCTION_NAME.search(head)
            if found:
                names.add(found.group(1))
    return names


def _outer_blocks(source: bytes, end: int) -> Iterator[tuple[int, int]]:
    """(open, past the close) of each outermost brace block before end, braces in comments and
    literals aside; a block still open at end comes last, as (open, -1)."""
    depth, opened = 0, -1
    for m in _TOKENS.finditer(source, 0, end):
        token = m.group()
        if token == b"{":
            if depth == 0:
                opened = m.start()
            depth += 1
        elif token == b"}" and depth > 0:
            depth -= 1
            if depth == 0:
                yield opened, m.end()
    if depth > 0:
        yield opened, -1


def _enclosing_function(source: bytes, offset: int) -> tuple[int, int]:
    """The outermost brace block around offset, or the whole file (a #define body, file scope)."""
    opened = None
    for start, closed in _outer_blocks(source, offset):
        opened = start if closed < 0 else None  # only the last block can be still open at offset
    if opened is None:
        return 0, len(source)
    end = matching_bracket(source, opened, b"{", b"}")
    return opened, (end + 1 if end >= 0 else len(source))


def _argument_count(text: str, open_at: int) -> int:
    depth, count, seen = 0, 1, False
    for char in text[open_at:]:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                break
        elif char == "," and depth == 1:
            count += 1
        elif depth == 1 and not char.isspace():
            seen = True
    return count if seen or count > 1 else 0
