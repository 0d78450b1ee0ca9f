"""Find the punctuation between two pieces of code, so a rewrite can replace just it.

Rewrites that restructure a call (a launch, a dropped argument) must keep the
comments and line breaks around the pieces they move; they replace only the
punctuation, with the spaces and tabs beside it.
"""

from __future__ import annotations

import re

# What may separate two tokens: whitespace, comments, line continuations.
_TRIVIA = re.compile(rb"(?:\s|\\\r?\n|\\\r|/\*.*?\*/|//[^\r\n]*)*", re.S)
_BLANKS = re.compile(rb"[ \t]*")


def punctuation_spans(source: bytes, start: int, end: int, tokens: list[bytes]) -> list[tuple[int, int]] | None:
    """Where each token lies in source[start:end], with the blanks around it.

    None when anything but the tokens and trivia is there. The blanks after a
    final '(' are left to what follows it.
    """
    spans: list[tuple[int, int]] = []
    at = _skip(_TRIVIA, source, start, end)
    for i, token in enumerate(tokens):
        if at + len(token) > end or source[at : at + len(token)] != token:
            return None
        token_start = at
        while token_start > start and source[token_start - 1] in b" \t":
            token_start -= 1
        last_paren = i == len(tokens) - 1 and token == b"("
        token_end = at + 1 if last_paren else _skip(_BLANKS, source, at + len(token), end)
        spans.append((max(token_start, spans[-1][1] if spans else start), token_end))
        at = _skip(_TRIVIA, source, token_end, end)
    return spans if at == end else None


def _skip(pattern: re.Pattern[bytes], source: bytes, start: int, end: int) -> int:
    """Where pattern's match at start ends; it matches the empty string, so it always matches."""
    match = pattern.match(source, start, end)
    assert match is not None
    return match.end()
