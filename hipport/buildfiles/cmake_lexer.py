"""A CMake lexer: command invocations with their arguments and positions.

It follows the CMake language's grammar closely enough to never mistake a
comment, a quoted or a bracket argument for code; anything it cannot read
is skipped rather than guessed at.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BRACKET_OPEN = re.compile(r"\[(=*)\[")
_SPACE = re.compile(r"[ \t]*")


@dataclass
class Arg:
    text: str  # without quotes or brackets
    start: int  # of text
    end: int
    kind: str = "unquoted"  # unquoted | quoted | bracket


@dataclass
class Command:
    name: str
    start: int
    end: int  # just after ')'
    args: list[Arg] = field(default_factory=list)

    @property
    def key(self) -> str:
        return self.name.lower()

    def values(self) -> list[str]:
        return [a.text for a in self.args]


def commands(text: str) -> list[Command]:
    found = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "#":
            i = _skip_comment(text, i)
        elif c in '"':
            i = _skip_quoted(text, i)
        elif c.isalpha() or c == "_":
            m = _IDENT.match(text, i)  # c starts an identifier
            assert m is not None
            j = _space_end(text, m.end())
            if j < n and text[j] == "(":
                command = Command(m.group(), i, j)
                command.end = _arguments(text, j + 1, command.args)
                found.append(command)
                i = command.end
            else:
                i = m.end()
        else:
            i += 1
    return found


def _skip_comment(text: str, i: int) -> int:
    m = _BRACKET_OPEN.match(text, i + 1)
    if m:
        close = text.find("]" + m.group(1) + "]", m.end())
        return len(text) if close < 0 else close + len(m.group(1)) + 2
    newline = text.find("\n", i)
    return len(text) if newline < 0 else newline


def _skip_quoted(text: str, i: int) -> int:
    j = i + 1
    while j < len(text):
        if text[j] == "\\":
            j += 2
            continue
        if text[j] == '"':
            return j + 1
        j += 1
    return len(text)


def _arguments(text: str, i: int, args: list[Arg]) -> int:
    """Read arguments up to the matching ')'; returns the offset after it."""
    depth, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n":
            i += 1
        elif c == "#":
            i = _skip_comment(text, i)
        elif c == "(":
            depth += 1
            i += 1
        elif c == ")":
            if depth == 0:
                return i + 1
            depth -= 1
            i += 1
        elif c == '"':
            end = _skip_quoted(text, i)
            args.append(Arg(text[i + 1 : end - 1], i + 1, end - 1, "quoted"))
            i = end
        elif c == "[" and (m := _BRACKET_OPEN.match(text, i)):
            close = text.find("]" + m.group(1) + "]", m.end())
            close = n if close < 0 else close
            args.append(Arg(text[m.end() : close], m.end(), close, "bracket"))
            i = min(n, close + len(m.group(1)) + 2)
        else:
            j = i
            while j < n and text[j] not in ' \t\r\n()#"':
                j += 2 if text[j] == "\\" else 1
            j = min(j, n)
            args.append(Arg(text[i:j], i, j))
            i = j
    return n


def _space_end(text: str, start: int) -> int:
    space = _SPACE.match(text, start)  # it matches the empty string too
    assert space is not None
    return space.end()
