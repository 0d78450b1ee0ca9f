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
    from hipport.toolchain import (
        CUDA_LIB_PATH_ENV,
        DEFAULT_STD,
        ROCM_PATH_ENV,
        ToolchainError,
        ToolSettings,
        resolve_hip_path,
        resolve_library_path,
    )

    try:
        config = load_config(find_config())
    except ConfigError as exc:
        _fail(str(exc))
    try:
        hip_path = resolve_hip_path(request.hip_path, config.hip_path)
        rocm = resolve_library_path(
            "rocm", request.rocm_path, config.rocm_path, "--rocm-path", ROCM_PATH_ENV, "rocm-path"
        )
        cuda = resolve_library_path(
            "cuda",
            request.cuda_lib_path,
            config.cuda_lib_path,
            "--cuda-lib-path",
            CUDA_LIB_PATH_ENV,
            "cuda-lib-path",
        )
    except ToolchainError as exc:
        _fail(str(exc))
    std = request.std or config.std or DEFAULT_STD
    if not std.startswith(("c++", "gnu++")):
        raise click.BadParameter(f"'{std}' is no C++ standard (c++17, gnu++20...)", param_hint="--std")
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
        rocm_path=rocm,
        cuda_lib_path=cuda,
        std=std,
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


def say_headers(toolchain, report_path: Path | None, units: list[Path] | tuple[Path, ...] = ()) -> None:
    """One line naming the HIP headers, the library headers and the C++ standard the compiles use;
    when the report's target HIP is newer than those headers, the same line says so."""
    settings = toolchain.settings
    headers = toolchain.headers()
    libraries = [
        str(p)
        for p in (settings.rocm_path, settings.cuda_lib_path if toolchain.platform == "nvidia" else None)
        if p is not None
    ]
    stds = sorted({settings.unit_std(u) for u in units}) or [settings.std]
    line = (
        f"hipport verify: {headers.describe()} ({toolchain.platform}); library headers: "
        f"{', '.join(libraries) or 'none given (--rocm-path): library units are NO-LIB'}; "
        f"C++ standard: {', '.join(stds)}"
    )
    target = _report_target(report_path)
    if target and headers.version:
        from hipport.versions import parse_version

        try:
            newer = parse_version(str(target)) > parse_version(headers.version)
        except ValueError:
            newer = False
        if newer:
            line += (
                f"; the report targets HIP {target}, newer than the {headers.describe()}: findings about "
                f"HIP {target} APIs may not match these errors; give --hip-path with HIP {target}'s "
                "headers to check that target"
            )
    click.echo(line, err=True)


def _report_target(report_path: Path | None) -> str | None:
    if report_path is None:
        return None
    import json

    try:
        target = json.loads(report_path.read_text(encoding="utf-8")).get("options", {}).get("hip_version")
    except (OSError, ValueError, AttributeError):
        return None
    return str(target) if target else None
