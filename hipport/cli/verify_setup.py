"""`hipport verify`'s settings, read once: its VerifyRequest, [tool.hipport] and the environment -> ToolSettings."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from hipport.cli.common import _fail

if TYPE_CHECKING:
    from hipport.requests import VerifyRequest


def tool_settings(request: VerifyRequest):
    """The one settings object compile checks and runs share, and the config it was read with."""
    from hipport.config import ConfigError, find_config, load_config
    from hipport.toolchain import ToolchainError, ToolSettings, resolve_hip_path

    try:
        config = load_config(find_config())
    except ConfigError as exc:
        _fail(str(exc))
    try:
        hip_path = resolve_hip_path(request.hip_path, config.hip_path)
    except ToolchainError as exc:
        _fail(str(exc))
    database = None
    if request.compile_commands is not None:
        from hipport.toolchain.compdb import CompileDatabaseError, load

        try:
            database = load(request.compile_commands)
        except CompileDatabaseError as exc:
            _fail(str(exc))
    if request.compare_original is not None and not (request.run_programs and request.platform == "nvidia"):
        raise click.UsageError("--compare-original needs --run --platform nvidia")
    settings = ToolSettings(
        platform=request.platform,
        hip_path=hip_path,
        include_dirs=tuple(Path(d) for d in request.include_dirs),
        defines=tuple(request.defines),
        database=database,
        offload_arch=request.offload_arch,
        jobs=request.jobs,
        hip_cpu=request.hip_cpu,
    )
    return settings, config


def run_settings(tools, request: VerifyRequest):
    import shlex

    from hipport.run.settings import RunSettings

    hip_libs = request.hip_libs
    if hip_libs is not None and not (hip_libs / "include").is_dir():
        _fail(f"--hip-libs: {hip_libs}: no include/ here (bench/gpu_libs.py build writes include/ and lib/)")
    try:
        args = None if request.program_args is None else tuple(shlex.split(request.program_args))
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--args") from None
    return RunSettings(
        timeout=request.timeout,
        compare=request.compare,
        rel_tol=request.tolerance,
        compare_original=request.compare_original,
        ignore=request.ignore_lines,
        hip_libs=hip_libs.resolve() if hip_libs is not None else None,
        args=args,
        once=request.once,
        tools=tools,
    )


def say_headers(toolchain, report_path: Path | None) -> None:
    """One line when the report's target HIP is newer than the headers the compiler uses, naming them."""
    if report_path is None:
        return
    import json

    from hipport.versions import parse_version

    try:
        target = json.loads(report_path.read_text(encoding="utf-8")).get("options", {}).get("hip_version")
    except (OSError, ValueError, AttributeError):
        return
    headers = toolchain.headers()
    if not target or not headers.version:
        return
    try:
        newer = parse_version(str(target)) > parse_version(headers.version)
    except ValueError:
        return
    if newer:
        hint = "; give --hip-path with HIP " + str(target) + "'s headers to check that target"
        click.echo(
            f"hipport verify: the report targets HIP {target}, newer than the {headers.describe()} "
            f"({toolchain.platform}): findings about HIP {target} APIs may not match these errors{hint}",
            err=True,
        )
