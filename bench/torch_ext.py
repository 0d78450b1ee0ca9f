"""PyTorch extensions: hipport's port against PyTorch's own hipify, on PyTorch-facing headers and names.

    make torch-ext TORCH_EXT_CORPUS=DIR [TORCH_PYTHON=/tmp/torchvenv/bin/python]

DIR holds extension repositories, one directory each (how to get them: docs/pytorch.md). The
files compared are those that include a PyTorch CUDA header (ATen/cuda, ATen/native/cuda,
c10/cuda, THC). Each is ported twice:

- by PyTorch's hipify in extension mode, as a ROCm PyTorch runs it on a CUDAExtension's sources
  (torch.utils.hipify.hipify_python.hipify(..., is_pytorch_extension=True)), in a scratch copy, with
  the Python of a venv that has torch (TORCH_PYTHON): PyTorch is needed here only;
- by hipport (its API, default options: the newest PyTorch the rules know), and once more without
  the PyTorch dialect, which is what hipport did before it.

A file agrees when both outputs have the same PyTorch-facing headers (the include paths under
ATen/, c10/, torch/, THC/) and the same PyTorch-facing names, in order (every name the PyTorch
rules know, either spelling, and the at::/c10:: namespace that holds them). Also counted: CUDA
runtime names each port leaves (cudaX identifiers) and hipport's warp-size findings, which
hipify does not report.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SOURCE_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".h", ".hpp")
PYTORCH_CUDA_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*[<"](?:ATen/cuda|ATen/native/cuda|c10/cuda|THC/)', re.M)
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"]+)[>"]', re.M)
PYTORCH_ROOTS = ("ATen/", "c10/", "torch/", "THC", "THH")
NAMESPACE = re.compile(r"\b(?:at|c10)\s*::\s*(cuda|hip)\b")
IDENTIFIER = re.compile(r"\b[A-Za-z_]\w*\b")
CUDA_RUNTIME_NAME = re.compile(r"\bcuda[A-Z]\w*")
COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
WARP_CODES = ("HP401", "HP402", "HP403", "HP404", "HP405", "HP406", "HP407")

# Run by TORCH_PYTHON: hipify one repository's files in place (a scratch copy) -> {source: hipified}.
HIPIFY_SCRIPT = """
import json, os, sys
from torch.utils.hipify import hipify_python
root, files = sys.argv[1], json.loads(sys.stdin.read())
result = hipify_python.hipify(project_directory=root, output_directory=root, includes=[os.path.join(root, "*")],
    extra_files=files, show_detailed=False, show_progress=False, is_pytorch_extension=True,
    hipify_extra_files_only=True)
