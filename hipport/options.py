"""Settings that change what a port produces (and so key the cache)."""
from __future__ import annotations

from dataclasses import dataclass

from hipport.versions import Version, format_version

LAUNCH_SYNTAXES = ("keep", "hip")


@dataclass(frozen=True)
class Options:
    hip_version: Version | None = None  # None: the newest version in the rule data
    launch_syntax: str = "keep"
    roc: bool = False  # emit rocBLAS/rocFFT/... names where the data has them

    def describe(self, newest: Version) -> dict:
        return {
            "hip_version": format_version(self.hip_version or newest),
            "launch_syntax": self.launch_syntax,
            "roc": self.roc,
        }
