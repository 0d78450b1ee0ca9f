"""The parser layer. make_backend picks the backend a run's options ask for.

Callers ask for a backend per file (`make_backend(options).for_file(path)`), so
a precise backend can parse the translation unit the file belongs to; the
tree-sitter backend ignores the path. A clang session is kept per distinct set
of parser options, so every file of a run shares the translation units parsed.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from hipport.options import Options


class _TreeSitterSession:
    name = "treesitter"

    def for_file(self, path: Path | str):
        from hipport.parse.treesitter import TreeSitterBackend

        return TreeSitterBackend()


def make_backend(options: Options):
    """The session for these options: an object whose for_file(path) has parse().

    Raises CompileDatabaseError or ClangSetupError for a database or CUDA path
    that cannot be used; callers report them in one line.
    """
    if options.parser_in_use == "clang":
        return _clang_session(options.compile_commands, options.clang_args, options.cuda_path)
    return _TreeSitterSession()


def backend_for(options: Options, path: Path | str):
    return make_backend(options).for_file(path)


@lru_cache(maxsize=8)
def _clang_session(compile_commands: Path | None, clang_args: tuple[str, ...], cuda_path: Path | None):
    from hipport.parse.clang import ClangSession

    return ClangSession(compile_commands, clang_args, cuda_path)
