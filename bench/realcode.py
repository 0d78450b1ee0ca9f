"""Real code as the yardstick: port a CUDA tree, compile every unit, join failures to the report.

    python bench/realcode.py                        # the default corpus, compared with the baseline
    python bench/realcode.py --corpus DIR --include Common --include include
    python bench/realcode.py --write-baseline       # after an improvement: commit the new baseline

It runs hipport the way a user would: `hipport convert` with --hip-version set to the installed
hipcc's version (`hipconfig --version`), --no-cache and --jobs 2, then `hipport verify OUT
--report r.json --json ...` with -j 2, and prints verify's table by class, the TUs compiled,
the clean-verdict precision and the conversion time. The results go to JSON and are compared
with a committed baseline: a unit that compiled in the baseline and fails now is a REGRESSION
(exit status 1 unless --allow-regressions). Units the baseline does not know are not compared.

--target 6.3 measures the default port instead (convert with no --hip-version; verify on AMD with
`--hip-path ../shared/vendor/HIP-amd`), the target issue 25 measures; its results and baseline are
bench/corpus-results-6.3.json and bench/corpus-baseline-6.3.json unless --results/--baseline say otherwise.

--samples FILE ports only the directories FILE lists (one per line, relative to the corpus),
staged with the include directories into a scratch tree: the small subset the test suite runs.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS_PATH = Path("shared") / "corpora" / "cuda-samples"
DEFAULT_WORK = REPO / "bench" / "realcode-out"
DEFAULT_RESULTS = REPO / "bench" / "corpus-results.json"
DEFAULT_BASELINE = REPO / "bench" / "corpus-baseline.json"


class HarnessError(Exception):
    pass


def default_corpus() -> Path | None:
    """../shared/corpora/cuda-samples beside the clone (or beside a parent: a git worktree)."""
    for parent in REPO.parents:
        if (parent / CORPUS_PATH).is_dir():
            return parent / CORPUS_PATH
    return None


def installed_hip_version(hipconfig: str = "hipconfig") -> str:
    """X.Y of the installed HIP ('5.2.21153-0' -> '5.2')."""
    try:
        out = subprocess.run([hipconfig, "--version"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        raise HarnessError(f"cannot ask hipconfig for the installed HIP version: {exc}") from None
    m = re.match(r"\s*(\d+)\.(\d+)", out)
    if m is None:
        raise HarnessError(f"hipconfig --version printed {out.strip()!r}, not a version")
    return f"{m.group(1)}.{m.group(2)}"


def hipport(*args: str, capture: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hipport", *args], capture_output=capture, text=True, cwd=REPO)


def convert_takes_include_dirs() -> bool:
    """Newer convert follows -I directories' headers (--include-dir); pass them when it does."""
    return "--include-dir" in hipport("convert", "--help").stdout


def stage(corpus: Path, samples: list[str], includes: list[str], dest: Path) -> Path:
    """A scratch tree with only these sample directories and the include directories, laid
    out as in the corpus so that relative includes still resolve."""
    if dest.exists():
        shutil.rmtree(dest)
    for rel in [*includes, *samples]:
        source = corpus / rel
        if not source.is_dir():
            raise HarnessError(f"{source}: no such directory in the corpus")
        shutil.copytree(source, dest / rel, dirs_exist_ok=True)
    return dest


def hip_amd() -> Path | None:
    """HIP 6.3's AMD headers: ../shared/vendor/HIP-amd beside the clone (or a parent)."""
    return next((p / "shared" / "vendor" / "HIP-amd" for p in REPO.parents
                 if (p / "shared" / "vendor" / "HIP-amd" / "include").is_dir()), None)


