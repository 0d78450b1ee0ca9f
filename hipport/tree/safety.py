"""Refusals that protect the user's files: where OUT may be, and git state for --in-place."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_BACKUP_SUFFIX = ".prehip"


class SafetyError(Exception):
    """A run that would risk the user's files; the message says why and how to proceed."""


def check_output_dir(src: Path, out: Path, force: bool) -> None:
    src, out = src.resolve(), out.resolve()
    if out == src or src in out.parents:
        raise SafetyError(f"{out}: the output directory must not be inside the source tree (use --in-place)")
    if out in src.parents:
        raise SafetyError(
            f"{out}: the output directory contains the source tree, so writing it could "
            "overwrite sources; choose another directory"
        )
    if out.exists() and not out.is_dir():
        raise SafetyError(f"{out}: exists and is not a directory")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise SafetyError(f"{out}: exists and is not empty; pass --force to write into it")


@dataclass
class GitState:
    top: Path | None  # None: not inside a git work tree (or git is missing)
    uncommitted: set[Path] = field(default_factory=set)  # modified, staged, untracked or deleted

    def dirty(self, paths) -> list[Path]:
        return sorted(
            p
            for p in (Path(p).resolve() for p in paths)
            if p in self.uncommitted or (self.top is not None and not _inside(p, self.top))
        )


def git_state(directory: Path) -> GitState:
    git = shutil.which("git")
    if git is None:
        return GitState(None)
    env = dict(os.environ, LC_ALL="C")
    top = subprocess.run(
        [git, "-C", str(directory), "rev-parse", "--show-toplevel"], capture_output=True, text=True, env=env
    )
    if top.returncode != 0:
        return GitState(None)
    root = Path(top.stdout.strip()).resolve()
    status = subprocess.run(
        [
            git,
            "-C",
            str(root),
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--no-renames",
            "--ignored=no",
        ],
        capture_output=True,
        env=env,
    )
    if status.returncode != 0:
        raise SafetyError(f"{directory}: git status failed: {status.stderr.decode(errors='replace').strip()}")
    uncommitted = set()
    for record in status.stdout.split(b"\0"):
        if len(record) > 3:
            uncommitted.add((root / os.fsdecode(record[3:])).resolve())
    return GitState(root, uncommitted)


def check_in_place(state: GitState, touched: list[Path], force: bool) -> None:
    if force or state.top is None:
        return
    dirty = state.dirty(touched)
    if dirty:
        shown = ", ".join(_shown(p, state.top) for p in dirty[:5]) + (
            f" and {len(dirty) - 5} more" if len(dirty) > 5 else ""
        )
        raise SafetyError(
            f"refusing to rewrite {len(dirty)} file(s) with uncommitted changes ({shown}); "
            "commit or stash them first, or pass --force (originals are then kept as *"
            f"{DEFAULT_BACKUP_SUFFIX})"
        )


def backup_suffix(state: GitState, touched: list[Path], chosen: str | None) -> str:
    """--backup-suffix if given; none when git holds every original; .prehip otherwise."""
    if chosen is not None:
        return chosen
    if state.top is not None and not state.dirty(touched):
        return ""
    return DEFAULT_BACKUP_SUFFIX


def _inside(path: Path, top: Path) -> bool:
    return path == top or top in path.parents


def _shown(path: Path, top: Path) -> str:
    try:
        return path.relative_to(top).as_posix()
    except ValueError:
        return str(path)
