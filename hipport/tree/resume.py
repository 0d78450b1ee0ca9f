"""An interrupted mirror is finished by running the same command again.

OUT must be empty unless --force, so that hipport never writes over a directory
that is not its own. A run that stopped part-way (Ctrl-C, a full disk) leaves
OUT part-written, and a rerun would be refused. So a mirror run records, before
it writes anything, that it has begun writing OUT from SRC, and removes the
record when it has finished: a rerun that finds the record resumes, writing
into OUT as --force would (files already right are left alone). The record
lives beside the port cache, never in OUT. Where it cannot be written, the
advice after an interruption says --force instead.
"""

from __future__ import annotations

from pathlib import Path

from hipport.emit.writer import write_private
from hipport.tree.cache import cache_root
from hipport.tree.index import index_file

SUFFIX = ".unfinished"


def _record(cache_dir: Path | None, src: Path, out: Path) -> Path:
    # beside the port cache, not in it: --no-cache reads and writes no cache entry, yet resumes
    name = index_file(Path(), src, out).with_suffix(SUFFIX).name
    return (cache_dir or cache_root()).parent / "unfinished" / name


def unfinished(cache_dir: Path | None, src: Path, out: Path) -> bool:
    """True if a run from src into out began writing and did not finish."""
    return _record(cache_dir, src, out).is_file()


def begin(cache_dir: Path | None, src: Path, out: Path) -> bool:
    """Record that a run from src is about to write into out; False if it cannot be recorded."""
    record = _record(cache_dir, src, out)
    data = f"{Path(src).resolve()}\n{Path(out).resolve()}\n".encode("utf-8", "surrogateescape")
    try:
        try:
            write_private(record, data)
        except FileNotFoundError:
            record.parent.mkdir(parents=True, exist_ok=True)
            write_private(record, data)
    except OSError:
        return False
    return True


def finish(cache_dir: Path | None, src: Path, out: Path) -> None:
    try:
        _record(cache_dir, src, out).unlink()
    except OSError:
        pass
