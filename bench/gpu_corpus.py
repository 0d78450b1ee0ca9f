"""CUDA programs on a real GPU: do the ported programs compute what the CUDA originals compute?

Two steps, so that the port happens on the dev machine and the GPU step where the GPU is:

    python3 bench/gpu_corpus.py port [WORK] [--corpus DIR]   # dev machine: hipport convert
        --hip-version 6.3 of each suite into WORK/SUITE/out, a copy of it in WORK/SUITE/original,
        and HIP's NVIDIA headers in WORK/HIP-nvidia. Default suites: cuda-samples and examples/;
        --corpus ../shared/corpora/hecbench adds HeCBench's half.
    python3 bench/gpu_corpus.py run [WORK] [--hip-libs DIR|TARBALL | --build-libs SOURCES]
        # GPU machine: verify --run --platform nvidia --compare-original for each suite, then the table

WORK defaults to bench/gpu-corpus/ (ignored by git: carry it to the GPU machine). The run step needs
python3, click and nvcc, none of hipport's other dependencies: it runs `python3 -m hipport verify`
from this checkout, whose GPU path imports only the standard library and click. Ports that call
hipBLAS, hipFFT, hipRAND, hipSOLVER, hipSPARSE or hipCUB need HIP's libraries built for NVIDIA:
--hip-libs gives them built (bench/gpu_libs.py's prefix or its tarball), --build-libs builds them
first from their sources (bench/gpu_libs.py stage's tarball). Each program runs as its build runs
it: HeCBench's with the arguments of its Makefile's `run:` target, on both sides.

It prints, per suite, of the programs whose CUDA original builds and exits 0, how many the port
AGREEs with (exit status and output, numbers within --tolerance, timing lines left out, and what
the original's own two runs disagree on), and writes WORK/SUITE/results.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
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


def _include_dirs(tree: Path) -> list[Path]:
    """A suite's shared headers folder (cuda-samples' Common/), where it has one."""
    return [tree / "Common"] if (tree / "Common").is_dir() else []


def port(work: Path, corpora: list[Path], hip_nvidia: Path, split: int = 1) -> int:
    """Port each corpus into work/SUITE/out beside a copy of it, and copy HIP's NVIDIA headers;
    split > 1 deals a corpus's top folders (one program each, as in HeCBench) into SUITE-1..N."""
    work.mkdir(parents=True, exist_ok=True)
    if not (work / "HIP-nvidia").is_dir():
        shutil.copytree(hip_nvidia, work / "HIP-nvidia", symlinks=True)
    for corpus in corpora:
        suite = work / corpus.name
        if suite.exists():
            shutil.rmtree(suite)
        shutil.copytree(
            corpus, suite / "original", symlinks=True, ignore=shutil.ignore_patterns("bin", "demo-out*", "__pycache__")
        )
        started = time.perf_counter()
        args = [
            sys.executable,
            "-m",
            "hipport",
            "convert",
            str(suite / "original"),
            "-o",
            str(suite / "out"),
            "--hip-version",
            HIP_VERSION,
            "--report",
            str(suite / "report.json"),
            "-q",
        ]
        for include in _include_dirs(suite / "original"):
            args += ["--include-dir", str(include)]
        done = subprocess.run(args, cwd=REPO, capture_output=True, text=True)
        if not (suite / "report.json").is_file():
            print(
                f"gpu_corpus: hipport convert {corpus} failed ({done.returncode}): {done.stderr[-2000:]}",
                file=sys.stderr,
            )
            return 2
        size = sum(p.stat().st_size for p in suite.rglob("*") if p.is_file()) / 2**20
        print(f"gpu_corpus: ported {corpus} in {time.perf_counter() - started:.1f} s into {suite} ({size:.0f} MiB)")
        if split > 1:
            split_suite(suite, split)
    where = work.relative_to(REPO) if work.is_relative_to(REPO) else work
    print(f"now, on the GPU machine: python3 bench/gpu_corpus.py run {where} --hip-libs ...")
    return 0


