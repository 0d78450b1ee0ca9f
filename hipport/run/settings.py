"""What a run takes beyond the toolchain's settings: time limit, reference, tolerances."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from hipport.toolchain import ToolSettings


@dataclass(frozen=True)
class RunSettings:
    timeout: float = 60.0  # seconds each program may run
    compare: str | None = None  # reference command; {name}, {stem} and {dir} are filled in
    rel_tol: float = 1e-5
    abs_tol: float = 1e-8
    compare_original: Path | None = None  # the CUDA tree the port came from (NVIDIA: build and run both)
    ignore: str | None = None  # a regular expression: output lines it finds are not compared (timings)
    hip_libs: Path | None = None  # HIP's libraries built for NVIDIA: include/ and lib/ (bench/gpu_libs.py)
    args: tuple[str, ...] | None = None  # every program's command line (--args); None: its build file's
    once: bool = False  # each side runs again only where the two differ (else always: what varies is not compared)
    tools: ToolSettings = field(default_factory=ToolSettings)  # compilers, headers, -I, -D, -p, jobs

    @property
    def jobs(self) -> int:
        return self.tools.jobs


def relocate(dirs: tuple[Path, ...], root: Path, onto: Path) -> tuple[Path, ...]:
    """Include directories inside root moved onto another tree of the same layout (the run's
    bridged copy, the CUDA original); the others kept."""
    moved = []
    base = root.resolve()
    for d in dirs:
        resolved = d.resolve()
        moved.append(onto / resolved.relative_to(base) if resolved.is_relative_to(base) else d)
    return tuple(moved)
