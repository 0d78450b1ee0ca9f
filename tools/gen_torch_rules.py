#!/usr/bin/env python3
"""Generate the PyTorch dialect's rules from the facts in PyTorch releases.

A ROCm build of PyTorch runs PyTorch's own hipify on an extension's sources (extension mode of
torch.utils.hipify). What it rewrites there, and what a ROCm PyTorch declares, are facts read here
from unpacked torch packages, one per release (nothing is imported or executed):

- torch/utils/hipify/cuda_to_hip_mappings.py: the ordered CUDA -> HIP tables, read with `ast`;
- torch/utils/hipify/hipify_python.py: the include prefixes whose headers are renamed by path
  (ATen/cuda/...), read with `ast`;
- torch/include/{ATen,c10}/**/cuda: the PyTorch CUDA headers a release installs, and the macros and
  names they declare with CUDA in them.

Two generations of hipify differ: before PyTorch 2.11 (hipify 1.x) the extension map renamed
PyTorch's CUDA names to the "MasqueradingAsCUDA" spellings; from 2.11 (hipify 2.0) a ROCm PyTorch
declares the CUDA spellings itself and only the headers move. So two files are written, each for a
range of target PyTorch releases:

    rules/generated/pytorch.toml               target PyTorch >= the first hipify-2 release
    rules/generated/pytorch-masquerading.toml  target PyTorch < that release

    python tools/gen_torch_rules.py --torch DIR [--torch DIR ...] [--out rules/generated] [--check]

Each DIR is an unpacked `torch` package directory (site-packages/torch of a venv, or the `torch/`
of an unzipped wheel). `make torch-rules` runs it with the releases under $TORCH_RELEASES.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DIALECT = "pytorch"
LIBRARY = "PyTorch"
# The tables of cuda_to_hip_mappings.py that are PyTorch's own (the rest are CUDA runtime and
# library names, which hipport's HIPIFY-derived rules already cover).
PYTORCH_TABLES = ("C10_MAPPINGS", "PYTORCH_SPECIFIC_MAPPINGS")
# PyTorch-table entries that are not PyTorch's C++ API: other libraries' names PyTorch's own build
# needs (cuDNN RNN modes, gloo, MAGMA, NVSHMEM), environment variables, test files.
NOT_PYTORCH_API = re.compile(r"^(cudnn|CUDNN|gloo|magma|nvshmem|NVSHMEM|CUDA_LAUNCH_BLOCKING|CUDATest)")
PYTORCH_HEADER_ROOTS = ("ATen/", "c10/", "torch/", "THC")
HEADER_SUFFIXES = (".h", ".hpp", ".cuh")
IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
# Names a PyTorch CUDA header declares or defines: class/struct/function/macro names with CUDA in them.
DECLARED = re.compile(
    r"#\s*define\s+(\w*CUDA\w*)"
    r"|\b(?:class|struct|using)\s+(?:TORCH_\w+\s+|C10_\w+\s+)?(\w*CUDA\w*)\b"
    r"|\b(\w*CUDA\w*)\s*\("
)


@dataclass
class Release:
    version: str
    hipify: str  # hipify's own version: "1.0.0" renames PyTorch's CUDA names, "2.0.0" keeps them
    tables: dict[str, list[tuple[str, str, tuple[str, ...]]]]
    order: list[str]  # CUDA_TO_HIP_MAPPINGS: the tables in the order hipify merges them
    path_prefixes: tuple[str, ...]
    path_words: tuple[str, ...] = ()  # "cuda=hip": what hipify replaces in a renamed header's path
    headers: list[str] = field(default_factory=list)  # installed PyTorch CUDA headers, include paths
    declared: set[str] = field(default_factory=set)  # names with CUDA those headers declare

    @property
    def keeps_cuda_names(self) -> bool:
        return version_key(self.hipify) >= (2,)


def version_key(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", text.split("+")[0])[:3])


def short(version: str) -> str:
    major, minor, *_ = version_key(version) + (0, 0)
    return f"{major}.{minor}"


def read_release(torch_dir: Path) -> Release:
    hipify = torch_dir / "utils" / "hipify"
    version = _assigned_string(torch_dir / "version.py", "__version__")
    hipify_version = "1.0.0"  # releases before hipify 2.0 have no version.py
    if (hipify / "version.py").exists():
        hipify_version = _assigned_string(hipify / "version.py", "__version__")
    tables, order = _tables(hipify / "cuda_to_hip_mappings.py")
    script = hipify / "hipify_python.py"
    release = Release(version.split("+")[0], hipify_version, tables, order, _path_prefixes(script), _path_words(script))
    include = torch_dir / "include"
    for path in sorted(include.glob("**/*")) if include.is_dir() else ():
        relative = path.relative_to(include).as_posix()
        if path.suffix in HEADER_SUFFIXES and "/cuda/" in f"/{relative}" and relative.startswith(("ATen/", "c10/")):
            release.headers.append(relative)
            text = path.read_text(encoding="utf-8", errors="replace")
            release.declared.update(n for m in DECLARED.finditer(text) for n in m.groups() if n)
    return release


def _assigned_string(path: Path, name: str) -> str:
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets) and isinstance(node.value, ast.Constant):
                return str(node.value.value)
    raise SystemExit(f"{path}: no {name} = '...'")


def _tables(path: Path) -> tuple[dict[str, list[tuple[str, str, tuple[str, ...]]]], list[str]]:
    """Each OrderedDict([...]) table as (cuda, hip, markers) in file order, and the merge order."""
    tables: dict[str, list[tuple[str, str, tuple[str, ...]]]] = {}
    order: list[str] = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if not (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)):
            continue
        name, value = node.targets[0].id, node.value
        if name == "CUDA_TO_HIP_MAPPINGS" and isinstance(value, ast.List):
            order = [e.id for e in value.elts if isinstance(e, ast.Name)]
        elif isinstance(value, ast.Call) and value.args and isinstance(value.args[0], ast.List):
            tables[name] = [entry for e in value.args[0].elts if (entry := _entry(e)) is not None]
    return tables, order


def _entry(node: ast.expr) -> tuple[str, str, tuple[str, ...]] | None:
    """("cuda", "hip") or ("cuda", ("hip", API_X, ...)): the pair and the marker constants' names."""
    if not (isinstance(node, ast.Tuple) and len(node.elts) == 2 and isinstance(node.elts[0], ast.Constant)):
        return None
    cuda, target = node.elts[0].value, node.elts[1]
    if isinstance(target, ast.Constant):
        return str(cuda), str(target.value), ()
    if isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[0], ast.Constant):
        markers = tuple(e.id for e in target.elts[1:] if isinstance(e, ast.Name))
        return str(cuda), str(target.elts[0].value), markers
    return None


