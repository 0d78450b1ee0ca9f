"""PyTorch extensions: hipport's port against PyTorch's own hipify, on PyTorch-facing headers and names.

    make torch-ext TORCH_EXT_CORPUS=DIR [TORCH_PYTHON=/tmp/torchvenv/bin/python] [TORCH_EXT_FLAGS=...]

DIR holds extension repositories, one directory each (how to get them: docs/pytorch.md). The
files compared are those that include a PyTorch CUDA header (ATen/cuda, ATen/native/cuda,
c10/cuda, THC). Each is ported twice:

- by PyTorch's hipify in extension mode, as a ROCm PyTorch runs it on a CUDAExtension's sources
  (torch.utils.hipify.hipify_python.hipify(..., is_pytorch_extension=True)), in a scratch copy, with
  the Python of a venv that has torch (TORCH_PYTHON): PyTorch is needed here only;
- by hipport (its API, default options: the newest PyTorch the rules know), and once more without
  the PyTorch dialect, which is what hipport did before it.

--release DIR (repeatable) also compares each older release: DIR is an unpacked torch package
(DIR/utils/hipify, DIR/version.py; docs/pytorch.md says how to unpack one), whose hipify runs
from a stub package, against hipport with --torch-version of that release.

A file agrees when both outputs have the same PyTorch-facing headers (the include paths under
ATen/, c10/, torch/, THC/) and the same PyTorch-facing names, in order (every name the PyTorch
rules know, either spelling, and the at::/c10:: namespace that holds them, in code: comments
aside). A file that does not agree counts for the gate only when bench/torch_ext_reviewed.toml
lists it, checked by hand, and it still differs exactly as listed there. Also counted: CUDA
runtime names each port leaves (cudaX identifiers) and hipport's warp-size findings, which hipify
does not report.
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
import tomllib
from dataclasses import dataclass, field
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
SPACED_INCLUDE = re.compile(rb"^([ \t]*)#[ \t]+include", re.M)
REVIEWED = Path(__file__).with_name("torch_ext_reviewed.toml")
GATE = 0.95

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


@dataclass
class Peer:
    """One PyTorch release's hipify: how to run it, and the release hipport targets to match it."""

    python: str
    release: str | None = None  # None: the installed torch's, which hipport's default targets
    pythonpath: str | None = None  # a stub package holding an unpacked release's hipify

    @property
    def title(self) -> str:
        return f"PyTorch {self.release}'s hipify" if self.release else "PyTorch's hipify"


@dataclass
class Tally:
    files: int = 0
    agree: int = 0
    reviewed: int = 0  # differ, and hipport is right (bench/torch_ext_reviewed.toml)
    agree_before: int = 0
    runtime_left_hipport: int = 0
    runtime_left_hipify: int = 0
    warp_findings: int = 0
    files_with_warp_findings: int = 0
    repositories: list[dict] = field(default_factory=list)
    rows: list[dict] = field(default_factory=list)


def extension_files(repository: Path) -> list[Path]:
    found = []
    for path in sorted(repository.rglob("*")):
        if path.suffix in SOURCE_SUFFIXES and path.is_file() and PYTORCH_CUDA_INCLUDE.search(path.read_bytes()):
            found.append(path)
    return found


