"""Launches inside #define bodies, which the parser leaves as raw text.

`#define LAUNCH(k, ...) k<<<grid, block>>>(__VA_ARGS__)` is found from the
body's tokens: the kernel expression before `<<<`, the configuration up to
`>>>`, and the parenthesised arguments after it. The result is an ordinary
LaunchSite, so --launch-syntax hip rewrites it like any other launch; an empty
__VA_ARGS__ is fine, because hipLaunchKernelGGL is a variadic macro itself.
"""

from __future__ import annotations

import re

from hipport.parse.macro_lexer import TOKEN
from hipport.parse.sites import LaunchSite

_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+[A-Za-z_]\w*(?:\([^)\n]*\))?", re.M)
_OPEN = {b"(": b")", b"[": b"]", b"{": b"}"}


def macro_launch_scan(source: bytes) -> tuple[list[LaunchSite], list[int]]:
    """(the well-formed launches in #define bodies, where each other `<<<` of a body starts):
    a `<<<` this reader cannot take apart is reported, not left silently."""
    if b"<<<" not in source:
        return [], []
    found: list[LaunchSite] = []
    unread: list[int] = []
    for m in _DEFINE.finditer(source):
        end = _logical_line_end(source, m.end())
        if b"<<<" in source[m.end() : end]:
            launches, missed = _launches_in(source, m.end(), end)
            found.extend(launches)
            unread.extend(missed)
    return found, unread


def _logical_line_end(source: bytes, at: int) -> int:
    while True:
        newline = source.find(b"\n", at)
        if newline < 0:
            return len(source)
        if source[newline - 1 : newline] == b"\\" or source[newline - 2 : newline] == b"\\\r":
            at = newline + 1
            continue
        return newline


def _launches_in(source: bytes, start: int, end: int) -> tuple[list[LaunchSite], list[int]]:
    tokens = [
        (m.lastgroup, m.start(), m.end())
        for m in TOKEN.finditer(source, start, end)
        if m.lastgroup not in ("space", "comment")
    ]
    texts = [source[a:b] for _, a, b in tokens]
    launches = []
    missed = []
    i = 0
    while i + 2 < len(tokens):
        if (
            texts[i : i + 3] == [b"<", b"<", b"<"]
            and tokens[i][2] == tokens[i + 1][1] == tokens[i + 1][2] - 1
            and tokens[i + 1][2] == tokens[i + 2][1]
        ):
            site = _launch_at(tokens, texts, i)
            if site is not None:
                launches.append(site)
            else:
                missed.append(tokens[i][1])
        i += 1
    return launches, missed


def _launch_at(tokens: list, texts: list[bytes], at: int) -> LaunchSite | None:
    first = _kernel_start(tokens, texts, at)
    if first is None:
        return None
    close = _close_of_config(tokens, texts, at + 3)
    if close is None or close + 3 >= len(tokens) or texts[close + 3] != b"(":
        return None
    config = _split(tokens, texts, at + 3, close)
    args_open = close + 3
    args_close = _matching(texts, args_open)
    if args_close is None or config is None:
        return None
    arguments = _split(tokens, texts, args_open + 1, args_close)
    if arguments is None:
        return None
    kernel = (tokens[first][1], tokens[at - 1][2])
    return LaunchSite(
        start=kernel[0],
        end=tokens[args_close][2],
        kernel=kernel,
        kernel_is_template=any(texts[k] == b"<" for k in range(first, at)),
        config=config,
        config_close=tokens[close + 2][2],
        args_open=tokens[args_open][1],
        arguments=arguments,
    )


def _kernel_start(tokens: list, texts: list[bytes], at: int) -> int | None:
    """The first token of the kernel expression ending just before `<<<`: name, ns::name, name<T, 4>."""
    i = at - 1
    if i < 0:
        return None
    if texts[i] == b">":  # template arguments; a `>` inside parentheses, f<(N > 2)>, is no bracket
        depth = parens = 0
        while i >= 0:
            if texts[i] in (b")", b"]"):
                parens += 1
            elif texts[i] in (b"(", b"["):
                parens -= 1
            elif parens == 0:
                depth += {b">": 1, b"<": -1}.get(texts[i], 0)
            if depth == 0 and parens == 0:
                break
            i -= 1
        i -= 1
    if i < 0 or tokens[i][0] != "ident":
        return None
    while i >= 2 and texts[i - 1] == b"::" and tokens[i - 2][0] == "ident":
        i -= 2
    return i


def _close_of_config(tokens: list, texts: list[bytes], start: int) -> int | None:
    depth = 0
    for i in range(start, len(tokens) - 2):
        if texts[i] in _OPEN:
            depth += 1
        elif texts[i] in (b")", b"]", b"}"):
            depth -= 1
        elif (
            depth == 0
            and texts[i : i + 3] == [b">", b">", b">"]
            and tokens[i][2] == tokens[i + 1][1]
            and tokens[i + 1][2] == tokens[i + 2][1]
        ):
            return i
    return None


def _matching(texts: list[bytes], open_at: int) -> int | None:
    depth = 0
    for i in range(open_at, len(texts)):
        if texts[i] in _OPEN:
            depth += 1
        elif texts[i] in (b")", b"]", b"}"):
            depth -= 1
            if depth == 0:
                return i
    return None


def _split(tokens: list, texts: list[bytes], start: int, stop: int) -> list[tuple[int, int]] | None:
    """Spans of the comma-separated pieces of tokens[start:stop]; None if a piece is empty."""
    pieces, depth, first = [], 0, start
    for i in range(start, stop):
        if texts[i] in _OPEN:
            depth += 1
        elif texts[i] in (b")", b"]", b"}"):
            depth -= 1
        elif texts[i] == b"," and depth == 0:
            if i == first:
                return None
            pieces.append((tokens[first][1], tokens[i - 1][2]))
            first = i + 1
    if first < stop:
        pieces.append((tokens[first][1], tokens[stop - 1][2]))
    elif pieces:
        return None  # a trailing comma
    return pieces
