"""Where the HTML report reads source lines from: the analysis in memory, or the files on disk."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

# path as the report shows it -> the file's bytes, or None when unavailable
SourceReader = Callable[[str], bytes | None]


def disk_sources(report: dict) -> SourceReader:
    """Read sources from disk, relative to the report's root (convert's source tree) if it has one."""
    root = Path(report["root"]) if report.get("root") else Path(".")

    def read(path: str) -> bytes | None:
        try:
            return (root / path).read_bytes()
        except OSError:
            return None

    return read