print(json.dumps({f: (result[f].hipified_path if f in result else None) for f in files}))
"""


def extension_files(repository: Path) -> list[Path]:
    found = []
    for path in sorted(repository.rglob("*")):
        if path.suffix in SOURCE_SUFFIXES and path.is_file() and PYTORCH_CUDA_INCLUDE.search(path.read_bytes()):
            found.append(path)
    return found


SPACED_INCLUDE = re.compile(rb"^([ \t]*)#[ \t]+include", re.M)


def hipify_repository(
    torch_python: str, repository: Path, files: list[Path], scratch: Path, unspaced: bool = False
) -> dict[Path, str]:
    """hipify's output for each file. unspaced: of a copy whose `#  include` lines are written
    `#include`, which is all hipify's include rewrite reads (the C preprocessor takes both)."""
    copy = scratch / (repository.name + ("-unspaced" if unspaced else ""))
    shutil.copytree(repository, copy, symlinks=True)
    copies = [str(copy / f.relative_to(repository)) for f in files]
    if unspaced:
        for name in copies:
            Path(name).write_bytes(SPACED_INCLUDE.sub(rb"\1#include", Path(name).read_bytes()))
    done = subprocess.run(
        [torch_python, "-c", HIPIFY_SCRIPT, str(copy)],
        input=json.dumps(copies),
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    if done.returncode != 0:
        raise SystemExit(f"hipify failed on {repository.name}: {done.stderr.strip().splitlines()[-1:]}")
    produced = json.loads(done.stdout.strip().splitlines()[-1])
    outputs = {}
    for original, copied in zip(files, copies):
        target = produced.get(copied) or copied
        outputs[original] = Path(target).read_text(encoding="utf-8", errors="replace")
    return outputs


def pytorch_vocabulary(rules) -> frozenset[str]:
    """Every spelling of the names the PyTorch rules know; of a qualified one (A::b), the parts that
    name a CUDA or HIP entity (not the namespaces, compared apart, nor members such as get)."""
    names: set[str] = set()
    for dialect in rules.dialects.values():
        for layer in dialect.layers:
            for table in (layer.names, layer.qualified):
                for rule in table.values():
                    for spelling in (rule.cuda, rule.hip or ""):
                        names.update(p for p in spelling.split("::") if re.search("CUDA|HIP|Cuda|Hip", p))
    return frozenset(names)


def pytorch_facing(text: str, vocabulary: frozenset[str]) -> tuple[list[str], list[str]]:
    headers = [p for p in INCLUDE.findall(text) if p.startswith(PYTORCH_ROOTS)]
    text = INCLUDE.sub("", text)
    names = [m.group(0) for m in IDENTIFIER.finditer(text) if m.group(0) in vocabulary]
    names += [f"ns:{m.group(1)}" for m in NAMESPACE.finditer(text)]
    return headers, names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=os.environ.get("TORCH_EXT_CORPUS"))
    parser.add_argument("--torch-python", default=os.environ.get("TORCH_PYTHON", "/tmp/torchvenv/bin/python"))
    parser.add_argument("--json", type=Path, help="write the per-file results here")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each file that disagrees, and why")
    args = parser.parse_args(argv)
    if args.corpus is None or not args.corpus.is_dir():
        print(
            "give --corpus DIR or TORCH_EXT_CORPUS=DIR: extension repositories, one directory each "
            "(docs/pytorch.md says how to get them)",
            file=sys.stderr,
        )
        return 2
    if not Path(args.torch_python).exists():
        print(
            f"{args.torch_python}: no such Python; make a venv with torch (docs/pytorch.md) and give TORCH_PYTHON",
            file=sys.stderr,
        )
        return 2

    from hipport.engine.port import port_source
    from hipport.options import Options
    from hipport.ruleset.loader import load_rules

    rules = load_rules()
    without = load_rules()
    without.dialects = {}  # what hipport did before the PyTorch dialect
    vocabulary = pytorch_vocabulary(rules)
    totals = {
        "files": 0,
        "agree": 0,
        "agree_unspaced": 0,
        "agree_before": 0,
        "runtime_left_hipport": 0,
        "runtime_left_hipify": 0,
        "warp_findings": 0,
        "files_with_warp_findings": 0,
    }
    rows, repositories = [], []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="torch-ext-") as scratch:
        for repository in sorted(p for p in args.corpus.iterdir() if p.is_dir()):
            files = extension_files(repository)
            if not files:
                continue
            print(f"{repository.name}: {len(files)} files", file=sys.stderr, flush=True)
            hipified = hipify_repository(args.torch_python, repository, files, Path(scratch))
            unspaced = None
            if any(SPACED_INCLUDE.search(f.read_bytes()) for f in files):
                unspaced = hipify_repository(args.torch_python, repository, files, Path(scratch), unspaced=True)
            agreed = 0
            for path in files:
                source = path.read_bytes()
                ours = port_source(source, rules, Options(), str(path)).output.decode("utf-8", "replace")
                before = port_source(source, without, Options(), str(path)).output.decode("utf-8", "replace")
                theirs = hipified[path]
                wanted = pytorch_facing(theirs, vocabulary)
                got = pytorch_facing(ours, vocabulary)
                agrees = got == wanted
                agreed += agrees
                if not agrees and unspaced is not None and got == pytorch_facing(unspaced[path], vocabulary):
                    totals["agree_unspaced"] += 1
                result = port_source(source, rules, Options(), str(path))
                warp = [f for f in result.findings if f.code in WARP_CODES]
                totals["files"] += 1
                totals["agree"] += agrees
                totals["agree_before"] += pytorch_facing(before, vocabulary) == wanted
                totals["runtime_left_hipport"] += len(CUDA_RUNTIME_NAME.findall(COMMENT.sub("", ours)))
                totals["runtime_left_hipify"] += len(CUDA_RUNTIME_NAME.findall(COMMENT.sub("", theirs)))
                totals["warp_findings"] += len(warp)
                totals["files_with_warp_findings"] += bool(warp)
                relative = str(path.relative_to(args.corpus))
                rows.append(
                    {
                        "file": relative,
                        "agrees": agrees,
                        "hipify": wanted,
                        "hipport": got,
                        "warp_findings": [f"{f.code}:{f.line}" for f in warp],
                    }
                )
                if args.verbose and not agrees:
                    print(f"  DIFFERS {relative}\n    hipify:  {wanted}\n    hipport: {got}", file=sys.stderr)
            repositories.append({"repository": repository.name, "files": len(files), "agree": agreed})
    elapsed = time.perf_counter() - started
    print(f"{'repository':40} {'files':>6} {'agree':>6}")
    for repo in repositories:
        print(f"{repo['repository']:40} {repo['files']:>6} {repo['agree']:>6}")
    n = totals["files"]
    share = 100.0 * totals["agree"] / n if n else 0.0
    print(
        f"agree with PyTorch's hipify on PyTorch-facing headers and names: {totals['agree']} of {n} files "
        f"({share:.1f}%); before the PyTorch dialect: {totals['agree_before']} of {n}"
    )
    if totals["agree_unspaced"]:
        both = totals["agree"] + totals["agree_unspaced"]
        print(
            f"{totals['agree_unspaced']} more differ only where hipify leaves a `#  include` (spaces after #) "
            f"as written, which its include rewrite does not read: with those lines written `#include`, "
            f"{both} of {n} agree ({100.0 * both / n:.1f}%)"
        )
    print(
        f"cudaX names left in code (comments aside): hipport {totals['runtime_left_hipport']}, "
        f"hipify {totals['runtime_left_hipify']}"
    )
    print(
        f"warp-size findings (hipify reports none): {totals['warp_findings']} in "
        f"{totals['files_with_warp_findings']} files; {elapsed:.1f}s"
    )
    if args.json:
        args.json.write_text(json.dumps({"totals": totals, "repositories": repositories, "files": rows}, indent=1))
    agreeing = totals["agree"] + totals["agree_unspaced"]
    return 0 if n and agreeing >= 0.95 * n else 1


if __name__ == "__main__":
    sys.exit(main())