def split_suite(suite: Path, parts: int) -> None:
    """Deal the suite's top folders into SUITE-1..parts (each with original/ and out/), so that each
    part runs within one GPU call; files at the top stay with every part."""
    folders = sorted(p.name for p in (suite / "out").iterdir() if p.is_dir())
    for index in range(parts):
        part = suite.with_name(f"{suite.name}-{index + 1}")
        shutil.rmtree(part, ignore_errors=True)
        for side in ("original", "out"):
            (part / side).mkdir(parents=True)
            for entry in (suite / side).iterdir():
                if entry.is_file():
                    shutil.copy2(entry, part / side / entry.name)
        for name in folders[index::parts]:
            for side in ("original", "out"):
                if (suite / side / name).exists():
                    shutil.move(suite / side / name, part / side / name)
        print(f"gpu_corpus: {part.name}: {len(folders[index::parts])} programs")
    shutil.rmtree(suite / "original")
    shutil.rmtree(suite / "out")


def hip_libraries(work: Path, given: Path | None, sources: Path | None, jobs: int) -> Path | None:
    """The folder of HIP's libraries for NVIDIA: given (a folder or a tarball), or built from sources."""
    target = work / "hip-libs"
    if sources is not None:
        build = [
            sys.executable,
            str(REPO / "bench" / "gpu_libs.py"),
            "build",
            str(sources),
            str(target),
            "--hip-nvidia",
            str(work / "HIP-nvidia"),
            "-j",
            str(jobs),
        ]
        if given is not None:
            build += ["--tarball", str(given)]
        started = time.perf_counter()
        done = subprocess.run(build, cwd=REPO)
        print(f"gpu_corpus: HIP's libraries built in {time.perf_counter() - started:.0f} s (exit {done.returncode})")
        return target if (target / "include").is_dir() else None
    if given is None:
        return None
    if given.is_dir():
        return given
    shutil.rmtree(target, ignore_errors=True)
    with tarfile.open(given) as tar:
        tar.extractall(target, filter="data")
    return target


def run_suite(work: Path, suite: Path, libs: Path | None, jobs: int, timeout: float, once: bool) -> list[dict] | None:
    out, original = suite / "out", suite / "original"
    results = suite / "results.json"
    results.unlink(missing_ok=True)
    args = [
        sys.executable,
        "-m",
        "hipport",
        "verify",
        str(out),
        "--run",
        "--platform",
        "nvidia",
        "--hip-path",
        str(work / "HIP-nvidia"),
        "--compare-original",
        str(original),
        "-j",
        str(jobs),
        "--timeout",
        str(timeout),
        "--tolerance",
        "1e-3",
        "--ignore-lines",
        TIMING_LINES,
        "--json",
        str(results),
    ]
    for include in _include_dirs(out):
        args += ["-I", str(include)]
    if libs is not None:
        args += ["--hip-libs", str(libs)]
    if once:
        args.append("--once")
    started = time.perf_counter()
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with open(suite / "verify.log", "w", encoding="utf-8") as log:
        done = subprocess.run(args, cwd=REPO, stdout=log, stderr=subprocess.STDOUT, env=env)
    seconds = time.perf_counter() - started
    if not results.is_file():
        print(
            f"gpu_corpus: {suite.name}: verify --run failed ({done.returncode}); see {suite / 'verify.log'}",
            file=sys.stderr,
        )
        print((suite / "verify.log").read_text(encoding="utf-8")[-3000:], file=sys.stderr)
        return None
    found = json.loads(results.read_text(encoding="utf-8"))["results"]
    print(f"== {suite.name}")
    print("\n".join(table(found, seconds)))
    print(f"each program: {suite / 'verify.log'}; JSON: {results}", flush=True)
    return found


def run(work: Path, suites: list[str], libs: Path | None, jobs: int, timeout: float, once: bool = False) -> int:
    if not (work / "HIP-nvidia").is_dir():
        print(
            f"gpu_corpus: {work / 'HIP-nvidia'}: missing; run 'python3 bench/gpu_corpus.py port' first", file=sys.stderr
        )
        return 2
    names = suites or sorted(p.name for p in work.iterdir() if (p / "out").is_dir() and (p / "original").is_dir())
    missing = [n for n in names if not (work / n / "out").is_dir()]
    if missing or not names:
        print(
            f"gpu_corpus: no ported suite {', '.join(missing) or ''} in {work}; run the port step first",
            file=sys.stderr,
        )
        return 2
    status = 0
    for name in names:
        if run_suite(work, work / name, libs, jobs, timeout, once) is None:
            status = 2
    return status


