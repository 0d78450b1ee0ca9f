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
    target = port_target(request.report_path, config.hip_version)
    if hip_path is None and request.platform == "amd":
        hip_path = target_headers_if_needed(target)
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
        target=target,
    )
    return settings, config


def port_target(report_path: Path | None, configured: str | None) -> str:
    """X.Y of the HIP release the port targets: its report's, else the hip-version setting's, else the
    newest the rules know (convert's default)."""
    from hipport.cli.common import _load_rules
    from hipport.versions import format_version, parse_version

    for text in (_report_target(report_path), configured):
        try:
            if text and text != "installed":
                return ".".join(format_version(parse_version(text)).split(".")[:2])
        except ValueError:
            pass
    return ".".join(format_version(_load_rules(()).newest_hip).split(".")[:2])


def target_headers_if_needed(target: str) -> Path | None:
    """The target's HIP headers where hipcc's own are another release and a copy of the target's is
    found (hipport/toolchain/discover.py); None keeps hipcc's own."""
    import shutil

    from hipport.toolchain import header_version
    from hipport.toolchain.discover import target_headers

    hipcc = shutil.which("hipcc")
    if hipcc is None or header_version(Path(hipcc).resolve().parent.parent / "include") == target:
        return None
    return target_headers(target, Path.cwd())


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
    target = _report_target(report_path) or settings.target
    if target and headers.version and toolchain.platform == "amd":
        from hipport.versions import parse_version

        try:
            newer = parse_version(str(target)) > parse_version(headers.version)
        except ValueError:
            newer = False
        if newer:
            line += (
                f"; the port targets HIP {target}, newer than these headers: failures may be the headers', "
                f"not the port's. Add --hip-path DIR (DIR/include/hip/hip_runtime.h of HIP {target}), or "
                f"convert with --hip-version {headers.version}"
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