def hipify_repository(peer: Peer, repository: Path, files: list[Path], scratch: Path, unspaced: bool = False):
    """hipify's output for each file. unspaced: of a copy whose `#  include` lines are written
    `#include`, which is all hipify's include rewrite reads (the C preprocessor takes both)."""
    copy = scratch / (repository.name + ("-unspaced" if unspaced else "") + (peer.release or ""))
    shutil.copytree(repository, copy, symlinks=True)
    copies = [str(copy / f.relative_to(repository)) for f in files]
    if unspaced:
        for name in copies:
            Path(name).write_bytes(SPACED_INCLUDE.sub(rb"\1#include", Path(name).read_bytes()))
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    if peer.pythonpath:
        env["PYTHONPATH"] = peer.pythonpath
    done = subprocess.run(
        [peer.python, "-c", HIPIFY_SCRIPT, str(copy)],
        input=json.dumps(copies),
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    if done.returncode != 0:
        raise SystemExit(f"hipify failed on {repository.name}: {done.stderr.strip().splitlines()[-1:]}")
    produced = json.loads(done.stdout.strip().splitlines()[-1])
    outputs = {}
    for original, copied in zip(files, copies):
        target = produced.get(copied) or copied
        outputs[original] = Path(target).read_text(encoding="utf-8", errors="replace")
    return outputs


def release_peer(unpacked: Path, scratch: Path) -> Peer:
    """A peer for an unpacked torch package: its hipify imported from a stub `torch` package (hipify
    needs nothing else of torch), run by this Python."""
    version = re.search(r"__version__\s*=\s*'(\d+\.\d+)", (unpacked / "version.py").read_text())
    if version is None:
        raise SystemExit(f"{unpacked}/version.py: no __version__")
    stub = scratch / f"stub-{version.group(1)}"
    (stub / "torch" / "utils").mkdir(parents=True)
    (stub / "torch" / "__init__.py").write_text("")
    (stub / "torch" / "utils" / "__init__.py").write_text("")
    (stub / "torch" / "utils" / "hipify").symlink_to((unpacked / "utils" / "hipify").resolve())
    return Peer(sys.executable, version.group(1), str(stub))


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
    """The PyTorch headers included, and the PyTorch names used in code: hipify also rewrites
    comments (`// for C10_CUDA_CHECK`), which no build reads, so they are left out."""
    headers = [p for p in INCLUDE.findall(text) if p.startswith(PYTORCH_ROOTS)]
    text = COMMENT.sub("", INCLUDE.sub("", text))
    names = [m.group(0) for m in IDENTIFIER.finditer(text) if m.group(0) in vocabulary]
    names += [f"ns:{m.group(1)}" for m in NAMESPACE.finditer(text)]
    return headers, names


def load_reviewed(path: Path = REVIEWED) -> dict[str, dict]:
    """file -> {headers: the CUDA headers hipify leaves and hipport ports, why}, checked by hand."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return {entry["file"]: entry for entry in data.get("reviewed", [])}


def still_as_reviewed(entry: dict, wanted, got, unspaced) -> bool:
    """A reviewed file counts while it differs only as its review says: hipify keeps the listed
    CUDA headers, hipport writes what hipify writes for them as `#include`, and nothing else differs."""
    if unspaced is None or got != unspaced:
        return False
    left = [h for h, ours in zip(wanted[0], got[0]) if h != ours]
    return len(wanted[0]) == len(got[0]) and wanted[1] == got[1] and sorted(left) == sorted(entry["headers"])


def measure(corpus: Path, peer: Peer, verbose: bool) -> Tally:
    from hipport.ruleset.loader import load_rules

    rules = load_rules()
    without = load_rules()
    without.dialects = {}  # what hipport did before the PyTorch dialect
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="torch-ext-") as scratch:
        for repository in sorted(p for p in corpus.iterdir() if p.is_dir()):
            files = extension_files(repository)
            if files:
                print(f"{repository.name}: {len(files)} files ({peer.title})", file=sys.stderr, flush=True)
                _measure_repository(tally, corpus, repository, files, peer, (rules, without), Path(scratch), verbose)
    return tally


def _measure_repository(tally: Tally, corpus, repository, files, peer: Peer, rule_sets, scratch, verbose) -> None:
    from hipport.engine.port import port_source
    from hipport.options import Options

    rules, without = rule_sets
    vocabulary = pytorch_vocabulary(rules)
    reviewed = load_reviewed()
    options = Options(dialect_versions=(("pytorch", peer.release),)) if peer.release else Options()
    hipified = hipify_repository(peer, repository, files, scratch)
    unspaced = None
    if any(SPACED_INCLUDE.search(f.read_bytes()) for f in files):
        unspaced = hipify_repository(peer, repository, files, scratch, unspaced=True)
    agreed = 0
    for path in files:
        source = path.read_bytes()
        result = port_source(source, rules, options, str(path))
        ours = result.output.decode("utf-8", "replace")
        before = port_source(source, without, options, str(path)).output.decode("utf-8", "replace")
        theirs = hipified[path]
        wanted, got = pytorch_facing(theirs, vocabulary), pytorch_facing(ours, vocabulary)
        relative = str(path.relative_to(corpus))
        agrees = got == wanted
        right = not agrees and relative in reviewed
        if right:
            right = still_as_reviewed(
                reviewed[relative], wanted, got, pytorch_facing(unspaced[path], vocabulary) if unspaced else None
            )
        warp = [f for f in result.findings if f.code in WARP_CODES]
        agreed += agrees
        tally.files += 1
        tally.agree += agrees
        tally.reviewed += right
        tally.agree_before += pytorch_facing(before, vocabulary) == wanted
        tally.runtime_left_hipport += len(CUDA_RUNTIME_NAME.findall(COMMENT.sub("", ours)))
        tally.runtime_left_hipify += len(CUDA_RUNTIME_NAME.findall(COMMENT.sub("", theirs)))
        tally.warp_findings += len(warp)
        tally.files_with_warp_findings += bool(warp)
        tally.rows.append(
            {
                "file": relative,
                "agrees": agrees,
                "hipport_right_reviewed": right,
                "hipify": wanted,
                "hipport": got,
                "warp_findings": [f"{f.code}:{f.line}" for f in warp],
            }
        )
        if verbose and not agrees:
            why = " (reviewed: hipport right)" if right else ""
            print(f"  DIFFERS{why} {relative}\n    hipify:  {wanted}\n    hipport: {got}", file=sys.stderr)
    tally.repositories.append({"repository": repository.name, "files": len(files), "agree": agreed})


def print_tally(tally: Tally, peer: Peer) -> bool:
    """The figures; True when the defensible figure (agree, plus reviewed files where hipport is
    right) reaches the gate."""
    n = tally.files
    target = f" (hipport --torch-version {peer.release})" if peer.release else ""
    print(f"\n{peer.title}{target}")
    print(f"{'repository':40} {'files':>6} {'agree':>6}")
    for repo in tally.repositories:
        print(f"{repo['repository']:40} {repo['files']:>6} {repo['agree']:>6}")
    print(
        f"agree on PyTorch-facing headers and names: {tally.agree} of {n} files ({_share(tally.agree, n)}), "
        f"the raw figure; before the PyTorch dialect: {tally.agree_before} of {n}"
    )
    defended = tally.agree + tally.reviewed
    print(
        f"differ where hipport is right, checked by hand ({REVIEWED.name}): {tally.reviewed}; "
        f"agree or hipport right: {defended} of {n} ({_share(defended, n)}), the gated figure (>= {GATE:.0%})"
    )
    print(
        f"cudaX names left in code (comments aside): hipport {tally.runtime_left_hipport}, "
        f"hipify {tally.runtime_left_hipify}"
    )
    print(f"warp-size findings (hipify reports none): {tally.warp_findings} in {tally.files_with_warp_findings} files")
    return bool(n) and defended >= GATE * n


def _share(count: int, total: int) -> str:
    return f"{100.0 * count / total:.1f}%" if total else "n/a"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=os.environ.get("TORCH_EXT_CORPUS"))
    parser.add_argument("--torch-python", default=os.environ.get("TORCH_PYTHON", "/tmp/torchvenv/bin/python"))
    parser.add_argument(
        "--release",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="also compare an older release's hipify: DIR is its unpacked torch package",
    )
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
    started = time.perf_counter()
    results, passed = {}, True
    with tempfile.TemporaryDirectory(prefix="torch-ext-stubs-") as stubs:
        for peer in [Peer(args.torch_python), *(release_peer(d, Path(stubs)) for d in args.release)]:
            tally = measure(args.corpus, peer, args.verbose)
            passed = print_tally(tally, peer) and passed
            results[peer.release or "installed"] = tally.__dict__
    print(f"{time.perf_counter() - started:.1f}s")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
