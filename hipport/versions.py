"""HIP version strings ("5.2", "6.2.0") as comparable tuples."""

from __future__ import annotations

import re
from functools import lru_cache

_VERSION = re.compile(r"^\d+(\.\d+){0,2}$")

Version = tuple[int, int, int]


@lru_cache(maxsize=1024)  # the engine asks about the same few rule versions for every name it ports
def parse_version(text: str) -> Version:
    if not _VERSION.match(text.strip()):
        raise ValueError(f"not a version: {text!r} (expected X.Y or X.Y.Z)")
    parts = [int(p) for p in text.strip().split(".")]
    return tuple(parts + [0] * (3 - len(parts)))  # type: ignore[return-value]


def format_version(version: Version) -> str:
    major, minor, patch = version
    return f"{major}.{minor}" if patch == 0 else f"{major}.{minor}.{patch}"
