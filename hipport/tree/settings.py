"""How a tree is converted: the settings beyond what a single file's port needs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from hipport.tree.rename import DEFAULT_SUFFIXES
from hipport.tree.walk import Filters


@dataclass(frozen=True)
class TreeSettings:
    filters: Filters = field(default_factory=Filters)
    jobs: int = 0  # 0: one per CPU
    cache_dir: Path | None = None  # None: the user cache directory
    use_cache: bool = True
    rename: bool = False
    rename_suffixes: tuple[tuple[str, str], ...] = DEFAULT_SUFFIXES
    force: bool = False  # write into a non-empty OUT; rewrite files git has uncommitted changes to
    backup_suffix: str | None = None  # None: none in a clean git tree, .prehip otherwise
    offload_arch: tuple[str, ...] = ()  # (): the rule data's defaults for the target HIP
    include_dirs: tuple[Path, ...] = ()  # the project's -I directories besides the tree root (--include-dir)
    progress: Callable[[int, int, str], None] | None = None  # (done, total, current file)
