"""Peak memory of porting one big file, as a multiple of the file's size (guarantee 3).

    python bench/memory.py                 # 10 and 50 MB of CUDA, a 50 MB single line, 10 MB of dense names
    python bench/memory.py --sizes 5 --shapes cuda   # quicker (other shapes' rows are kept)
    python bench/memory.py --sizes 8 --shapes calls-function calls-line sum-line   # issue 22's

Each measurement runs in a fresh interpreter: it loads the rules, ports a
small file to warm up, records its RSS (the baseline: interpreter, grammar,
rules), then ports the big file in memory with hipport.api.port_bytes and
records the peak RSS (VmHWM). The multiple is (peak - baseline) / file size:
what the file itself costs. The peak is also read after the scan and after the
parse (candidates, then sites and the syntax tree), to show what the rest of
the port adds. A second row runs the real command line (`hipport convert FILE
-o OUT`) and reports its whole-process peak.
Nothing is asserted: results are printed and written to bench/memory.json.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import corpus as corpus_gen  # noqa: E402  (bench/ is scripts, not a package)

SHAPES = {
    # name: how the file is made
    "cuda": "generated CUDA (kernels, runtime and cuBLAS calls), the benchmark corpus's big file",
    "single-line": "the same CUDA without its comments and preprocessor lines, joined into one line",
    "dense": "`cudaFree(p); ` repeated: a name to port every 13 bytes, the worst case for edits",
    # issue 22's shapes: one line, no cut the chunked parse may take
    "calls-function": "one line: `void f(void*p,int n){` and `cudaMalloc(&p,n);` repeated, one huge function",
    "calls-line": "one line of `cudaMalloc(&p,n);` repeated at file scope (statements, no declarations)",
    "sum-line": "one line `int x = a+a+...+b;`: a deep expression without a name to port",
}
_ONE_SIZE = ("dense", "calls-function", "calls-line", "sum-line")  # at the smallest size only
_CLI_ROW = ("cuda", "calls-function", "calls-line", "sum-line")

_PROBE = r"""
import json, resource, sys, time
from pathlib import Path
from hipport.api import port_bytes
from hipport.options import Options
from hipport.parse.treesitter import TreeSitterBackend
from hipport.engine import port as engine
from hipport.ruleset.loader import load_rules

def hwm_kb():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

def after(phases, name, function):
    def measured(*args, **kwargs):
        value = function(*args, **kwargs)
        phases[name] = hwm_kb()
        return value
    return measured

rules = load_rules()
port_bytes(b"#include <cuda_runtime.h>\n__global__ void k() {}\nvoid f() { k<<<1, 1>>>(); cudaFree(0); }\n",
           rules, Options(), "warm.cu")
phases = {}
engine.scan = after(phases, "scan", engine.scan)
TreeSitterBackend.parse = after(phases, "parse", TreeSitterBackend.parse)
source = Path(sys.argv[1]).read_bytes()
baseline = hwm_kb()
started = time.perf_counter()
result = port_bytes(source, rules, Options(), "big.cu")
seconds = time.perf_counter() - started
print(json.dumps({"baseline_kb": baseline, "peak_kb": hwm_kb(), "seconds": seconds, "phases_kb": phases,
                  "edits": len(result.edits), "findings": len(result.findings)}))
"""


def make(shape: str, path: Path, megabytes: float) -> int:
    size = int(megabytes * 1_000_000)
    if shape == "dense":
        unit = b"cudaFree(p); "
        path.write_bytes(unit * (size // len(unit)))
    elif shape in ("calls-function", "calls-line"):
        calls = b"cudaMalloc(&p,n);" * (size // 17)
        path.write_bytes(b"void f(void*p,int n){" + calls + b"}\n" if shape == "calls-function" else calls)
    elif shape == "sum-line":
        path.write_bytes(b"int x = " + b"a+" * (size // 2) + b"b;\n")
    else:
        corpus_gen.big_file(path, megabytes, seed=1)
        if shape == "single-line":
            lines = path.read_bytes().splitlines()
            code = (re.sub(rb"//.*", b"", line) for line in lines if not line.lstrip().startswith(b"#"))
            path.write_bytes(b" ".join(code))
    return path.stat().st_size


def in_process(path: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", _PROBE, str(path)], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def command_line(path: Path, out: Path) -> dict:
    hipport = Path(sys.executable).with_name("hipport")
    started = time.perf_counter()
    proc = subprocess.Popen([str(hipport), "convert", str(path), "-o", str(out), "-q"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)  # this child's own peak, not the earlier probes'
    seconds = time.perf_counter() - started
    if status != 0:
        raise SystemExit(f"hipport convert {path} failed")
    return {"peak_kb": usage.ru_maxrss, "seconds": seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[10, 50], help="file sizes in MB")
    parser.add_argument("--shapes", nargs="+", default=list(SHAPES), choices=list(SHAPES))
    parser.add_argument("--output", type=Path, default=HERE / "memory.json")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="hipport-memory-") as tmp:
        for shape in args.shapes:
            for megabytes in args.sizes:
                if (shape == "single-line" and megabytes != max(args.sizes)) or \
                        (shape in _ONE_SIZE and megabytes != min(args.sizes)):
                    continue  # one size each: dense at 50 MB would need some 5 GB
                path = Path(tmp) / f"{shape}-{megabytes:g}MB.cu"
                size = make(shape, path, megabytes)
                probe = in_process(path)
                row = {
                    "shape": shape, "bytes": size,
                    "baseline_mb": round(probe["baseline_kb"] / 1024, 1),
                    "peak_mb": round(probe["peak_kb"] / 1024, 1),
                    "multiple_of_size": round((probe["peak_kb"] - probe["baseline_kb"]) * 1024 / size, 2),
                    # the peak so far once the scanner, then the parser, had finished
                    **{f"after_{phase}_multiple": round((kb - probe["baseline_kb"]) * 1024 / size, 2)
                       for phase, kb in probe["phases_kb"].items()},
                    "seconds": round(probe["seconds"], 1), "edits": probe["edits"],
                }
                if shape in _CLI_ROW:
                    cli = command_line(path, Path(tmp) / "out.hip")
                    row["cli_peak_mb"] = round(cli["peak_kb"] / 1024, 1)
                    row["cli_seconds"] = round(cli["seconds"], 1)
                rows.append(row)
                print(f"{shape:12} {size / 1e6:6.1f} MB  peak {row['peak_mb']:7.1f} MB  (baseline "
                      f"{row['baseline_mb']} MB)  x{row['multiple_of_size']:.2f} of the file "
                      f"(x{row.get('after_scan_multiple', 0):.1f} after the scan, "
                      f"x{row.get('after_parse_multiple', 0):.1f} after the parse)  {row['seconds']}s"
                      + (f"  | CLI peak {row['cli_peak_mb']} MB in {row['cli_seconds']}s" if "cli_peak_mb" in row else ""),
                      flush=True)
                path.unlink()
    # rows of the shapes not measured this time are kept from the last run
    kept = []
    if args.output.exists():
        kept = [r for r in json.loads(args.output.read_text())["rows"] if r["shape"] not in args.shapes]
    args.output.write_text(json.dumps({"machine": platform.platform(), "python": platform.python_version(),
                                       "shapes": SHAPES, "rows": kept + rows}, indent=2) + "\n")
    print(f"written to {args.output}")


if __name__ == "__main__":
    main()
