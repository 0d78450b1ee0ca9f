#!/usr/bin/env python3
"""Generate rules/generated/arity-*.toml: mapped calls whose argument counts differ.

For every CUDA -> HIP function pair of the reference rules (rules/generated/*.toml),
read the declarations of both names in the installed headers, and record each
argument count a CUDA call may have that no HIP declaration accepts: such a call,
renamed, does not compile. The record is an [[argument_rewrite]] finding (HP106)
for that count, with both parameter lists; rules/arguments.toml, loaded later,
replaces it where hipport knows the rewrite. The legacy handle-less cuBLAS calls
(cublas.h) are compared with cuBLAS's own v2 API instead: a call with the legacy
count is reported (HP107) and not renamed.

    python tools/gen_arity.py [--out rules/generated] [--cuda-include DIR]... [--hip-include DIR]...

CUDA headers are looked up in the --cuda-include directories, then the include
directory beside nvcc, /usr/local/cuda/include, and the nvidia/*/include folders
of the Python packages nvidia-cusparse, nvidia-cublas, nvidia-curand (pip install
them to get their headers: `pip install -e '.[arity]'`). HIP headers in
--hip-include, then /opt/rocm/include and /usr/include. A file whose headers are
missing is not written; --check exits 1 when a written file would change.
"""
from __future__ import annotations

import argparse
import glob
import re
import shutil
import sys
import sysconfig
import tomllib
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_rules import notice_comment  # noqa: E402  (tools/ is not a package)

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Library:
    """One output file: the reference rules it compares and the headers that declare them."""

    name: str
    reference: str  # rules/generated/<reference>.toml
    cuda_headers: tuple[str, ...]
    hip_headers: tuple[str, ...]  # globs under a HIP include root


LIBRARIES = (
    Library("runtime", "runtime", ("cuda_runtime_api.h", "cuda_runtime.h"),
            ("hip/hip_runtime_api.h", "hip/amd_detail/amd_hip_runtime.h", "hip/amd_detail/functional_grid_launch.hpp")),
    Library("driver", "driver", ("cuda.h",), ("hip/hip_runtime_api.h",)),
    Library("cusparse", "cusparse", ("cusparse.h",), ("hipsparse/hipsparse.h",)),
    Library("curand", "curand", ("curand.h",), ("hiprand/hiprand.h",)),
)
LEGACY_CUBLAS = ("cublas.h", "cublas_api.h", "cublas_v2.h")

_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_DIRECTIVE = re.compile(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", re.M)
_DEFAULT_MACRO = re.compile(r"\b(?:__dparm|__dv)\s*\(")
_NOT_A_TYPE = {"return", "else", "if", "while", "for", "sizeof", "case", "throw", "new", "delete", "decltype"}
_V2_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(cublas\w+)[ \t]+(cublas\w+_v2)\b", re.M)


@dataclass(frozen=True)
class Declaration:
    parameters: tuple[str, ...]
    required: int  # parameters without a default

    @property
    def counts(self) -> range:
        return range(self.required, len(self.parameters) + 1)


def cuda_roots(extra: list[Path]) -> list[Path]:
    roots = list(extra)
    nvcc = shutil.which("nvcc")
    if nvcc:
        roots.append(Path(nvcc).resolve().parent.parent / "include")
    roots.append(Path("/usr/local/cuda/include"))
    purelib = sysconfig.get_paths()["purelib"]
    roots += [Path(p) for p in sorted(glob.glob(f"{purelib}/nvidia/*/include"))]
    return [r for r in roots if r.is_dir()]


def hip_roots(extra: list[Path]) -> list[Path]:
    return [r for r in [*extra, Path("/opt/rocm/include"), Path("/usr/include")] if (r / "hip").is_dir() or
            (r / "hipsparse").is_dir() or (r / "hiprand").is_dir()]


def find(roots: list[Path], relative: str) -> list[Path]:
    for root in roots:
        hits = sorted(root.glob(relative))
        if hits:
            return hits
    return []


def code_of(path: Path) -> str:
    return code_of_text(path.read_text(encoding="utf-8", errors="replace"))


def code_of_text(text: str) -> str:
    """A header's code: comments and preprocessor lines blanked (declarations inside #if stay)."""
    text = _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)
    return _DIRECTIVE.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)