def run(corpus: Path, includes: list[str], work: Path, jobs: int = 2, nvidia_column: bool = True,
        target: str | None = None) -> dict:
    """Convert and verify; the results: figures, conversion time and each unit's verdict.
    target None ports for the installed hipcc's HIP; a version ports with convert's default target
    and verifies against HIP-amd's headers (the default port, 6.3)."""
    version = target or installed_hip_version()
    amd_platform: tuple[str, ...] = ()
    if target is not None:
        headers = hip_amd()
        if headers is None:
            raise HarnessError("--target needs HIP's AMD headers in ../shared/vendor/HIP-amd")
        amd_platform = ("--hip-path", str(headers))
    out, report, verdicts_json, log = work / "out", work / "report.json", work / "verify.json", work / "verify.log"
    if out.exists():
        shutil.rmtree(out)
    work.mkdir(parents=True, exist_ok=True)
    convert_args = ["convert", str(corpus), "-o", str(out), "--no-cache",
                    "--jobs", str(jobs), "--report", str(report), "-q"]
    if target is None:
        convert_args += ["--hip-version", version]
    if convert_takes_include_dirs():
        for rel in includes:
            convert_args += ["--include-dir", str(corpus / rel)]
    started = time.perf_counter()
    converted = hipport(*convert_args)
    seconds = time.perf_counter() - started
    if not report.is_file():
        raise HarnessError(f"hipport convert failed ({converted.returncode}): {converted.stderr.strip()[-2000:]}")
    if converted.returncode != 0:  # some files could not be ported: the rest is still worth measuring
        print(f"realcode: hipport convert exited {converted.returncode}:\n{converted.stderr.strip()[-2000:]}",
              file=sys.stderr)
    joined = verify_joined(out, report, includes, jobs, verdicts_json, log, amd_platform)
    nvidia = verify_nvidia(out, report, includes, work, jobs) if nvidia_column else None
    if nvidia is not None:
        nvidia["oracle"] = nvidia_oracle(corpus, includes, nvidia["units"])
    converted_report = json.loads(report.read_text(encoding="utf-8"))
    summary = converted_report["summary"]
    # The units the port edited: plain C++ files that compile untouched are not hipport's doing.
    edited = {e.get("renamed_to") or e["path"] for e in converted_report["files"] if e.get("changed")}
    edited_units = [u for u in joined["units"] if u["unit"] in edited]
    return {
        "schema": 1,
        "corpus": corpus.name,
        "target": target,
        "hip_version": version,
        "includes": includes,
        "conversion_seconds": round(seconds, 2),
        "convert_seconds_in_report": summary.get("seconds"),
        "summary": joined["summary"],
        "edited_units": {"units": len(edited_units), "compiled": sum(u["verdict"] == "ok" for u in edited_units)},
        "units": _verdicts(joined),
        "verify_log": log.relative_to(REPO).as_posix() if log.is_relative_to(REPO) else str(log),
        "nvidia": nvidia,
        "no_helper": no_helper_subset(out, joined["units"], nvidia),
    }


def hip_nvidia() -> Path | None:
    """HIP's NVIDIA headers: HIPPORT_HIP_PATH, else ../shared/vendor/HIP-nvidia."""
    if os.environ.get("HIPPORT_HIP_PATH"):
        return Path(os.environ["HIPPORT_HIP_PATH"])
    for parent in REPO.parents:
        if (parent / "shared" / "vendor" / "HIP-nvidia").is_dir():
            return parent / "shared" / "vendor" / "HIP-nvidia"
    return None


def verify_nvidia(out: Path, report: Path, includes: list[str], work: Path, jobs: int) -> dict | None:
    """The same verify with nvcc against HIP's NVIDIA headers; None when nvcc or the headers are absent."""
    headers = hip_nvidia()
    if shutil.which("nvcc") is None or headers is None:
        print("realcode: no nvcc or HIP's NVIDIA headers: the NVIDIA column is skipped", file=sys.stderr)
        return None
    platform = ("--platform", "nvidia", "--hip-path", str(headers))
    joined = verify_joined(out, report, includes, jobs, work / "verify-nvidia.json", work / "verify-nvidia.log", platform)
    return {"summary": joined["summary"], "units": _verdicts(joined)}


