"""What every command shares: one-line failures, the rule set, options and settings from flags and config."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn

import click


def _fail(message: str) -> NoReturn:
    click.echo(f"hipport: {message}", err=True)
    sys.exit(2)


def _load_rules(user_rules: tuple[str, ...]):
    from hipport.ruleset.loader import load_rules
    from hipport.ruleset.schema import RuleFileError

    try:
        return load_rules([Path(p) for p in user_rules])
    except RuleFileError as exc:
        _fail(rule_file_message(exc))
    except FileNotFoundError as exc:
        _fail(str(exc))


def rule_file_message(exc) -> str:
    """file:line: message, or file: message for what is about no line (a file that cannot be read)."""
    return f"{exc.path}:{exc.line}: {exc.message}" if exc.line else f"{exc.path}: {exc.message}"


def _options(hip_version: str | None, launch_syntax: str, roc: bool, platform: str = "both"):
    from hipport.options import Options
    from hipport.versions import InstalledVersionError, target_version

    try:
        version = target_version(hip_version)
    except InstalledVersionError as exc:
        _fail(str(exc))
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--hip-version") from None
    return Options(hip_version=version, launch_syntax=launch_syntax, roc=roc, platform=platform)


def _parser_options(
    options, parser: str, compile_commands: Path | None, clang_args: tuple[str, ...], cuda_path: Path | None
):
    """options with the parser settings, checked now so that a bad database is one line, not a traceback."""
    import dataclasses

    from hipport.parse import make_backend
    from hipport.parse.clang.env import ClangSetupError
    from hipport.toolchain.compdb import CompileDatabaseError

    if parser == "treesitter" and (compile_commands or clang_args or cuda_path):
        raise click.UsageError("-p, --clang-arg and --cuda-path need --parser clang or auto")
    options = dataclasses.replace(
        options, parser=parser, compile_commands=compile_commands, clang_args=tuple(clang_args), cuda_path=cuda_path
    )
    try:
        make_backend(options)
    except (CompileDatabaseError, ClangSetupError) as exc:
        _fail(str(exc))
    return options


def _settings(config_path: Path | None, **flags):
    """Merge [tool.hipport] from pyproject.toml with the flags given (flags win)."""
    from hipport.config import ConfigError, find_config, load_config, merge

    try:
        config = load_config(config_path if config_path is not None else find_config())
    except ConfigError as exc:
        _fail(str(exc))
    return merge(config, **flags)


def _codes(values: tuple[str, ...]) -> tuple[str, ...]:
    from hipport.check import split_codes

    return split_codes(values)


def _print_findings(results, base: Path | None = None, every: bool = False) -> None:
    """path:line:col lines; a tree's paths are joined to the tree, so an editor can open them.
    Past 10 findings of one code in one file, unless every, one line counts the rest."""
    from hipport.check import finding_lines

    def shown(result) -> str:
        return (base / result.path).as_posix() if base is not None else result.path

    for line in finding_lines(((shown(r), f) for r in results for f in r.findings), every):
        click.echo(line, err=True)


def _print_summary(summary: dict, elapsed: float) -> None:
    sev = summary["findings_by_severity"]
    click.echo(
        f"hipport: {summary['files']} file(s), {summary['changed']} changed, {summary['edits']} edit(s), "
        f"{summary['converted']} reference(s) ported, {summary['unmapped']} unmapped; "
        f"{sev['error']} error(s), {sev['warning']} warning(s), {sev['info']} info; {elapsed:.2f}s",
        err=True,
    )


# Options several commands share, spelled once so their names and help stay the same everywhere.
HIP_VERSION_METAVAR = "X.Y|installed"
hip_version_option = click.option(
    "--hip-version",
    metavar=HIP_VERSION_METAVAR,
    help="Target HIP version; names newer than it are reported. 'installed': what hipconfig --version says. "
    "Default: the newest the rules know.",
)
platform_option = click.option(
    "--platform",
    type=click.Choice(["both", "amd", "nvidia"]),
    default=None,
    help="What the HIP code must build for: both (default) reports AMD-only HIP spellings (HP441); amd allows them.",
)
torch_version_option = click.option(
    "--torch-version",
    metavar="X.Y",
    help="The ROCm PyTorch a PyTorch extension's port builds against: before 2.11 the port writes hipify's "
    "MasqueradingAsCUDA names, from 2.11 on it keeps PyTorch's CUDA names. Default: the newest the rules know.",
)


def with_torch_version(options, torch_version: str | None):
    """options targeting that PyTorch release (the pytorch dialect's rules, rules/pytorch.toml)."""
    import dataclasses

    from hipport.versions import parse_version

    if torch_version is None:
        return options
    try:
        parse_version(torch_version)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--torch-version") from None
    return dataclasses.replace(options, dialect_versions=(("pytorch", torch_version),))


rules_option = click.option(
    "--rules",
    "user_rules",
    multiple=True,
    metavar="FILE",
    help="Extra rule file (repeatable); its rules win over the built-in ones.",
)
config_option = click.option(
    "--config",
    "config_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="pyproject.toml to read [tool.hipport] from. Default: the closest one upwards.",
)
all_findings_option = click.option(
    "--all-findings",
    is_flag=True,
    help="List every finding. Default: past 10 of one code in one file, one line counts the rest.",
)