def declarations(code: str, names: set[str]) -> dict[str, set[Declaration]]:
    """Every function declaration or definition of one of names in code."""
    found: dict[str, set[Declaration]] = {}
    for m in re.finditer(r"\b([A-Za-z_]\w*)\s*\(", code):
        name = m.group(1)
        if name not in names:
            continue
        before = code[:m.start()].rstrip()
        previous = re.search(r"([\w]+|[^\w\s])\s*\Z", before)
        if previous is None or previous.group(1) in _NOT_A_TYPE:
            continue
        token = previous.group(1)
        if not (re.fullmatch(r"\w+", token) or token in ("*", "&", ">")):
            continue  # a call inside an expression: (, =, ',' ...
        close = _matching(code, m.end() - 1)
        if close is None:
            continue
        after = code[close + 1:close + 200].lstrip()
        after = re.sub(r"^(?:(?:const|noexcept|throw\s*\(\s*\)|__attribute__\s*\(\(.*?\)\)|[A-Z_][A-Z0-9_]*)\s*)*",
                       "", after, flags=re.S)
        if not after.startswith((";", "{")):
            continue
        found.setdefault(name, set()).add(_declaration(code[m.end():close]))
    return found


def _matching(code: str, open_at: int) -> int | None:
    depth = 0
    for i in range(open_at, min(len(code), open_at + 4000)):
        c = code[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
    return None


def _declaration(inside: str) -> Declaration:
    parameters = [" ".join(p.split()) for p in _split(inside)]
    if parameters in ([""], ["void"]):
        return Declaration((), 0)
    required = 0
    for p in parameters:
        if "=" in p or _DEFAULT_MACRO.search(p) or p == "...":
            break
        required += 1
    return Declaration(tuple(_DEFAULT_MACRO.sub("= (", p) for p in parameters), required)


def _split(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in "(<[{":
            depth += 1
        elif c in ")>]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts]


def reference_pairs(reference: str) -> list[tuple[str, str]]:
    data = tomllib.loads((ROOT / "rules" / "generated" / f"{reference}.toml").read_text(encoding="utf-8"))
    return sorted((r["cuda"], r["hip"]) for r in data.get("rename", []) if r.get("kind") == "function")


def _version(roots: list[Path], header: str, pattern: str) -> str:
    for path in find(roots, header):
        m = re.search(pattern, path.read_text(encoding="utf-8", errors="replace"), re.M)
        if m:
            return ".".join(g for g in m.groups() if g is not None)
    return "unknown"


def _shown(declarations: set[Declaration]) -> str:
    shown = sorted({", ".join(d.parameters) for d in declarations}, key=len)
    return " | ".join(f"({s})" for s in shown)


def _counts(declarations: set[Declaration]) -> set[int]:
    return {n for d in declarations for n in d.counts}


def _toml(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def compare(library: Library, cuda: list[Path], hip: list[Path]) -> str | None:
    """The arity file for library, or None when its headers are not installed."""
    cuda_files = [p for h in library.cuda_headers for p in find(cuda, h)]
    hip_files = [p for h in library.hip_headers for p in find(hip, h)]
    if len(cuda_files) < len(library.cuda_headers) or not hip_files:
        return None
    pairs = reference_pairs(library.reference)
    cuda_code = "\n".join(code_of(p) for p in cuda_files)
    hip_code = "\n".join(code_of(p) for p in hip_files)
    cuda_decls = declarations(cuda_code, {c for c, _ in pairs})
    hip_decls = declarations(hip_code, {h for _, h in pairs})
    lines, compared = [], 0
    for cuda_name, hip_name in pairs:
        if cuda_name not in cuda_decls or hip_name not in hip_decls:
            continue
        compared += 1
        missing = sorted(_counts(cuda_decls[cuda_name]) - _counts(hip_decls[hip_name]))
        for count in missing:
            message = (f"{hip_name} takes {_plural(_counts(hip_decls[hip_name]))} {_shown(hip_decls[hip_name])}; "
                       f"this call passes {count}, as only CUDA's {cuda_name} {_shown(cuda_decls[cuda_name])} "
                       f"accepts: rewrite its arguments by hand")
            lines.append(f"  {{ cuda = {_toml(cuda_name)}, count = {count}, message = {_toml(message)} }},")
    headers = ", ".join(library.cuda_headers)
    return _file(f"{library.reference}.toml pairs whose CUDA argument counts HIP does not accept",
                 f"CUDA {_cuda_version(cuda)} ({headers}) against HIP {_hip_version(hip)} "
                 f"({', '.join(library.hip_headers)}); {compared} pairs compared, {len(lines)} differences", lines)


def compare_legacy_cublas(cuda: list[Path]) -> str | None:
    files = [p for h in LEGACY_CUBLAS for p in find(cuda, h)]
    if len(files) < len(LEGACY_CUBLAS):
        return None
    legacy_code = code_of(files[0])
    v2_names = dict(_V2_DEFINE.findall(files[2].read_text(encoding="utf-8", errors="replace")))
    mapped = {c for c, _ in reference_pairs("cublas")}
    legacy = declarations(legacy_code, mapped)
    v2 = declarations(code_of(files[1]), set(v2_names.values()) | mapped)
    lines = []
    for name in sorted(legacy):
        modern = v2.get(v2_names.get(name, name))
        if modern is None:
            continue
        for count in sorted(_counts(legacy[name]) - _counts(modern)):
            message = (f"{name} with {count} arguments is the legacy cuBLAS API (cublas.h, no handle: "
                       f"{_shown(legacy[name])}), which hipBLAS does not have; port it to the v2 API "
                       f"{_shown(modern)} with a handle (cublas_v2.h) first, then port that")
            lines.append(f"  {{ cuda = {_toml(name)}, count = {count}, keep_name = true, code = \"HP107\", "
                         f"message = {_toml(message)} }},")
    major = _version(cuda, "cublas_api.h", r"#define CUBLAS_VER_MAJOR (\d+)")
    return _file("legacy handle-less cuBLAS calls (cublas.h) against cuBLAS's v2 API (cublas_api.h)",
                 f"cuBLAS {major}.x; "
                 f"{len(legacy)} legacy functions read, {len(lines)} differences", lines)


def _plural(counts: set[int]) -> str:
    shown = sorted(counts)
    if len(shown) == 1:
        return f"{shown[0]} argument{'s' if shown[0] != 1 else ''}"
    return f"{shown[0]} to {shown[-1]} arguments"


def _cuda_version(roots: list[Path]) -> str:
    value = _version(roots, "cuda.h", r"^#define CUDA_VERSION (\d+)")
    return f"{int(value) // 1000}.{int(value) % 1000 // 10}" if value.isdigit() else value


def _hip_version(roots: list[Path]) -> str:
    return _version(roots, "hip/hip_version.h", r"^#define HIP_VERSION_MAJOR (\d+)") + "." + \
        _version(roots, "hip/hip_version.h", r"^#define HIP_VERSION_MINOR (\d+)")


def _file(what: str, source: str, lines: list[str]) -> str:
    body = "\n".join(lines)
    return (f"# Generated by tools/gen_arity.py: {what}.\n# From {source}.\n"
            "# Do not edit: rules/arguments.toml, loaded after this file, says how to rewrite the calls it can.\n"
            "# The pairs compared come from HIPIFY's tables (rules/generated), under this notice:\n#\n"
            + "".join(line + "\n" for line in notice_comment()) + "schema = 1\n\n" + (f"argument_rewrite = [\n{body}\n]\n" if lines else ""))


def generate(cuda_extra: list[Path], hip_extra: list[Path]) -> dict[str, str | None]:
    cuda, hip = cuda_roots(cuda_extra), hip_roots(hip_extra)
    out: dict[str, str | None] = {f"arity-{lib.name}.toml": compare(lib, cuda, hip) for lib in LIBRARIES}
    out["arity-cublas-legacy.toml"] = compare_legacy_cublas(cuda)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "rules" / "generated")
    parser.add_argument("--cuda-include", type=Path, action="append", default=[])
    parser.add_argument("--hip-include", type=Path, action="append", default=[])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file would change")
    args = parser.parse_args(argv)
    stale = 0
    for name, text in generate(args.cuda_include, args.hip_include).items():
        target = args.out / name
        if text is None:
            print(f"{name}: headers not installed, left as it is", file=sys.stderr)
            continue
        if args.check:
            if not target.is_file() or target.read_text(encoding="utf-8") != text:
                print(f"{name}: stale", file=sys.stderr)
                stale += 1
            continue
        args.out.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        print(f"{name}: {text.count(chr(10) + '  {')} rules", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
