"""Argument rewrites ([[argument_rewrite]] rules): calls whose HIP counterpart takes other arguments.

A rule matches a call by its callee and, optionally, its number of arguments
(CUDA's C++ overloads differ only in that: cudaEventCreate(&e) and
cudaEventCreate(&e, flags)). Its actions are declarative:

- `hip`: the callee to write instead of the name rule's target (hipEventCreateWithFlags);
- `arguments`: the argument list to write, as a template over the call's own
  arguments: `{N}` is argument N as written, `{N..}` arguments N to the last
  with their separators, `{N:TYPE}` argument N cast to TYPE with
  reinterpret_cast unless it evidently is one already, `{N:&}` its address
  unless it is one already, `{borrowed}` an argument
  of another call (borrow_call, below). An argument the template leaves out is
  dropped; anything else is text the rewrite inserts. So one template says
  insert, drop, reorder and wrap;
- `code` and `message`: a finding. With no `arguments` it is reported at every
  matching call (HIP has no form hipport can write); with `arguments` only when
  a dropped argument carried meaning, that is when its text is not one of
  `silent_values` ("*": none carries any), or always with `report = true`;
- `keep_name`: leave the callee as written (the finding says why), for calls
  that a rename would turn into a call with the wrong arity;
- `borrow_call`, `borrow_match`, `borrow_argument`: `{borrowed}` is argument
  borrow_argument of the call to borrow_call in this file whose argument
  borrow_match is written as this call's is (the buffer a cuSPARSE analysis
  call was given, for the solve call HIP wants it passed to again);
  `borrow_key`: where the other call has that argument, when not at
  borrow_match too; `borrow_also`: more callees to borrow from (the other
  precisions of borrow_call);
- `target`: "hip" (default) when the port writes the HIP name, "roc" when it
  writes the ROC library's name (--roc); `since`/`until`: the HIP versions the
  rule is for;
- `when_argument` with `when_declared` or `when_matches`: the rule applies only where the call's
  argument when_argument is a name this file declares as a `when_declared` value (not a pointer),
  or where its text matches the regular expression `when_matches`: CUDA 13's
  cudaMemPrefetchAsync(ptr, count, cudaMemLocation, flags) has the count of the older
  (ptr, count, device, stream), and only the third argument tells them apart. A rule whose
  condition holds wins over one without, and when_declared over when_matches. A template may name
  the when_declared argument more than once: a name evaluates the same each time;
- `platform`: the one platform whose HIP headers take the call without the rewrite
  ("amd": hipMallocAsync's T** template): the rewrite is still made, and in HIP code
  a call to the HIP name without it is HP441 unless the code is for that platform
  alone (hipport/engine/platform_calls.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# {N}, {N..}, {N:TYPE}, {borrowed}
PLACEHOLDER = re.compile(r"\{(?:(?P<index>\d{1,2})(?P<rest>\.\.)?(?::(?P<cast>[^{}]*))?|(?P<borrowed>borrowed))\}")
# What a template may insert between its placeholders: expressions made of names,
# numbers, casts and operators, never a statement, a string or a comment.
_LITERAL = re.compile(r"[A-Za-z0-9_ ,&*()<>:.|+?!=-]*")
_ASSIGNMENT = re.compile(r"(?<![=!<>])=(?!=)|<<=|>>=")
_CAST_TYPE = re.compile(r"(?:const )?[A-Za-z_][A-Za-z0-9_:]*(?: ?\*(?: ?const)?){1,2}|&")
TARGETS = ("hip", "roc")


@dataclass(frozen=True, slots=True)
class ArgumentRule:
    cuda: str
    origin: object
    count: int | None = None  # the call has exactly this many arguments
    min_count: int = 0
    target: str = "hip"
    hip: str | None = None
    arguments: str | None = None
    code: str = "HP106"
    message: str | None = None
    silent_values: tuple[str, ...] = ()
    keep_name: bool = False
    report: bool = False  # report the message even where the rewrite is made
    borrow_call: str | None = None
    borrow_match: int | None = None
    borrow_argument: int | None = None
    borrow_key: int | None = None  # the other call's argument matched against this call's borrow_match
    borrow_also: tuple[str, ...] = ()
    since: str | None = None
    until: str | None = None
    library: str | None = None
    platform: str | None = None  # the only platform whose HIP headers take the call as CUDA wrote it
    when_argument: int | None = None  # the argument the conditions below test
    when_declared: str | None = None  # ... is a name this file declares as a value of this type
    when_matches: str | None = None  # ... has text this regular expression finds

    def matches(self, count: int | None) -> bool:
        if count is None:  # not a call: only a rule about every use of the name applies
            return self.count is None and self.arguments is None and self.min_count == 0
        return (self.count is None or self.count == count) and count >= self.min_count


def template_pieces(template: str) -> list[str | re.Match[str]]:
    """The template as literal text and placeholder matches, in order."""
    pieces: list[str | re.Match[str]] = []
    at = 0
    for m in PLACEHOLDER.finditer(template):
        if m.start() > at:
            pieces.append(template[at : m.start()])
        pieces.append(m)
        at = m.end()
    if at < len(template):
        pieces.append(template[at:])
    return pieces


def validate_argument_rule(entry: dict) -> tuple[str, str] | None:
    """(field, problem) for an [[argument_rewrite]] entry the engine could not apply safely."""
    if entry.get("target", "hip") not in TARGETS:
        return "target", f"target must be one of {', '.join(TARGETS)}"
    condition = _condition_problem(entry)
    if condition is not None:
        return condition
    template = entry.get("arguments")
    if template is None:
        if entry.get("message") is None and entry.get("hip") is None:
            return "cuda", "an argument_rewrite needs at least one of arguments, hip or message"
        return None
    seen: set[int] = set()
    last_rest = False
    for piece in template_pieces(template):
        if isinstance(piece, str):
            if "{" in piece or "}" in piece:
                return "arguments", f"unknown placeholder in {piece!r}: use {{N}}, {{N..}}, {{N:TYPE}} or {{borrowed}}"
            if not _LITERAL.fullmatch(piece) or "//" in piece or "/*" in piece or _ASSIGNMENT.search(piece):
                return "arguments", (
                    f"the text {piece!r} may only hold names, numbers, casts, operators (no assignment) and commas"
                )
            continue
        if piece.group("borrowed"):
            if (
                entry.get("borrow_call") is None
                or entry.get("borrow_argument") is None
                or entry.get("borrow_match") is None
            ):
                return "arguments", "{borrowed} needs borrow_call, borrow_match and borrow_argument"
            continue
        if last_rest:
            return "arguments", "no argument may follow {N..}"
        index = int(piece.group("index"))
        if index in seen and not (index == entry.get("when_argument") and entry.get("when_declared")):
            return "arguments", f"argument {index} is used twice: the call would evaluate it twice"
        seen.add(index)
        cast = piece.group("cast")
        if cast is not None and not _CAST_TYPE.fullmatch(cast):
            return "arguments", f"the cast type {cast!r} must be a pointer type such as const void*, or &"
        last_rest = bool(piece.group("rest"))
    count = entry.get("count")
    if count is not None and any(i >= count for i in seen):
        return "arguments", f"the template names an argument beyond the {count} the rule matches"
    if template.count("(") != template.count(")") or template.count("<") != template.count(">"):
        return "arguments", "parentheses and angle brackets must balance"
    return None


def _condition_problem(entry: dict) -> tuple[str, str] | None:
    """when_argument goes with when_declared or when_matches, and they with it."""
    index, tests = entry.get("when_argument"), [k for k in ("when_declared", "when_matches") if k in entry]
    if index is None:
        return (tests[0], f"{tests[0]} needs when_argument, the argument it tests") if tests else None
    if not tests:
        return "when_argument", "when_argument needs when_declared or when_matches, what it tests"
    if index < 0 or ("count" in entry and index >= entry["count"]):
        return "when_argument", f"the call has no argument {index}"
    if "when_declared" in entry and not _TYPE_NAME.fullmatch(entry["when_declared"]):
        return "when_declared", "when_declared must be a type name, such as cudaMemLocation"
    if "when_matches" in entry:
        try:
            re.compile(entry["when_matches"])
        except re.error as exc:
            return "when_matches", f"when_matches is not a regular expression: {exc}"
    return None


_TYPE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*")


def make_argument_rule(entry: dict, origin: object) -> ArgumentRule:
    fields = {k: v for k, v in entry.items() if k not in ("cuda", "note")}
    for listed in ("silent_values", "borrow_also"):
        if listed in fields:
            fields[listed] = tuple(fields[listed])
    return ArgumentRule(cuda=entry["cuda"], origin=origin, **fields)
