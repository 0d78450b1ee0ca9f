"""convert's options for trees, kept apart so that cli.py's convert stays short to read and extend."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path

import click

TREE_OPTIONS = [
    click.option(
        "-j",
        "--jobs",
        type=click.IntRange(min=0),
        default=0,
        metavar="N",
        help="Port files in N processes. Default: one per CPU; 1: no pool.",
    ),
    click.option(
        "--no-cache",
        is_flag=True,
        help="Port every file again instead of reusing unchanged files' ports from the cache.",
    ),
    click.option(
        "--include",
        multiple=True,
        metavar="GLOB",
        help="Port only files matching GLOB (gitignore syntax, repeatable); others are copied.",
    ),
    click.option(
        "--exclude",
        multiple=True,
        metavar="GLOB",
        help="Leave out files and directories matching GLOB (gitignore syntax, repeatable).",
    ),
    click.option("--no-gitignore", is_flag=True, help="Also convert what .gitignore files ignore."),
    click.option(
        "--source-suffix",
        multiple=True,
        metavar=".EXT",
        help="Port files ending in .EXT too (repeatable); .cu .cuh .cpp .cc .cxx .c .h .hpp .hxx .inl "
        "are ported already.",
    ),
    click.option(
        "--rename", is_flag=True, help="Rename .cu to .hip and .cuh to .hip.h; #include lines and build files follow."
    ),
    click.option(
        "--rename-suffix",
        multiple=True,
        metavar="OLD=NEW",
        help="A renaming rule such as .cuh=.hpp (repeatable; implies --rename).",
    ),
    click.option(
        "--force",
        is_flag=True,
        help="Write into a non-empty OUT; with --in-place, also rewrite files with uncommitted changes.",
    ),
    click.option(
        "--backup-suffix",
        metavar="SUFFIX",
        help="With --in-place, keep each original as FILE+SUFFIX ('' for none). "
        "Default: none in a clean git tree, .prehip otherwise.",
    ),
    click.option(
        "--include-dir",
        "include_dir",
        multiple=True,
        metavar="DIR",
        type=click.Path(exists=True, file_okay=False, path_type=Path),
        help="A directory the project's build passes with -I (repeatable). Macros its headers "
        "define (a CUDA_CHECK) are the project's own names, in every file that includes them "
        'as "x.h" or <x.h>. The tree root, and -p\'s -I directories inside it, count already.',
    ),
    click.option(
        "--offload-arch",
        metavar="GFX[;GFX]",
        help="AMD GPU targets that build files' sm_XX become. Default: gfx90a;gfx942, "
        "leaving out targets newer than --hip-version.",
    ),
]
TREE_KEYS = (
    "jobs",
    "no_cache",
    "include",
    "exclude",
    "no_gitignore",
    "source_suffix",
    "rename",
    "rename_suffix",
    "force",
    "backup_suffix",
    "offload_arch",
    "include_dir",
)


def tree_options(command):
    for option in reversed(TREE_OPTIONS):
        command = option(command)
    return command


def tree_settings(values: dict, progress=None):
    """TreeSettings from convert's tree options; raises click.BadParameter for a bad value."""
    import dataclasses

    from hipport.tree.rename import DEFAULT_SUFFIXES, parse_suffix_map
    from hipport.tree.settings import TreeSettings
    from hipport.tree.walk import Filters

    suffixes = set(Filters().source_suffixes)
    for suffix in values.get("source_suffix", ()):
        if not suffix.startswith(".") or "/" in suffix:
            raise click.BadParameter(f"{suffix!r} is not a file suffix like .cu", param_hint="--source-suffix")
        suffixes.add(suffix.lower())
    try:
        rename_suffixes = (
            parse_suffix_map(values.get("rename_suffix", ())) if values.get("rename_suffix") else DEFAULT_SUFFIXES
        )
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--rename-suffix") from None
    arches = tuple(a for a in (values.get("offload_arch") or "").replace(",", ";").split(";") if a.strip())
    filters = dataclasses.replace(
        Filters(),
        include=tuple(values.get("include", ())),
        exclude=tuple(values.get("exclude", ())),
        gitignore=not values.get("no_gitignore", False),
        source_suffixes=frozenset(suffixes),
    )
    return TreeSettings(
        filters=filters,
        jobs=values.get("jobs", 0),
        use_cache=not values.get("no_cache", False),
        rename=bool(values.get("rename") or values.get("rename_suffix")),
        rename_suffixes=rename_suffixes,
        force=values.get("force", False),
        backup_suffix=values.get("backup_suffix"),
        offload_arch=tuple(a.strip() for a in arches),
        progress=progress,
        include_dirs=tuple(values.get("include_dir", ())),
    )


def shows_progress(quiet: bool) -> bool:
    """A bar only for a person watching: not with --quiet, in CI, or when stderr is not a terminal."""
    from hipport.console import shows_progress as watched

    return not quiet and watched(sys.stderr)


@contextmanager
def progress_bar(enabled: bool, label: str = "hipport convert", unit: str = "files"):
    """Yields a progress(done, total, current) callback (None when disabled)."""
    if not enabled:
        yield None
        return
    from hipport.console import Progress

    with Progress(label, unit) as progress:
        yield progress.update