def _path_prefixes(path: Path) -> tuple[str, ...]:
    """The include prefixes hipify renames by path: the string constants its preprocessor tests
    an include against with startswith (ATen/cuda, ATen/native/cuda, ..., THC/)."""
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "startswith" and node.args:
            argument = node.args[0]
            values = argument.elts if isinstance(argument, ast.Tuple) else [argument]
            for value in values:
                text = value.value if isinstance(value, ast.Constant) else None
                if isinstance(text, str) and text.startswith(("ATen/", "THC/")) and text not in found:
                    found.append(text)
    return tuple(found)


def _path_words(path: str | Path) -> tuple[str, ...]:
    """The replace('cuda', 'hip') calls of hipify's get_hip_file_path, in order, as "cuda=hip"."""
    for node in ast.walk(ast.parse(Path(path).read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef) and node.name == "get_hip_file_path":
            words = []
            for call in ast.walk(node):
                if isinstance(call, ast.Call) and getattr(call.func, "attr", "") == "replace" and len(call.args) == 2:
                    old, new = (a.value if isinstance(a, ast.Constant) else None for a in call.args)
                    if isinstance(old, str) and isinstance(new, str) and f"{old}={new}" not in words:
                        words.append(f"{old}={new}")
            return tuple(words)
    return ()


def extension_map(release: Release) -> dict[str, tuple[str, str]]:
    """cuda -> (hip, table) as extension-mode hipify merges the tables: in CUDA_TO_HIP_MAPPINGS
    order, a later entry replacing an earlier one; hipify 1.x leaves out Caffe2's entries and lets a
    'special' entry never replace an earlier one."""
    merged: dict[str, tuple[str, str]] = {}
    for table in release.order:
        for cuda, hip, markers in release.tables.get(table, ()):
            if "API_CAFFE2" in markers:
                continue
            if "API_SPECIAL" in markers and cuda in merged:
                continue
            merged[cuda] = (hip, table)
    return merged


def pytorch_facing(cuda: str) -> bool:
    if NOT_PYTORCH_API.match(cuda) or "hip" in cuda.lower() or " " in cuda or "=" in cuda:
        return False
    if cuda.endswith(HEADER_SUFFIXES):
        return cuda.startswith(PYTORCH_HEADER_ROOTS)
    return all(IDENTIFIER.fullmatch(part) for part in cuda.split("::"))


def pytorch_entries(release: Release) -> dict[str, str]:
    return {
        cuda: hip
        for cuda, (hip, table) in extension_map(release).items()
        if table in PYTORCH_TABLES and pytorch_facing(cuda)
    }


def hip_header_path(path: str, words: tuple[str, ...]) -> str:
    """Where a ROCm PyTorch has a header hipify renames by path: its words replaced in the
    directories and the file name (ATen/cuda/CUDAContext.h -> ATen/hip/HIPContext.h)."""
    for word in words:
        old, new = word.split("=")
        path = path.replace(old, new)
    return path


def first_release(releases: list[Release], test) -> str | None:
    for release in releases:
        if test(release):
            return release.version
    return None


def _toml_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _inline(entry: dict) -> str:
    parts = []
    for key, value in entry.items():
        if isinstance(value, list):
            text = "[" + ", ".join(_toml_string(v) for v in value) + "]"
        else:
            text = "true" if value is True else _toml_string(value) if isinstance(value, str) else repr(value)
        parts.append(f"{key} = {text}")
    return "  { " + ", ".join(parts) + " },"


def _block(kind: str, entries: list[dict]) -> list[str]:
    return [f"{kind} = [", *(_inline(e) for e in entries), "]", ""] if entries else []


def _since(releases: list[Release], test) -> str:
    """'since 2.4', or 'in 1.13 or earlier' when the oldest release read already has it."""
    first = first_release(releases, test)
    if first is None:
        return ""
    return f"in {short(first)} or earlier" if first == releases[0].version else f"since {short(first)}"


def kept_names(releases: list[Release], older: list[Release], newest: Release, boundary: str) -> dict[str, str]:
    """CUDA-spelled PyTorch names a ROCm PyTorch of newest's generation declares as they are -> note."""
    renamed_before: dict[str, str] = {}
    for release in older:
        for cuda, hip in pytorch_entries(release).items():
            if not cuda.endswith(HEADER_SUFFIXES) and "::" not in cuda and cuda != hip:
                renamed_before[cuda] = hip
    current = pytorch_entries(newest)
    names = (set(renamed_before) | newest.declared) - set(current)
    notes = {}
    for name in sorted(n for n in names if not re.match(r"(cuda[A-Z_]|cu[A-Z]|CU_|CUDA_)", n)):
        note = f"a ROCm PyTorch {boundary} or later declares '{name}' under its CUDA name (hipify leaves it)"
        if name in renamed_before:
            since = _since(older, lambda r, n=name: n in pytorch_entries(r))
            note += (
                f"; hipify before it wrote '{renamed_before[name]}' ({since}), which newer releases keep "
                "for old hipified code"
            )
        notes[name] = note
    return notes


def dialect_rules(
    releases: list[Release], newest: Release, older: list[Release], keeps: bool, boundary: str = ""
) -> dict[str, list[dict]]:
    entries = pytorch_entries(newest)
    headers, renames, qualified, macros = [], [], [], []
    for cuda, hip in sorted(entries.items()):
        since = _since(releases, lambda r, c=cuda, h=hip: pytorch_entries(r).get(c) == h)
        note = f"hipify's extension map ({since})"
        if cuda.endswith(HEADER_SUFFIXES):
            headers.append({"cuda": cuda, "hip": hip, "library": LIBRARY, "note": note})
        elif "::" in cuda:
            qualified.append({"cuda": cuda, "hip": hip, "library": LIBRARY, "note": note})
        elif cuda != hip:
            renames.append({"cuda": cuda, "hip": hip, "library": LIBRARY, "kind": "name", "note": note})
            if cuda.isupper():  # a macro: tested in #if too, where hipport's macro rules apply
                macros.append({"cuda": cuda, "hip": hip, "note": note})
    for prefix in newest.path_prefixes:
        directory = prefix if prefix.endswith("/") else prefix + "/"
        since = _since(releases, lambda r, p=prefix: p in r.path_prefixes)
        headers.append(
            {
                "cuda": directory,
                "hip": hip_header_path(directory, newest.path_words),
                "library": LIBRARY,
                "rename_words": list(newest.path_words),
                "note": f"hipify renames every header under {directory} by path ({since})",
            }
        )
    renamed = {r["cuda"] for r in renames}
    for name, note in kept_names(releases, older, newest, boundary).items() if keeps else ():
        renames.append({"cuda": name, "hip": name, "library": LIBRARY, "kind": "kept", "note": note})
    if not keeps:
        for name in sorted(newest.declared - renamed - set(entries)):
            if not re.match(r"(cuda[A-Z_]|cu[A-Z]|CU_|CUDA_)", name):
                note = f"a ROCm PyTorch {short(newest.version)} declares '{name}' under its CUDA name; hipify leaves it"
                renames.append({"cuda": name, "hip": name, "library": LIBRARY, "kind": "kept", "note": note})
    return {"header": headers, "rename": renames, "qualified": qualified, "macro": macros}


NOTICE_HEAD = """\
# The facts are PyTorch's (https://github.com/pytorch/pytorch), read by the tool, not copied:
# torch/utils/hipify's tables and include rule and the headers torch/include installs, under
# PyTorch's licence (BSD-3-Clause):
#
# Copyright (c) 2016-     Facebook, Inc            (Adam Paszke)
# Copyright (c) 2014-     Facebook, Inc            (Soumith Chintala)
# Copyright (c) 2011-2014 Idiap Research Institute (Ronan Collobert)
# Copyright (c) 2012-2014 Deepmind Technologies    (Koray Kavukcuoglu)
# Copyright (c) 2011-2012 NEC Laboratories America (Koray Kavukcuoglu)
# Copyright (c) 2011-2013 NYU                      (Clement Farabet)
# Copyright (c) 2006-2010 NEC Laboratories America (Ronan Collobert, Leon Bottou, Iain Melvin, Jason Weston)
# Copyright (c) 2006      Idiap Research Institute (Samy Bengio)
# Copyright (c) 2001-2004 Idiap Research Institute (Ronan Collobert, Samy Bengio, Johnny Mariethoz)
#
# Redistribution and use in source and binary forms, with or without modification, are permitted
# provided that the following conditions are met:
# 1. Redistributions of source code must retain the above copyright notice, this list of
#    conditions and the following disclaimer.
# 2. Redistributions in binary form must reproduce the above copyright notice, this list of
#    conditions and the following disclaimer in the documentation and/or other materials provided
#    with the distribution.
# 3. Neither the names of Facebook, Deepmind Technologies, NYU, NEC Laboratories America and IDIAP
#    Research Institute nor the names of its contributors may be used to endorse or promote
#    products derived from this software without specific prior written permission.
# THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS" AND ANY EXPRESS OR
# IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE IMPLIED WARRANTIES OF MERCHANTABILITY AND
# FITNESS FOR A PARTICULAR PURPOSE ARE DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT OWNER OR
# CONTRIBUTORS BE LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL
# DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR SERVICES; LOSS OF USE,
# DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER CAUSED AND ON ANY THEORY OF LIABILITY,
# WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY
# WAY OUT OF THE USE OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
"""


def render(rules: dict[str, list[dict]], what: str, releases: list[Release], source: Release, bounds: dict) -> str:
    read = ", ".join(short(r.version) for r in releases)
    lines = [
        f"# Generated by tools/gen_torch_rules.py: the PyTorch dialect for {what}.",
        f"# Facts of PyTorch {source.version} (hipify {source.hipify}); releases read: {read}.",
        "# Do not edit: regenerate (make torch-rules). rules/pytorch.toml, loaded after it, adds what",
        "# the facts cannot say (how extension code is recognised, headers a ROCm PyTorch lacks).",
        NOTICE_HEAD.rstrip("\n"),
        "schema = 1",
        f'library = "{LIBRARY}"',
        f'dialect = "{DIALECT}"',
        *(f'{key} = "{value}"' for key, value in bounds.items()),
        f'dialect_facts = "{source.version}"',
        "",
    ]
    for kind in ("header", "rename", "macro", "qualified"):
        lines += _block(kind, rules.get(kind, []))
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--torch", action="append", type=Path, required=True, help="an unpacked torch package")
    parser.add_argument("--out", type=Path, default=ROOT / "rules" / "generated")
    parser.add_argument("--check", action="store_true", help="compare with the files in --out instead of writing")
    args = parser.parse_args(argv)
    releases = sorted((read_release(d) for d in args.torch), key=lambda r: version_key(r.version))
    keeping = [r for r in releases if r.keeps_cuda_names]
    renaming = [r for r in releases if not r.keeps_cuda_names]
    outputs: dict[str, str] = {}
    if keeping:
        boundary = short(keeping[0].version)
        bounds = {"dialect_since": boundary} if renaming else {}
        rules = dialect_rules(releases, keeping[-1], renaming, keeps=True, boundary=boundary)
        outputs["pytorch.toml"] = render(rules, f"target PyTorch {boundary} and later", releases, keeping[-1], bounds)
    if renaming:
        bounds = {"dialect_until": short(keeping[0].version)} if keeping else {}
        rules = dialect_rules(releases, renaming[-1], [], keeps=False)
        what = f"target PyTorch before {bounds['dialect_until']}" if bounds else "every target PyTorch"
        outputs["pytorch-masquerading.toml"] = render(rules, what, releases, renaming[-1], bounds)
    stale = []
    for name, text in outputs.items():
        path = args.out / name
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(str(path))
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    if stale:
        print("out of date (run make torch-rules): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
