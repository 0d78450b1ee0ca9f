"""HIP headers of the port's target release, found where they usually live.

A newcomer ports with the default target (the newest HIP the rules know) and then runs
`hipport verify` with whatever hipcc is installed, whose own headers may be older. Checking a
HIP 6.3 port against HIP 5.2's headers reports failures that are not the port's. So when no
headers were named, verify looks for the target's headers itself: in a ROCm install of that
release (/opt/rocm-X.Y*, /opt/rocm) and in a vendored copy (`shared/vendor/HIP-amd`, as a
team keeps beside its checkouts) in the working directory or one of its parents. A copy is
used only if its hip/hip_version.h says it is the target release.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from hipport.toolchain import header_version

VENDORED_HIP = Path("shared") / "vendor" / "HIP-amd"
ROCM_ROOT = Path("/opt")


def _candidates(start: Path, version: str, rocm_root: Path) -> Iterator[Path]:
    if rocm_root.is_dir():
        yield from sorted(rocm_root.glob(f"rocm-{version}*"), reverse=True)
        yield rocm_root / "rocm"
    for folder in (start, *start.parents):
        yield folder / VENDORED_HIP


def target_headers(version: str, start: Path, rocm_root: Path = ROCM_ROOT) -> Path | None:
    """The include directory of HIP `version`'s headers (X.Y), or None where none is found."""
    for tree in _candidates(start.resolve(), version, rocm_root):
        include = tree / "include"
        if header_version(include) == version:
            return include
    return None
