"""What `hipport verify --run` prints: one line per program, a tail for failures, a summary, JSON.

The platform picks the runner, here and only here: AMD's runs on the CPU (g++ and the HIP
CPU Runtime, 64-lane wavefronts), NVIDIA's on the GPU (nvcc and HIP's NVIDIA headers).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import click

from hipport.run.settings import RunSettings


def verify_run(
    path: Path,
    settings: RunSettings,
    configured_hip_cpu: Path | None,
    load_rules: Callable[[], object],
    verbose: bool = False,
    json_path: Path | None = None,
) -> int:
    """Run every program under path; the exit status: 1 if any failed, 2 if nothing could run."""
    runner = {"amd": _on_cpu, "nvidia": _on_gpu}[settings.tools.platform]
    try:
        results = runner(path, settings, configured_hip_cpu, load_rules, verbose)
    except _SetupError as exc:
        click.echo(f"hipport: {exc}", err=True)
        return 2
    if json_path is not None:
        try:
            json_path.write_text(json.dumps({"schema": 1, "results": results}, indent=1) + "\n", encoding="utf-8")
        except OSError as exc:
            click.echo(f"hipport: {json_path}: cannot write: {exc.strerror}", err=True)
            return 2
    counts: dict[str, int] = {}
    for result in results:
        counts[result["status"]] = counts.get(result["status"], 0) + 1
    if settings.tools.platform == "amd":
        shown = (
            f"{counts.get('PASS', 0)} passed, {counts.get('FAIL', 0)} failed, "
            f"{counts.get('NO-RUNTIME', 0)} need a library the HIP CPU Runtime lacks"
        )
    else:
        shown = f"{len(results)} program(s): " + (", ".join(f"{n} {s}" for s, n in sorted(counts.items())) or "none")
    click.echo(f"hipport verify --run: {shown}" + ("" if results else f" (no program with a main under {path})"))
    bad = ("FAIL", "DIFFER", "TIMEOUT", "BUILD-FAIL")
    return 1 if any(counts.get(state) for state in bad) else 0


class _SetupError(Exception):
    pass


def _on_cpu(path, settings, configured, load_rules, verbose) -> list[dict]:
    from hipport.options import Options
    from hipport.run.execute import RunResult, run_tree
    from hipport.run.runtime import RunSetupError, find_runtime, find_toolchain

    try:
        toolchain = find_toolchain(find_runtime(settings.tools.hip_cpu, configured), settings.tools)
    except RunSetupError as exc:
        raise _SetupError(str(exc)) from None
    options = Options()  # only the launches of ported code are rewritten, whatever the target

    def show(result: RunResult) -> None:
        timing = (
            f" ({result.build_seconds:.1f} s build, {result.run_seconds:.2f} s run)" if result.build_seconds else ""
        )
        detail = f": {result.detail}" if result.detail else ""
        click.echo(f"{result.status:10} {result.program.name}{timing}{detail}")
        if verbose:
            for note in result.bridged:
                click.echo(f"    bridged {note}")
        if result.status == "FAIL" and result.tail:
            click.echo("\n".join("    | " + line for line in result.tail.splitlines()))

    results = run_tree(path, toolchain, load_rules(), options, settings, on_result=show)
    return [
        {"program": r.program.name, "status": r.status, "detail": r.detail, "tail": r.tail, "bridged": r.bridged}
        for r in results
    ]


def _on_gpu(path, settings, configured, load_rules, verbose) -> list[dict]:
    from hipport.run.gpu import GpuResult, run_on_gpu
    from hipport.toolchain import ToolchainError, make_toolchain

    try:
        toolchain = make_toolchain(settings.tools)
    except ToolchainError as exc:
        raise _SetupError(str(exc)) from None
    source = settings.compare_original
    if source is not None and not source.is_dir():
        raise _SetupError(f"--compare-original: {source}: no such directory")

    def show(result: GpuResult) -> None:
        sides = [("port", result.port)] + ([("original", result.original)] if result.original else [])
        timing = ", ".join(
            f"{name} {side.build_seconds:.1f} s build" + (f" {side.run_seconds:.2f} s run" if side.run_seconds else "")
            for name, side in sides
            if side.built
        )
        detail = f": {result.detail}" if result.detail else ""
        click.echo(f"{result.status:10} {result.program.name}" + (f" ({timing})" if timing else "") + detail)
        if result.diff:
            click.echo("\n".join("    | " + line for line in result.diff.splitlines()))
        elif result.status in ("FAIL", "BUILD-FAIL", "TIMEOUT") or verbose:
            failed = result.original if result.original and result.detail.startswith("original") else result.port
            tail = "\n".join(failed.output.rstrip().splitlines()[-8:])
            if tail:
                click.echo("\n".join("    | " + line for line in tail.splitlines()))

    return [r.as_json() for r in run_on_gpu(path, toolchain, settings, on_result=show)]
