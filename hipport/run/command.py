"""What `hipport verify --run` prints: one line per program, a tail for failures, a summary."""

from __future__ import annotations

from pathlib import Path

import click

from hipport.ruleset.model import RuleSet
from hipport.run.execute import RunResult, RunSettings, run_tree
from hipport.run.runtime import RunSetupError, find_runtime, find_toolchain


def verify_run(
    path: Path,
    hip_cpu: Path | None,
    configured: Path | None,
    settings: RunSettings,
    rules: RuleSet,
    verbose: bool = False,
) -> int:
    """Run every program under path; the exit status: 1 if any FAILed, 2 if nothing could run."""
    from hipport.options import Options

    try:
        toolchain = find_toolchain(find_runtime(hip_cpu, configured))
    except RunSetupError as exc:
        click.echo(f"hipport: {exc}", err=True)
        return 2
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

    results = run_tree(path, toolchain, rules, options, settings, on_result=show)
    counts = {state: sum(r.status == state for r in results) for state in ("PASS", "FAIL", "NO-RUNTIME")}
    click.echo(
        f"hipport verify --run: {counts['PASS']} passed, {counts['FAIL']} failed, "
        f"{counts['NO-RUNTIME']} need a library the HIP CPU Runtime lacks"
        + ("" if results else f" (no program with a main under {path})")
    )
    return 1 if counts["FAIL"] else 0