def table(results: list[dict], seconds: float) -> list[str]:
    statuses = Counter(r["status"] for r in results)
    ran = [r for r in results if (r.get("original") or {}).get("exit_status") == 0]
    # a port that needs a HIP library this machine lacks says nothing of the port
    needs_library = [r for r in ran if r["status"] == "NO-LIB"]
    original_ok = [r for r in ran if r["status"] != "NO-LIB"]
    agree = [r for r in original_ok if r["status"] == "AGREE"]
    linked = [r for r in original_ok if r.get("libraries")]
    with_args = [r for r in original_ok if r.get("runs")]
    port_fails = Counter(r["detail"].split(": ", 1)[0] for r in results if r["status"] == "BUILD-FAIL")
    lines = [
        f"programs: {len(results)} ({', '.join(f'{n} {s}' for s, n in sorted(statuses.items()))})",
        f"build failures by side: {dict(port_fails)}",
        f"originals that build and exit 0: {len(ran)}",
        f"  of them the port needs a HIP library not installed here (NO-LIB): {len(needs_library)}",
        f"  the others: {len(original_ok)}",
        f"  of them the port AGREEs: {len(agree)}"
        + (f" ({100.0 * len(agree) / len(original_ok):.1f}%)" if original_ok else ""),
        f"  DIFFER: {sum(r['status'] == 'DIFFER' for r in original_ok)}, "
        f"port BUILD-FAIL: {sum(r['status'] == 'BUILD-FAIL' for r in original_ok)}, "
        f"TIMEOUT: {sum(r['status'] == 'TIMEOUT' for r in original_ok)}",
        f"  the port links HIP's libraries ({', '.join(sorted({n for r in linked for n in r['libraries']}))}): "
        f"{len(linked)}, of them AGREE: {sum(r['status'] == 'AGREE' for r in linked)}",
        f"  run with their build's arguments: {len(with_args)}, of them AGREE: "
        f"{sum(r['status'] == 'AGREE' for r in with_args)}",
        f"wall time: {seconds:.0f} s",
    ]
    unagreed = [r for r in original_ok if r["status"] != "AGREE"]
    if unagreed:
        lines.append("not AGREE (first difference or error):")
        lines += [f"  {r['status']:10} {r['program']}: {r['detail'][:200]}" for r in unagreed[:60]]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=["port", "run"])
    parser.add_argument("work", nargs="?", type=Path, default=DEFAULT_WORK)
    parser.add_argument(
        "--corpus",
        type=Path,
        action="append",
        help="port: a corpus to port (repeatable); default cuda-samples and examples/",
    )
    parser.add_argument(
        "--suite",
        action="append",
        default=[],
        help="run: the suite to run (a folder of WORK; repeatable); default every ported one",
    )
    parser.add_argument("--hip-nvidia", type=Path, default=_shared("vendor/HIP-nvidia"))
    parser.add_argument("--hip-libs", type=Path, help="run: HIP's libraries for NVIDIA (a folder or a tarball)")
    parser.add_argument(
        "--build-libs",
        type=Path,
        metavar="SOURCES",
        help="run: build HIP's libraries first from these sources (bench/gpu_libs.py stage); "
        "with --hip-libs FILE.tar.gz also pack them there",
    )
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 4)
    parser.add_argument("--timeout", type=float, default=60, help="seconds each program may run (both sides)")
    parser.add_argument("--split", type=int, default=1, help="port: deal each corpus's programs into N suites")
    parser.add_argument("--once", action="store_true", help="run: each side runs once, not twice (long suites)")
    args = parser.parse_args(argv)
    work = args.work.resolve()
    if args.step == "port":
        corpora = args.corpus or [c for c in (_shared("corpora/cuda-samples"), REPO / "examples") if c is not None]
        if args.hip_nvidia is None or not corpora:
            print("gpu_corpus: give --corpus and --hip-nvidia (no ../shared here)", file=sys.stderr)
            return 2
        return port(work, [c.resolve() for c in corpora], args.hip_nvidia, args.split)
    libs = hip_libraries(work, args.hip_libs, args.build_libs, args.jobs)
    if (args.hip_libs or args.build_libs) and libs is None:
        print("gpu_corpus: HIP's libraries could not be built or unpacked", file=sys.stderr)
        return 2
    return run(work, args.suite, libs, args.jobs, args.timeout, args.once)


if __name__ == "__main__":
    sys.exit(main())
