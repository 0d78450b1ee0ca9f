"""Tokens of a #define body, which tree-sitter leaves as raw text.

Only identifiers matter to the engine, but finding them correctly needs the
strings, comments, member operators and token-pasting around them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TOKEN = re.compile(
    rb"""
    (?P<space>(?:\s|\\\r?\n)+)
  | (?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))
  | (?P<string>(?:u8|[uUL])?"(?:\\.|[^"\\\n])*"?)
  | (?P<char>(?:u8|[uUL])?'(?:\\.|[^'\\\n])*'?)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<number>\.?[0-9](?:[eEpP][+-]|[A-Za-z0-9_.'])*)
  | (?P<punct>->|::|\#\#|.)
    """,
    re.S | re.X,
)


@dataclass(frozen=True, slots=True)
class MacroIdentifier:
    start: int  # offset within the body
    end: int
    name: str
    context: str  # "code", "member", "qualified", "scope", "pasted", "call"
    arguments: tuple[tuple[int, int], ...] | None = None


def macro_identifiers(body: bytes, params: frozenset[str] = frozenset()) -> list[MacroIdentifier]:
    tokens = [
        (m.lastgroup, m.start(), m.end()) for m in _TOKEN.finditer(body) if m.lastgroup not in ("space", "comment")
    ]
    result = []
    bracket_arguments = _bracket_arguments(body, tokens)
    for i, (kind, start, end) in enumerate(tokens):
        if kind != "ident":
            continue
        name = body[start:end].decode("ascii")
        if name in params:
            continue
        prev = body[tokens[i - 1][1] : tokens[i - 1][2]] if i > 0 else b""
        nxt = body[tokens[i + 1][1] : tokens[i + 1][2]] if i + 1 < len(tokens) else b""
        if prev in (b"#", b"##") or nxt == b"##":
            context = "pasted"
        elif prev in (b".", b"->"):
            context = "member"
        elif prev == b"::" and i > 1 and tokens[i - 2][0] == "ident":
            context = "qualified"
        elif nxt == b"::":
            context = "scope"
        elif nxt == b"(":
            context = "call"
        else:
            context = "code"
        arguments = bracket_arguments.get(i + 1) if context == "call" else None
        result.append(MacroIdentifier(start, end, name, context, arguments))
    return result


def _bracket_arguments(body: bytes, tokens: list) -> dict[int, tuple[tuple[int, int], ...]]:
    """The argument spans of every balanced bracket, keyed by its opening token's index.

    One pass with a stack of open brackets: scanning ahead from each call was
    quadratic in the nesting (a 10,000-deep macro body took 18 s). A bracket
    left open is absent: its call continues outside this macro.
    """
    found: dict[int, tuple[tuple[int, int], ...]] = {}
    stack: list[list] = []  # [opening token index, argument spans, current argument's start]
    previous_end = 0
    for index, (_kind, start, end) in enumerate(tokens):
        text = body[start:end]
        if text in (b")", b"]", b"}") and stack:
            opened, args, arg_start = stack.pop()
            if arg_start is not None:
                args.append((arg_start, previous_end))
            found[opened] = tuple(args)
        elif text == b"," and stack:
            top = stack[-1]
            if top[2] is not None:
                top[1].append((top[2], previous_end))
            top[2] = None
            previous_end = end
            continue
        if stack and stack[-1][2] is None:
            stack[-1][2] = start  # this token begins the enclosing bracket's argument
        if text in (b"(", b"[", b"{"):
            stack.append([index, [], None])
        previous_end = end
    return found


TOKEN = _TOKEN  # for other readers of #define bodies (hipport/engine/macro_launch.py)
