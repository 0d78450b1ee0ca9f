"""What a cache key says about the hipport that wrote the entry.

The version alone is not enough: in a source checkout the code changes while
`__version__` stays put, and an entry written by older code (a port, the
compiled rule set, the tree index) would be served to newer code as if it were
its own. So the identity adds the stat signature (path, size, mtime) of every
module of the package: a stat per module, no reads, and an installed wheel's
files never change, so its identity is as stable as its version.
"""

from __future__ import annotations

import functools
import hashlib
import os

from hipport import __version__


@functools.cache
def code_identity() -> str:
    return identity_of(os.path.dirname(os.path.abspath(__file__)))


def identity_of(package: str) -> str:
    digest = hashlib.sha256(__version__.encode())
    for folder, dirs, files in os.walk(package):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                st = os.stat(path)
                digest.update(f"{os.path.relpath(path, package)}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    return f"{__version__}+{digest.hexdigest()[:16]}"
