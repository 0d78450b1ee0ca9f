"""What every runner returns per program: its status and one line of detail (CpuRun, GpuRun)."""

from __future__ import annotations

from dataclasses import dataclass

from hipport.run.programs import Program


@dataclass
class ProgramResult:
    program: Program
    status: str  # the runner's verdict: PASS, FAIL, NO-RUNTIME (CPU); AGREE, DIFFER, BUILD-FAIL, NO-LIB... (GPU)
    detail: str = ""  # one line: why it failed