def nvidia_oracle(corpus: Path, includes: list[str], units: dict) -> dict:
    """The NVIDIA port faults held to nvcc, as bench/oracle.py holds HeCBench (the same plain-nvcc
    compile check, verify's Nvcc without HIP's headers): a unit whose CUDA original fails as well (a
    host-only .cpp that defines its own uchar4 or umin, which CUDA's implicit headers define too) is
    not the port's fault and leaves the denominator. The figures: those units and the clean-verdict
    precision without them."""
    from hipport.toolchain import ToolSettings
    from hipport.toolchain.compilers import Nvcc
    from hipport.verify import check_unit
    from hipport.verify.join import HONEST

    plain = Nvcc(ToolSettings(platform="nvidia"), shutil.which("nvcc") or "nvcc", None)
    libraries = [REPO / ".cuda-libs" / "include"] if (REPO / ".cuda-libs" / "include").is_dir() else []
    original_fails = []
    for unit, verdict in sorted(units.items()):
        source = corpus / unit
        if verdict["verdict"] != "port-fault" or not source.is_file():
            continue
        dirs = (*[corpus / rel for rel in includes], source.parent, *libraries)
        if not check_unit(plain, source, dirs).ok:
            original_fails.append(unit)
    held = {u: v for u, v in units.items() if u not in original_fails}
    clean = [v for v in held.values() if v.get("clean")]
    honest = sum(v["verdict"] in HONEST for v in clean)
    return {"original_fails": original_fails, "units": len(held), "clean": len(clean),
            "clean_precision": round(100.0 * honest / len(clean), 1) if clean else None}


def verify_joined(out: Path, report: Path, includes: list[str], jobs: int, verdicts: Path, log: Path,
                  platform: tuple[str, ...] = ()) -> dict:
    """`hipport verify OUT --report` on one platform (AMD unless platform says otherwise): its JSON."""
    args = ["verify", str(out), *platform, "--report", str(report), "--json", str(verdicts), "-j", str(jobs)]
    rocm = next((p / "shared" / "vendor" / "ROCm-libs" for p in REPO.parents
                 if (p / "shared" / "vendor" / "ROCm-libs" / "include").is_dir()), None)
    if rocm is not None and not os.environ.get("HIPPORT_ROCM_PATH"):  # ROCm 6.3's library headers
        args += ["--rocm-path", str(rocm)]
    if "nvidia" in platform and (REPO / ".cuda-libs" / "include").is_dir():  # make cuda-lib-headers
        args += ["--cuda-lib-path", str(REPO / ".cuda-libs")]
    for rel in includes:
        args += ["-I", str(out / rel)]
    verified = hipport(*args)
    log.write_text(verified.stdout + verified.stderr, encoding="utf-8")
    if verified.returncode not in (0, 1) or not verdicts.is_file():
        raise HarnessError(f"hipport verify {' '.join(platform[:2])} failed ({verified.returncode}): "
                           f"{verified.stderr.strip()[-2000:]}")
    return json.loads(verdicts.read_text(encoding="utf-8"))


def _verdicts(joined: dict) -> dict:
    return {u["unit"]: {k: u[k] for k in ("verdict", "clean", "error_kind", "detail") if k in u}
            for u in joined["units"]}


_HELPER = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"](?:helper_|Common/|\.\./)', re.M)


