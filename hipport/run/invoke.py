"""Run a built program the way its build runs it: each of its command lines in turn, in its folder,
with argv[0] as written (`./main`), as `make run` does: the outputs joined, stopping at the first
that fails, all within one time limit. Only the standard library (the GPU step imports it)."""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from hipport.buildfiles.recipe import RunCommand
from hipport.run.compare import decoded


@dataclass
class Ran:
    exit_status: int | None = None  # None: killed by the time limit
    timed_out: bool = False
    output: str = ""
    seconds: float = 0.0


def run_program(binary: Path, directory: Path, runs: tuple[RunCommand, ...], timeout: float) -> Ran:
    """Run binary for each command line (once without arguments when there are none)."""
    started = time.perf_counter()
    ran = Ran()
    outputs = []
    for command in runs or (RunCommand(),):
        left = timeout - (time.perf_counter() - started)
        argv0 = command.executable or f"./{binary.name}"
        env = dict(os.environ, **dict(command.env)) if command.env else None
        try:
            done = subprocess.run(
                [argv0, *command.args],
                executable=str(binary),
                capture_output=True,
                cwd=directory / command.cwd,
                env=env,
                timeout=max(left, 0.001),
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired as exc:
            outputs.append(decoded(exc.stdout) + decoded(exc.stderr))
            ran.timed_out, ran.exit_status = True, None
            break
        except OSError as exc:
            outputs.append(f"cannot start: {exc}")
            ran.exit_status = 127
            break
        outputs.append(decoded(done.stdout) + decoded(done.stderr))
        ran.exit_status = done.returncode
        if done.returncode != 0:
            break
    ran.output = "".join(outputs)
    ran.seconds = round(time.perf_counter() - started, 2)
    return ran


def described(runs: tuple[RunCommand, ...]) -> str:
    """The command lines, shortly, for a report: `./main 10 2; ./main 20 4`."""
    return "; ".join(" ".join((c.executable or "./PROGRAM", *c.args)) for c in runs)
