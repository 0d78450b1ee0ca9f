"""cuda-samples on a real GPU: do the ported programs compute what the CUDA originals compute?

Two steps, so that the port happens on the dev machine and the GPU step where the GPU is:

    python3 bench/gpu_corpus.py port [WORK]   # dev machine: hipport convert --hip-version 6.3, and
                                              # copies of cuda-samples and HIP's NVIDIA headers, in WORK
    python3 bench/gpu_corpus.py run [WORK]    # GPU machine: verify --run --platform nvidia
                                              # --compare-original, then the table

WORK defaults to bench/gpu-corpus/ (ignored by git: carry it to the GPU machine). The run step
needs python3, click, nvcc and an NVIDIA GPU, none of hipport's other dependencies: it runs
`python3 -m hipport verify` from this checkout, whose GPU path imports only the standard library
and click. It prints, of the programs whose CUDA original builds and exits 0 and whose port needs
no HIP library missing there, how many the port AGREEs with (exit status and output, numbers
within --tolerance, timing lines left out, and what the original's own two runs disagree on), and
writes WORK/results.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_WORK = REPO / "bench" / "gpu-corpus"
HIP_VERSION = "6.3"
# Lines that differ from run to run by nature: timings, throughputs, clocks.
TIMING_LINES = (
    r"(?i)(\btime\b|elapsed|msec|\bms\b|\bsec(onds)?\b|\bus\b|gflop|gb/s|mb/s|bandwidth|throughput|"
    r"performance|per second|/s\b|clock rate|\bfps\b|flops)"
)


def _shared(name: str) -> Path | None:
    for parent in REPO.parents:
        if (parent / "shared" / name).is_dir():
            return parent / "shared" / name
    return None


def port(work: Path, corpus: Path, hip_nvidia: Path) -> int:
    """Port corpus into work/out and copy corpus and the headers beside it."""
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    shutil.copytree(corpus, work / "cuda-samples", symlinks=True)
    shutil.copytree(hip_nvidia, work / "HIP-nvidia", symlinks=True)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "hipport", "convert", str(work / "cuda-samples"), "-o", str(work / "out"),
         "--hip-version", HIP_VERSION, "--report", str(work / "report.json"), "-q",
         "--include-dir", str(work / "cuda-samples" / "Common")],
        cwd=REPO, capture_output=True, text=True,
    )
    if not (work / "report.json").is_file():
        print(f"gpu_corpus: hipport convert failed ({done.returncode}): {done.stderr[-2000:]}", file=sys.stderr)
        return 2
    size = sum(p.stat().st_size for p in work.rglob("*") if p.is_file()) / 2**20
    print(f"gpu_corpus: ported {corpus} in {time.perf_counter() - started:.1f} s into {work} ({size:.0f} MiB); "
          f"now, on the GPU machine: python3 bench/gpu_corpus.py run {work.relative_to(REPO) if work.is_relative_to(REPO) else work}")
    return 0


def run(work: Path, jobs: int, timeout: float) -> int:
    out, samples, headers = work / "out", work / "cuda-samples", work / "HIP-nvidia"
    for needed in (out, samples, headers):
        if not needed.is_dir():
            print(f"gpu_corpus: {needed}: missing; run 'python3 bench/gpu_corpus.py port' first", file=sys.stderr)
            return 2
    results = work / "results.json"
    args = [sys.executable, "-m", "hipport", "verify", str(out), "--run", "--platform", "nvidia",
            "--hip-path", str(headers), "--compare-original", str(samples), "-I", str(out / "Common"),
            "-j", str(jobs), "--timeout", str(timeout), "--tolerance", "1e-3", "--ignore-lines", TIMING_LINES,
            "--json", str(results)]
    started = time.perf_counter()
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with open(work / "verify.log", "w", encoding="utf-8") as log:
        done = subprocess.run(args, cwd=REPO, stdout=log, stderr=subprocess.STDOUT, env=env)
    seconds = time.perf_counter() - started
    if not results.is_file():
        print(f"gpu_corpus: verify --run failed ({done.returncode}); see {work / 'verify.log'}", file=sys.stderr)
        print((work / "verify.log").read_text(encoding="utf-8")[-3000:], file=sys.stderr)
        return 2
    print("\n".join(table(json.loads(results.read_text(encoding="utf-8"))["results"], seconds)))
    print(f"each program: {work / 'verify.log'}; JSON: {results}")
    return 0


def table(results: list[dict], seconds: float) -> list[str]:
    statuses = Counter(r["status"] for r in results)
    ran = [r for r in results if (r.get("original") or {}).get("exit_status") == 0]
    # a port that needs a HIP library this machine lacks (hipBLAS, hipRAND...) says nothing of the port
    needs_library = [r for r in ran if r["status"] == "NO-LIB"]
    original_ok = [r for r in ran if r["status"] != "NO-LIB"]
    agree = [r for r in original_ok if r["status"] == "AGREE"]
    port_fails = Counter(r["detail"].split(": ", 1)[0] for r in results if r["status"] == "BUILD-FAIL")
    lines = [f"programs: {len(results)} ({', '.join(f'{n} {s}' for s, n in sorted(statuses.items()))})",
             f"build failures by side: {dict(port_fails)}",
             f"originals that build and exit 0: {len(ran)}",
             f"  of them the port needs a HIP library not installed here (NO-LIB): {len(needs_library)}",
             f"  the others (runtime only): {len(original_ok)}",
             f"  of them the port AGREEs: {len(agree)}"
             + (f" ({100.0 * len(agree) / len(original_ok):.1f}%)" if original_ok else ""),
             f"  DIFFER: {sum(r['status'] == 'DIFFER' for r in original_ok)}, "
             f"port BUILD-FAIL: {sum(r['status'] == 'BUILD-FAIL' for r in original_ok)}, "
             f"TIMEOUT: {sum(r['status'] == 'TIMEOUT' for r in original_ok)}",
             f"wall time: {seconds:.0f} s"]
    differ = [r for r in original_ok if r["status"] == "DIFFER"]
    if differ:
        lines.append("DIFFER (first difference):")
        lines += [f"  {r['program']}: {r['detail']}" for r in differ[:40]]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=["port", "run"])
    parser.add_argument("work", nargs="?", type=Path, default=DEFAULT_WORK)
    parser.add_argument("--corpus", type=Path, default=_shared("corpora/cuda-samples"))
    parser.add_argument("--hip-nvidia", type=Path, default=_shared("vendor/HIP-nvidia"))
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 4)
    parser.add_argument("--timeout", type=float, default=60, help="seconds each program may run (both sides)")
    args = parser.parse_args(argv)
    work = args.work.resolve()
    if args.step == "port":
        if args.corpus is None or args.hip_nvidia is None:
            print("gpu_corpus: give --corpus and --hip-nvidia (no ../shared here)", file=sys.stderr)
            return 2
        return port(work, args.corpus, args.hip_nvidia)
    return run(work, args.jobs, args.timeout)


if __name__ == "__main__":
    sys.exit(main())