def no_helper_subset(out: Path, units: list[dict], nvidia: dict | None) -> dict:
    """The units that include no Common/ helper header (issue 22's proxy for code without one)."""
    from hipport.verify.summary import summarize
    from hipport.verify.join import Verdict

    picked = [u for u in units if not _HELPER.search((out / u["unit"]).read_text(errors="replace"))]
    verdicts = [Verdict(u["unit"], u["verdict"], clean=u.get("clean", False)) for u in picked]
    result = {"amd": {k: summarize(verdicts)[k] for k in ("units", "compiled", "clean", "clean_precision")}}
    if nvidia is not None:
        nv = [Verdict(u["unit"], nvidia["units"][u["unit"]]["verdict"],
                      clean=nvidia["units"][u["unit"]].get("clean", False))
              for u in picked if u["unit"] in nvidia["units"]]
        result["nvidia"] = {k: summarize(nv)[k] for k in ("units", "compiled", "clean", "clean_precision")}
    return result


def regressions(results: dict, baseline: dict) -> list[str]:
    """Units that compiled in the baseline and do not now (a unit now missing counts too)."""
    lost = []
    for platform, now, before in (("amd", results["units"], baseline.get("units", {})),
                                  ("nvidia", (results.get("nvidia") or {}).get("units"),
                                   (baseline.get("nvidia") or {}).get("units", {}))):
        if now is None:  # not measured this time (no nvcc): nothing to compare
            continue
        lost += [unit if platform == "amd" else f"{unit} [nvidia]" for unit, old in before.items()
                 if old.get("verdict") == "ok" and now.get(unit, {}).get("verdict") != "ok"]
    return sorted(lost)


def improvements(results: dict, baseline: dict) -> list[str]:
    old = baseline.get("units", {})
    return sorted(unit for unit, new in results["units"].items()
                  if new.get("verdict") == "ok" and unit in old and old[unit].get("verdict") != "ok")


