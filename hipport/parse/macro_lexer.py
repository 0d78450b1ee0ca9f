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
        (m.lastgroup, m.start(), m.end())
        for m in _TOKEN.finditer(body)
        if m.lastgroup not in ("space", "comment")
    ]
    result = []
    for i, (kind, start, end) in enumerate(tokens):
        if kind != "ident":
            continue
        name = body[start:end].decode("ascii")
        if name in params:
            continue
        prev = body[tokens[i - 1][1]:tokens[i - 1][2]] if i > 0 else b""
        nxt = body[tokens[i + 1][1]:tokens[i + 1][2]] if i + 1 < len(tokens) else b""
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
        arguments = _call_arguments(body, tokens, i + 1) if context == "call" else None
        result.append(MacroIdentifier(start, end, name, context, arguments))
    return result


def _call_arguments(body: bytes, tokens: list, open_index: int) -> tuple[tuple[int, int], ...] | None:
    depth, args, arg_start = 0, [], None
    for kind, start, end in tokens[open_index:]:
        text = body[start:end]
        if text in (b"(", b"[", b"{"):
            depth += 1
            if depth == 1:
                continue
        elif text in (b")", b"]", b"}"):
            depth -= 1
            if depth == 0:
                if arg_start is not None:
                    args.append((arg_start, last_end))
                return tuple(args)
        elif text == b"," and depth == 1:
            if arg_start is not None:
                args.append((arg_start, last_end))
            arg_start = None
            continue
        if arg_start is None:
            arg_start = start
        last_end = end
    return None  # unbalanced: the call continues outside this macro
