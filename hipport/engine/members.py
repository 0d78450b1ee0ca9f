"""[[member_accessor]] rules: members whose type HIP changed under the same name.

CUDA's __half2 has `__half x, y`; HIP's has `unsigned short x, y` (the raw bits,
in a union with the _Float16_2 vector), so `h.x + h.y` compiles in both and
adds values in one, bit patterns in the other. A read of such a member on a
variable this file declares with the receiver type becomes the accessor both
platforms have (`h.x` -> `__low2half(h)`); a write, an increment or the
member's address cannot be rewritten as an expression and gets the rule's
finding instead. The parser does not see these members (x and y are not names
the scanner looks for), so the file's text is read here, only when it names a
receiver type at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from hipport.diagnostics import Edit
from hipport.ruleset.model import MemberAccessor

_NOT_CODE = re.compile(rb'//[^\n]*|/\*.*?(?:\*/|\Z)|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
_WRITE_AFTER = re.compile(rb"\s*(?:(?:[-+*/%&|^]|<<|>>)?=(?!=)|\+\+|--)")
_NEXT_DECLARATOR = re.compile(rb"\s*(?:\[[^\]\n]*\]\s*)?(?:=[^,;(){}]*)?,\s*[*&]?\s*([A-Za-z_]\w*)")
_WRITE_BEFORE = re.compile(rb"(?:\+\+|--|(?<!&)&)\s*\Z")
# The member as the whole operand of a cast to a reference: `reinterpret_cast<__half&>(h.x)` names
# the member's storage on both platforms (CUDA's __half, HIP's bits read as a __half), so it stays;
# static_cast and const_cast to a reference do not compile on HIP's unsigned short: reported.
_REFERENCE_CAST = re.compile(rb"\b(reinterpret|static|const)_cast\s*<[^<>;]*&\s*>\s*\(\s*\Z")
# A non-const reference bound to the member (`__half& r = h.x;`, `auto& r = h.x`): HIP's member is
# an unsigned short, and a read rewritten to __low2half(h) is a temporary; both fail to compile.
_REFERENCE_BIND = re.compile(rb"(?<![\w])[A-Za-z_][\w:<>]*\s*&\s*[A-Za-z_]\w*\s*=\s*\Z")
_POINTER_CAST = re.compile(rb"\breinterpret_cast\s*<[^<>;&]*\*\s*>\s*\(\s*\Z")
_OPEN_PARENS = re.compile(rb"(?:\(\s*)+\Z")
_CLOSE_PARENS = re.compile(rb"(?:\s*\))+")


@dataclass
class MemberOutcome:
    edits: list[Edit] = field(default_factory=list)
    findings: list[tuple[str, int, int, str, str]] = field(default_factory=list)


def member_rewrites(source: bytes, accessors: dict[tuple[str, str], MemberAccessor]) -> MemberOutcome:
    out = MemberOutcome()
    receivers = {receiver for receiver, _ in accessors}
    present = [r for r in receivers if r.encode("ascii") in source]
    if not present:
        return out
    not_code = [(m.start(), m.end()) for m in _NOT_CODE.finditer(source)]
    variables = _declared(source, present, not_code)
    members = "|".join(sorted({re.escape(m) for _, m in accessors}))
    for variable, receiver in variables.items():
        pattern = re.compile(
            rb"(?<![\w.])(?<!->)"
            + re.escape(variable.encode("ascii"))
            + rb"(\s*\[[^\]\n;]*\])?\s*(\.|->)\s*("
            + members.encode("ascii")
            + rb")\b"
        )
        for m in pattern.finditer(source):
            if _inside(m.start(), not_code):
                continue
            rule = accessors.get((receiver, m.group(3).decode("ascii")))
            if rule is None:
                continue
            spelled = m.group().decode("utf-8", "replace")
            use = _lvalue_use(source, m.start(), m.end())
            if use == "same":
                continue
            if use == "write":
                out.findings.append((rule.code, m.start(), m.end(), spelled, rule.message))
                continue
            arrow = m.group(2) == b"->"
            out.edits.append(Edit(m.start(), m.start(), rule.read.encode("ascii") + (b"(*" if arrow else b"(")))
            out.edits.append(Edit(m.end(1) if m.group(1) else m.start() + len(variable), m.end(), b")"))
    return out


def _lvalue_use(source: bytes, start: int, end: int) -> str | None:
    """How the member at source[start:end] is used: "write" (assigned, incremented, its address
    taken, a non-const reference bound to it: reported), "same" (the operand of a reinterpret_cast
    to a reference, or its address of one to a pointer, which names the same storage on both
    platforms: left as it is), or None for a read, which the accessor replaces. Parentheses
    around the member are looked through."""
    before = source[max(0, start - 200) : start]
    opened = _OPEN_PARENS.search(before)
    depth = opened.group().count(b"(") if opened else 0
    inner = before[: opened.start()] if opened else before
    closing = re.compile(rb"(?:\s*\)){%d}" % depth).match(source, end)
    outer_end = closing.end() if closing else end
    if depth:  # (h.x): a cast's operand, or a parenthesised member
        cast = _REFERENCE_CAST.search(inner + b"(")
        if cast is not None:
            return "same" if cast.group(1) == b"reinterpret" else "write"
    if (closing or not depth) and _WRITE_AFTER.match(source, outer_end) is not None:
        return "write"
    address = _WRITE_BEFORE.search(inner[-6:])
    if address is not None:
        pointer = _POINTER_CAST.search(inner[: len(inner) - len(inner[-6:]) + address.start()])
        return "same" if pointer is not None and address.group().startswith(b"&") else "write"
    bind = _REFERENCE_BIND.search(inner[-120:])
    if bind is not None and not re.search(rb"\bconst\s*\Z", inner[-120:][: bind.start()]):
        return "write"
    return None


def _declared(source: bytes, receivers: list[str], not_code: list[tuple[int, int]]) -> dict[str, str]:
    """Variables (and parameters) the file declares with one of the receiver types."""
    found: dict[str, str] = {}
    types = "|".join(re.escape(r) for r in receivers)
    declaration = re.compile(rb"(?<![\w.])(" + types.encode("ascii") + rb")\b(?:\s*const\b)?\s*[*&]?\s*([A-Za-z_]\w*)")
    for m in declaration.finditer(source):
        if _inside(m.start(), not_code):
            continue
        receiver = m.group(1).decode("ascii")
        found.setdefault(m.group(2).decode("ascii"), receiver)
        # more declarators of the same declaration: `__half2 a, b = x, *c;`
        at, limit = m.end(), min(len(source), m.end() + 400)
        while (more := _NEXT_DECLARATOR.match(source, at, limit)) is not None:
            found.setdefault(more.group(1).decode("ascii"), receiver)
            at = more.end()
    for keyword in ("const", "operator", "return"):
        found.pop(keyword, None)
    return found


def _inside(offset: int, spans: list[tuple[int, int]]) -> bool:
    from bisect import bisect_right

    i = bisect_right(spans, (offset, 1 << 62)) - 1
    return i >= 0 and spans[i][0] <= offset < spans[i][1]
