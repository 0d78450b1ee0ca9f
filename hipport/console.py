"""What every command's start shares, below hipport.launch (the fast check) and hipport.cli (click):
no click here, so the fast path stays free of it."""

from __future__ import annotations

import sys

INTERRUPTED = "hipport: interrupted"


def interrupted_message(exc: BaseException) -> str:
    """The line Ctrl-C ends a command with: what convert wrote, and how to finish (its advice)."""
    advice = getattr(exc, "advice", None)
    if advice is None:
        return INTERRUPTED
    return f"{INTERRUPTED}; each file written is complete, and none is partly written; {advice}"


def print_names_as_bytes() -> None:
    """A file name that is not UTF-8 holds lone surrogates: print its bytes as they are, as a
    compiler does, instead of failing (stdout) or printing \\udcff (stderr) for them."""
    for stream in (sys.stdout, sys.stderr):
        if (
            hasattr(stream, "reconfigure")
            and getattr(stream, "errors", None) in ("strict", "backslashreplace")
            and (getattr(stream, "encoding", "") or "").lower().replace("-", "") == "utf8"
        ):
            stream.reconfigure(errors="surrogateescape")
