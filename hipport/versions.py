"""HIP version strings ("5.2", "6.2.0") as comparable tuples."""

from __future__ import annotations

import re
from functools import lru_cache

_VERSION = re.compile(r"^\d+(\.\d+){0,2}$")

Version = tuple[int, int, int]


@lru_cache(maxsize=1024)  # the engine asks about the same few rule versions for every name it ports
def parse_version(text: str) -> Version:
    if not _VERSION.match(text.strip()):
        raise ValueError(f"not a version: {text!r} (expected X.Y or X.Y.Z)")
    parts = [int(p) for p in text.strip().split(".")]
    return tuple(parts + [0] * (3 - len(parts)))  # type: ignore[return-value]


def format_version(version: Version) -> str:
    major, minor, patch = version
    return f"{major}.{minor}" if patch == 0 else f"{major}.{minor}.{patch}"


INSTALLED = "installed"  # --hip-version installed / hip-version = "installed": what hipconfig reports


class InstalledVersionError(ValueError):
    """`installed` was asked for and hipconfig could not say: one line, not a usage error."""


def installed_hip_version(hipconfig: str = "hipconfig") -> Version:
    """X.Y of the installed HIP, from `hipconfig --version` ('5.2.21153-0' -> (5, 2, 0))."""
    import subprocess

    try:
        done = subprocess.run([hipconfig, "--version"], capture_output=True, text=True, timeout=60)
    except FileNotFoundError:
        raise InstalledVersionError(
            f"--hip-version {INSTALLED}: {hipconfig} is not on PATH; name the target instead (--hip-version X.Y)"
        ) from None
    except (OSError, subprocess.SubprocessError) as exc:
        raise InstalledVersionError(f"--hip-version {INSTALLED}: cannot run {hipconfig}: {exc}") from None
    m = re.match(r"\s*(\d+)\.(\d+)", done.stdout)
    if done.returncode != 0 or m is None:
        said = (done.stdout.strip() or done.stderr.strip()).splitlines()[:1]
        raise InstalledVersionError(
            f"--hip-version {INSTALLED}: '{hipconfig} --version' gave no version"
            + (f" ({said[0]!r})" if said else f" (exit status {done.returncode})")
        )
    return (int(m.group(1)), int(m.group(2)), 0)


def target_version(text: str | None) -> Version | None:
    """The --hip-version (or hip-version setting) asked for: None for the newest the rules know,
    `installed` for hipconfig's, else X.Y[.Z]. ValueError for anything else."""
    if not text:
        return None
    if text.strip() == INSTALLED:
        return installed_hip_version()
    return parse_version(text)
