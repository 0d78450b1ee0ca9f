"""compile_commands.json: which files are translation units, and clang flags for each.

Entries compiled by nvcc are translated to clang's CUDA driver flags: the GPU
architecture becomes --cuda-gpu-arch, and flags only nvcc knows (-Xcompiler,
--expt-*, -lineinfo, -rdc, ...) are dropped. From any compiler only what changes
how the code reads is kept: include paths, macros, forced includes, the
language standard. Relative paths are made absolute against the entry's
directory, since libclang runs in hipport's working directory.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path


class CompileDatabaseError(Exception):
    """An unreadable or malformed compile database: reported in one line."""


@dataclass(frozen=True)
class CompileEntry:
    file: Path  # absolute
    directory: Path
    flags: tuple[str, ...]  # clang flags, without the compiler, -c, -o and the file itself
    gpu_archs: tuple[str, ...]  # sm_XX, from -arch/-gencode/--cuda-gpu-arch
    language: str | None = None  # "cuda", "c++" or "c" when the command says (-x cu); else by suffix


# Flags kept with their value, whether joined (-Ifoo, -std=c++17) or separate (-I foo).
_PATH_FLAGS = ("-I", "-isystem", "-iquote", "-idirafter", "-include", "-imacros")
_VALUE_FLAGS = ("-D", "-U")
# Flags whose value is a separate argument, dropped together with it: nvcc's,
# and the few gcc/clang ones that appear in build commands.
_GCC_WITH_VALUE = frozenset({"-o", "-x", "-MF", "-MT", "-MQ", "-Xclang", "-Xlinker", "-Xassembler", "-arch"})
_NVCC_WITH_VALUE = _GCC_WITH_VALUE | frozenset(
    {
        "-Xcompiler",
        "--compiler-options",
        "-Xptxas",
        "--ptxas-options",
        "-Xlinker",
        "--linker-options",
        "-Xnvlink",
        "--nvlink-options",
        "-Xarchive",
        "--archive-options",
        "-Xcudafe",
        "-ccbin",
        "--compiler-bindir",
        "-maxrregcount",
        "--maxrregcount",
        "--default-stream",
        "-t",
        "--threads",
        "-MF",
        "-MT",
        "-MQ",
        "-odir",
        "--output-directory",
        "--options-file",
        "-optf",
        "-L",
        "-l",
        "-o",
        "--output-file",
        "-x",
        "--x",
        "-code",
        "--gpu-code",
        "-rdc",
        "--relocatable-device-code",
        "-dlto",
        "--split-compile",
        "-split-compile",
        "-Werror",
        "--Werror",
        "-diag-suppress",
        "--diag-suppress",
        "-target-dir",
        "--target-directory",
        "-ftemplate-depth",
        "--resource-usage",
    }
)
_ARCH = re.compile(r"(?:sm|compute)_(\d+[a-z]?)")


def load(path: Path) -> dict[Path, CompileEntry]:
    """The database at path (a file, or a build directory holding one), keyed by absolute file."""
    path = Path(path)
    if path.is_dir():
        path = path / "compile_commands.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CompileDatabaseError(f"{path}: cannot read: {exc.strerror}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise CompileDatabaseError(f"{path}: not valid JSON: {exc}") from None
    if not isinstance(data, list):
        raise CompileDatabaseError(f"{path}: expected a JSON array of compile commands")
    entries: dict[Path, CompileEntry] = {}
    for index, raw in enumerate(data):
        entry = _entry(raw, path, index)
        entries.setdefault(entry.file, entry)  # the first command for a file wins, as clang tools do
    return entries


def _entry(raw, path: Path, index: int) -> CompileEntry:
    where = f"{path}: entry {index + 1}"
    if not isinstance(raw, dict) or not isinstance(raw.get("file"), str) or not isinstance(raw.get("directory"), str):
        raise CompileDatabaseError(f"{where}: needs 'directory' and 'file' strings")
    if isinstance(raw.get("arguments"), list) and all(isinstance(a, str) for a in raw["arguments"]):
        argv = list(raw["arguments"])
    elif isinstance(raw.get("command"), str):
        try:
            argv = shlex.split(raw["command"])
        except ValueError as exc:
            raise CompileDatabaseError(f"{where}: cannot split 'command': {exc}") from None
    else:
        raise CompileDatabaseError(f"{where}: needs 'arguments' (a list of strings) or 'command'")
    directory = (
        (path.parent / raw["directory"]).resolve()
        if not Path(raw["directory"]).is_absolute()
        else Path(raw["directory"])
    )
    file = Path(raw["file"])
    file = (directory / file) if not file.is_absolute() else file
    flags, archs = translate(argv, directory, file)
    return CompileEntry(file.resolve(), directory, tuple(flags), tuple(archs), _language(argv))


def translate(argv: list[str], directory: Path, source: Path | None = None) -> tuple[list[str], list[str]]:
    """Clang flags and GPU architectures from one compiler command line (nvcc, clang or gcc)."""
    flags: list[str] = []
    archs: list[str] = []
    args = _expand_option_files(argv[1:], directory)
    with_value = _NVCC_WITH_VALUE if argv and "nvcc" in Path(argv[0]).name else _GCC_WITH_VALUE
    i = 0
    while i < len(args):
        arg = args[i]
        nxt = args[i + 1] if i + 1 < len(args) else None
        i += 1
        if source is not None and not arg.startswith("-") and _same_file(arg, directory, source):
            continue
        flag, value, took_next = _split(arg, nxt, with_value)
        if flag in _PATH_FLAGS and value is not None:
            flags += [flag, _absolute(value, directory)]
        elif flag in _VALUE_FLAGS and value is not None:
            flags.append(flag + value)
        elif flag in ("-std", "--std") and value is not None:
            flags.append(f"-std={value}")
        elif (
            flag in ("-arch", "--gpu-architecture", "--cuda-gpu-arch", "-gencode", "--generate-code", "--offload-arch")
            and value is not None
        ):
            archs += [f"sm_{m}" for m in _ARCH.findall(value)]
        elif flag in with_value and took_next:
            pass  # dropped together with its value
        else:
            took_next = False  # anything else is dropped alone: -O2, -g, -lineinfo, --expt-*, -fPIC...
        if took_next:
            i += 1
    return flags, list(dict.fromkeys(archs))


_LANGUAGES = {"cu": "cuda", "cuda": "cuda", "c++": "c++", "c": "c"}


def _language(argv: list[str]) -> str | None:
    for flag, value in itertools.pairwise(argv):
        if flag in ("-x", "--x") and value in _LANGUAGES:
            return _LANGUAGES[value]
    for arg in argv:
        if arg.startswith(("-x=", "--x=")) and arg.split("=", 1)[1] in _LANGUAGES:
            return _LANGUAGES[arg.split("=", 1)[1]]
    return None


def _expand_option_files(args: list[str], directory: Path, depth: int = 0) -> list[str]:
    """Inline nvcc's --options-file F (CMake puts include paths there) and @F response files."""
    expanded: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        name = None
        if arg in ("--options-file", "-optf") and i < len(args):
            name, i = args[i], i + 1
        elif arg.startswith(("--options-file=", "-optf=")):
            name = arg.split("=", 1)[1]
        elif arg.startswith("@") and len(arg) > 1:
            name = arg[1:]
        if name is None:
            expanded.append(arg)
            continue
        try:
            text = Path(_absolute(name, directory)).read_text(encoding="utf-8")
            inner = shlex.split(text)
        except (OSError, ValueError, UnicodeDecodeError):
            continue  # a missing file: the parse will say what it could not find
        if depth < 4:
            expanded += _expand_option_files(inner, directory, depth + 1)
    return expanded


def _split(arg: str, nxt: str | None, with_value: frozenset[str]) -> tuple[str, str | None, bool]:
    """(flag, value, whether the value is the next argument) for -Ifoo, -I foo, -std=x, --std x."""
    for flag in (*_PATH_FLAGS, *_VALUE_FLAGS):
        if arg == flag:
            return flag, nxt, nxt is not None
    if arg.startswith(("-I", "-D", "-U")):  # joined: -Iinc, -DN=1 (whose '=' belongs to the value)
        return arg[:2], arg[2:], False
    if "=" in arg and arg.startswith("-"):
        flag, value = arg.split("=", 1)
        return flag, value, False
    if arg in ("-std", "--std", "--gpu-architecture", "-gencode", "--generate-code") or arg in with_value:
        return arg, nxt, nxt is not None
    return arg, None, False


def _absolute(value: str, directory: Path) -> str:
    # Normalised without touching the disk: the build directory may be gone.
    return os.path.normpath(os.path.join(directory, value))


def _same_file(arg: str, directory: Path, source: Path) -> bool:
    path = Path(arg)
    path = path if path.is_absolute() else directory / path
    try:
        return path.resolve() == source.resolve()
    except OSError:
        return False