def report_lines(results: dict, baseline: dict | None) -> list[str]:
    from hipport.verify.summary import TITLES, table_lines

    s = results["summary"]
    target = " (the default port, HIP-amd's headers)" if results.get("target") else ""
    lines = [f"corpus {results['corpus']}: HIP {results['hip_version']}{target}, includes {' '.join(results['includes']) or '-'}",
             *table_lines(s),
             f"TUs the port edited: {results['edited_units']['compiled']} / {results['edited_units']['units']} compile",
             f"conversion time: {results['conversion_seconds']:.2f} s wall (--jobs 2, --no-cache)"]
    if s["port_fault_errors"]:
        lines.append("commonest first errors of the port faults (hipport bugs):")
        lines += [f"  {row['units']:4}  {row['error']}" for row in s["port_fault_errors"]]
    nvidia = results.get("nvidia")
    if nvidia is not None:
        n = nvidia["summary"]
        lines.append(f"{'class':28} {'AMD':>5} {'NVIDIA':>7}")
        for c, title in TITLES.items():
            lines.append(f"{title:28} {s['by_class'][c]:5} {n['by_class'][c]:7}")
        lines.append(f"NVIDIA (nvcc, HIP's NVIDIA headers): {n['compiled']} / {n['units']} compile, "
                     f"clean-verdict precision {n['clean_precision']}%")
        oracle = nvidia.get("oracle")
        if oracle is not None:
            lines.append(f"NVIDIA held to nvcc: {len(oracle['original_fails'])} port-fault unit(s) fail as CUDA "
                         f"originals with plain nvcc -x cu too; without them, clean-verdict precision "
                         f"{oracle['clean_precision']}% of {oracle['clean']}")
            lines += [f"  original fails: {unit}" for unit in oracle["original_fails"]]
        if n["port_fault_errors"]:
            lines.append("commonest first errors of the NVIDIA port faults:")
            lines += [f"  {row['units']:4}  {row['error']}" for row in n["port_fault_errors"]]
    for platform, sub in (results.get("no_helper") or {}).items():
        lines.append(f"units with no Common/ helper include ({platform}): {sub['compiled']} / {sub['units']} "
                     f"compile, clean-verdict precision {sub['clean_precision']}% of {sub['clean']}")
    if baseline is not None:
        b = baseline["summary"]
        lines.append(f"baseline: {b['compiled']} / {b['units']} compiled, clean-verdict precision "
                     f"{b['clean_precision']}%; now {s['compiled']} / {s['units']}, {s['clean_precision']}%")
        gained = improvements(results, baseline)
        if gained:
            lines.append(f"{len(gained)} unit(s) compile now that did not: " + ", ".join(gained[:20])
                         + (" ..." if len(gained) > 20 else ""))
    lines.append(f"each unit's verdict: {results['verify_log']}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=os.environ.get("CORPUS") or None,
                        help="CUDA tree to port (default: ../shared/corpora/cuda-samples; env CORPUS)")
    parser.add_argument("--include", action="append", default=None, metavar="DIR",
                        help="include directory relative to the corpus (repeatable; env CORPUS_INCLUDES, "
                             "space-separated; default: Common)")
    parser.add_argument("--samples", type=Path, help="only these directories of the corpus (one per line)")
    parser.add_argument("--work", type=Path, default=DEFAULT_WORK, help="scratch directory for the port")
    parser.add_argument("--results", type=Path, default=None, help=f"default {DEFAULT_RESULTS.name}")
    parser.add_argument("--baseline", type=Path, default=None, help=f"default {DEFAULT_BASELINE.name}")
    parser.add_argument("--write-baseline", action="store_true", help="write the results as the new baseline")
    parser.add_argument("--allow-regressions", action="store_true", help="exit 0 even when units regressed")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--target", choices=("6.3",), default=None,
                        help="measure the default port (6.3) against HIP-amd's headers, not the installed hipcc's HIP")
    parser.add_argument("--no-nvidia", action="store_true", help="skip the NVIDIA column (nvcc is slower)")
    args = parser.parse_args(argv)
    suffix = f"-{args.target}" if args.target else ""
    args.results = args.results or REPO / "bench" / f"corpus-results{suffix}.json"
    args.baseline = args.baseline or REPO / "bench" / f"corpus-baseline{suffix}.json"
    corpus = Path(args.corpus) if args.corpus else default_corpus()
    if corpus is None or not corpus.is_dir():
        print(f"realcode: no corpus at {corpus or '../shared/' + CORPUS_PATH.as_posix()}; give --corpus DIR",
              file=sys.stderr)
        return 2
    includes = args.include if args.include is not None else (
        os.environ.get("CORPUS_INCLUDES", "Common").split())
    try:
        tree = corpus
        if args.samples is not None:
            samples = [s.strip() for s in args.samples.read_text().splitlines() if s.strip() and not s.startswith("#")]
            tree = stage(corpus, samples, includes, args.work / "staged" / corpus.name)
        results = run(tree, includes, args.work, args.jobs, nvidia_column=not args.no_nvidia, target=args.target)
        results["samples"] = args.samples.name if args.samples is not None else None
    except HarnessError as exc:
        print(f"realcode: {exc}", file=sys.stderr)
        return 2
    baseline = json.loads(args.baseline.read_text(encoding="utf-8")) if args.baseline.is_file() else None
    if baseline is not None and ((baseline.get("corpus"), baseline.get("samples"), baseline.get("target"))
                                 != (corpus.name, results.get("samples"), results.get("target"))):
        print(f"realcode: {args.baseline} is for another corpus or subset; nothing to compare with")
        baseline = None
    print("\n".join(report_lines(results, baseline)))
    args.results.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"results: {args.results}")
    if args.write_baseline:
        args.baseline.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"baseline written: {args.baseline}")
        return 0
    lost = regressions(results, baseline) if baseline is not None else []
    if lost:
        print(f"\n!!! REGRESSION: {len(lost)} unit(s) compiled in the baseline and fail now:", file=sys.stderr)
        for unit in lost:
            print(f"!!!   {unit}: {results['units'].get(unit, {}).get('detail', 'no longer a unit')}", file=sys.stderr)
        return 0 if args.allow_regressions else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
