"""The oracle for a corpus of programs with Makefiles (HeCBench): the port must compile wherever
the CUDA original compiles with nvcc.

    python bench/oracle.py --corpus ../shared/corpora/hecbench            # all, vs the baseline
    python bench/oracle.py --corpus DIR --samples bench/corpus-hecbench-subset.txt
    python bench/oracle.py --corpus DIR --write-baseline

Each NAME/ folder with a Makefile is one program: its `source =` names the units and its
compile flags (-std, -D, -I, nvcc's language flags) are read by hipport.buildfiles.recipe. Each
original unit is compiled with nvcc (verify's own NVIDIA compile check, plain nvcc), cached by the
command and the bytes of the program's folder; a unit whose original fails is out of the
denominator. The program is ported twice (`hipport convert`, the default target and
--hip-version 5.2) and the units compiled in three columns through verify's API, joined to the
report for the clean verdict:
  amd-6.3  hipcc with --hip-path ../shared/vendor/HIP-amd;
  amd-5.2  the --hip-version 5.2 port with the system hipcc and its HIP 5.2 headers;
  nvidia   nvcc with ../shared/vendor/HIP-nvidia and the CUDA library headers (.cuda-libs) if made;
each with the ROCm library headers (../shared/vendor/ROCm-libs/include) as verify's --rocm-path,
and each unit with -I its own folder only, as its original.
A unit that compiled in the baseline and fails now is a REGRESSION (exit status 1).
"""
from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
DEFAULT_WORK = REPO / "bench" / "oracle-out"
DEFAULT_RESULTS = REPO / "bench" / "oracle-results.json"
DEFAULT_BASELINE = REPO / "bench" / "corpus-hecbench-baseline.json"
COLUMNS = ("amd-6.3", "amd-5.2", "nvidia")


class HarnessError(Exception):
    pass


def vendor(name: str, corpus: Path | None = None) -> Path | None:
    """../shared/vendor/NAME beside the clone (or a parent), else beside the corpus's shared/corpora/."""
    for parent in REPO.parents:
        if (parent / "shared" / "vendor" / name).is_dir():
            return parent / "shared" / "vendor" / name
    if corpus is not None and (corpus.parents[1] / "vendor" / name).is_dir():
        return corpus.parents[1] / "vendor" / name
    return None


def programs(corpus: Path, names: list[str] | None = None) -> list[dict]:
    """Each program folder: its name, units (relative to the corpus) and nvcc flags."""
    from hipport.buildfiles.recipe import program_recipe, source_files

    found = []
    for folder in sorted(p for p in corpus.iterdir() if p.is_dir()):
        if names is not None and folder.name not in names:
            continue
        recipe = program_recipe(folder)
        if recipe is None or not recipe.sources:
            found.append({"name": folder.name, "units": [], "flags": []})
            continue
        flags = [*recipe.flags, *(f for f in recipe.nvcc_flags if not f.startswith("-l"))]
        if not any(f.startswith("-std=") for f in flags):
            flags.append("-std=c++17")  # nvcc 13's default dialect
        units = [p.relative_to(corpus).as_posix() for p in source_files(folder, recipe) if p.is_file()]
        found.append({"name": folder.name, "units": units, "flags": flags})
    return found


def write_database(root: Path, progs: list[dict], path: Path) -> Path:
    """compile_commands.json for the tree at root (the corpus or a port of it)."""
    entries = [{"directory": str(root / p["name"]), "file": str(root / u),
                "arguments": ["nvcc", *p["flags"], "-c", str(root / u)]}
               for p in progs for u in p["units"]]
    path.write_text(json.dumps(entries, indent=1) + "\n", encoding="utf-8")
    return path


def _folder_hash(folder: Path) -> str:
    digest = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            digest.update(p.relative_to(folder).as_posix().encode() + b"\0" + p.read_bytes())
    return digest.hexdigest()


def oracle(corpus: Path, progs: list[dict], work: Path, jobs: int, progress) -> dict:
    """{unit: {"ok": bool, "error": first error}} for every original unit, with nvcc; cached."""
    from hipport.toolchain import ToolSettings
    from hipport.toolchain.compdb import load
    from hipport.toolchain.compilers import Nvcc
    from hipport.verify import check_unit

    nvcc = shutil.which("nvcc")
    if nvcc is None:
        raise HarnessError("no nvcc: the oracle needs it")
    database = load(write_database(corpus, progs, work / "original-compile_commands.json"))
    plain = Nvcc(ToolSettings(platform="nvidia", database=database), nvcc, None)
    cache_path = work / "oracle-cache.json"
    cache = json.loads(cache_path.read_text()) if cache_path.is_file() else {}
    jobs_list = []
    for p in progs:
        key_base = _folder_hash(corpus / p["name"]) if p["units"] else ""
        for u in p["units"]:
            unit = corpus / u
            key = hashlib.sha256((key_base + " ".join(plain.check_command(unit).argv)).encode()).hexdigest()
            jobs_list.append((u, unit, key))
    result: dict = {}

    def one(item):
        u, unit, key = item
        if key not in cache:
            r = check_unit(plain, unit, (unit.parent,))
            cache[key] = {"ok": r.ok, "error": "" if r.ok else (r.first_error or "")[:300]}
        progress("oracle", u)
        return u, cache[key]

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for u, verdict in pool.map(one, jobs_list):
            result[u] = verdict
    cache_path.write_text(json.dumps(cache, indent=0, sort_keys=True) + "\n")
    return result


def convert(tree: Path, out: Path, report: Path, version: str | None, jobs: int) -> None:
    if out.exists():
        shutil.rmtree(out)
    args = [sys.executable, "-m", "hipport", "convert", str(tree), "-o", str(out), "--no-cache",
            "--jobs", str(jobs), "--report", str(report), "-q", *(["--hip-version", version] if version else [])]
    done = subprocess.run(args, capture_output=True, text=True, cwd=REPO)
    if not report.is_file():
        raise HarnessError(f"hipport convert failed ({done.returncode}): {done.stderr.strip()[-2000:]}")


def cuda_libs() -> Path | None:
    """The CUDA library headers `make cuda-lib-headers` puts in .cuda-libs/include (cuBLAS, cuFFT...)."""
    for base in (REPO, *REPO.parents):
        if (base / ".cuda-libs" / "include").is_dir():
            return base / ".cuda-libs" / "include"
        if (base / "main" / ".cuda-libs" / "include").is_dir():  # a worktree beside the main checkout
            return base / "main" / ".cuda-libs" / "include"
    return None


def column_settings(column: str, database, corpus: Path | None = None):
    """verify's ToolSettings for one column; None when its compiler or headers are missing here.

    Every column gets ROCm 6.3's library headers (hipCUB, rocThrust, hipBLAS...) as verify's
    --rocm-path, so a library unit is judged on the port, not on which libraries this machine has:
    on NVIDIA after the CUDA toolkit's own headers, with the CUDA library headers where present; on
    amd-5.2 with Debian's HIP 5.2 headers, which they compile with (Debian ships no rocThrust or hipCUB)."""
    from hipport.toolchain import ToolSettings

    libs = vendor("ROCm-libs", corpus)
    rocm = libs / "include" if libs is not None else None
    if column == "nvidia":
        headers = vendor("HIP-nvidia", corpus)
        if shutil.which("nvcc") is None or headers is None:
            return None
        return ToolSettings(platform="nvidia", hip_path=headers / "include", database=database,
                            rocm_path=rocm, cuda_lib_path=cuda_libs())
    if shutil.which("hipcc") is None:
        return None
    if column == "amd-5.2":
        return ToolSettings(platform="amd", database=database, rocm_path=rocm)
    hip = vendor("HIP-amd", corpus)
    if hip is None:
        return None
    return ToolSettings(platform="amd", hip_path=hip / "include", database=database, rocm_path=rocm)


def cached_checks(units: list[Path], out: Path, toolchain, include_dirs: tuple[Path, ...], jobs: int,
                  cache_path: Path, progress) -> list:
    """verify's compile check of each unit, with -I its own folder (as the original is compiled), cached
    by the command and the bytes of the unit's program folder (the compilers' own headers do not change
    between runs here)."""
    from hipport.verify import CompileResult, check_unit, unit_include_dirs

    cache = json.loads(cache_path.read_text()) if cache_path.is_file() else {}
    # a failure whose output an older cache cut at its start may have lost its first error: compile again
    cache = {key: hit for key, hit in cache.items() if hit["ok"] or len(hit["output"]) < _KEPT}
    folders: dict[Path, str] = {}

    def one(unit: Path):
        folder = out / unit.relative_to(out).parts[0]
        if folder not in folders:
            folders[folder] = _folder_hash(folder)
        dirs = unit_include_dirs(unit, include_dirs)
        command = toolchain.check_command(unit, dirs)
        key = hashlib.sha256((folders[folder] + " ".join(command.argv)).encode()).hexdigest()
        if key not in cache:
            r = check_unit(toolchain, unit, dirs)
            cache[key] = {"ok": r.ok, "first_error": r.first_error, "output": _kept(r.output)}
        progress(unit)
        hit = cache[key]
        return CompileResult(str(unit), hit["ok"], hit["first_error"], hit["output"])

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(one, units))
    cache_path.write_text(json.dumps(cache, sort_keys=True) + "\n")
    return results


def verify_column(column: str, out: Path, report_path: Path, progs: list[dict], work: Path, jobs: int,
                  progress, corpus: Path | None = None) -> dict | None:
    """Each unit's verdict in one column, through verify's compile check and its join to the report."""
    from hipport.cli.common import _load_rules
    from hipport.toolchain import make_toolchain
    from hipport.toolchain.compdb import load
    from hipport.verify.join import Report, join
    from hipport.verify.libraries import library_table

    database = load(write_database(out, progs, work / f"{column}-compile_commands.json"))
    settings = column_settings(column, database, corpus)
    if settings is None:
        print(f"oracle: the {column} column's compiler or headers are missing: skipped", file=sys.stderr)
        return None
    toolchain = make_toolchain(settings)
    units = [out / u for p in progs for u in p["units"] if (out / u).is_file()]
    results = cached_checks(units, out, toolchain, (), jobs, work / f"{column}-cache.json",
                            lambda u: progress(column, u))
    # the join's include graph (which headers' findings explain a unit) still looks in every unit's folder
    include_dirs = tuple(settings.include_dirs) + tuple(sorted({u.parent for u in units}))
    verdicts = join(out, units, results, Report.load(report_path), library_table(_load_rules(())), include_dirs)
    return {v.unit if isinstance(v.unit, str) else Path(v.unit).as_posix():
            {"verdict": v.verdict, "clean": bool(v.clean), "error": (v.first_error or v.detail or "")[:300]}
            for v in verdicts}


_FIRST_ERROR = re.compile(r"^\S*?(?::\d+(?::\d+)?: (?:fatal )?error:|\(\d+\): (?:catastrophic )?error)", re.M)
_KEPT = 20000


def _kept(output: str) -> str:
    """The part of a compile's output the cache keeps: from a little before its first error (the
    include chain that led there), so a unit with pages of warnings still shows why it failed."""
    if len(output) <= _KEPT:
        return output
    first = _FIRST_ERROR.search(output)
    start = max(0, first.start() - 4000) if first else 0
    return output[start : start + _KEPT]


_WHERE = re.compile(r"^\S*?(?::\d+(?::\d+)?:|\(\d+\):)\s*(?:(?:fatal )?error:?\s*)?")


def error_key(error: str) -> str:
    """A first error without its file and line, and with quoted names kept: the failure's group."""
    return _WHERE.sub("", error.strip().splitlines()[0] if error.strip() else "?")[:160]


def figures(oracle_units: dict, column: dict) -> dict:
    """compiled / oracle-compiles, clean-verdict precision, and the failures grouped by first error."""
    counted = [u for u, o in oracle_units.items() if o["ok"]]
    now = {u: column.get(u, {"verdict": "missing", "clean": False, "error": "no ported unit"}) for u in counted}
    compiled = [u for u, v in now.items() if v["verdict"] == "ok"]
    clean = [u for u, v in now.items() if v["clean"]]
    groups: dict[str, list[str]] = {}
    for u, v in sorted(now.items()):
        if v["verdict"] != "ok":
            groups.setdefault(error_key(v["error"]), []).append(u)
    return {"oracle_compiles": len(counted), "compiled": len(compiled),
            "compiled_percent": round(100.0 * len(compiled) / len(counted), 1) if counted else None,
            "clean": len(clean), "clean_compiled": sum(now[u]["verdict"] == "ok" for u in clean),
            "clean_precision": round(100.0 * sum(now[u]["verdict"] == "ok" for u in clean) / len(clean), 1)
            if clean else None,
            "failures": sorted(([k, v] for k, v in groups.items()), key=lambda kv: (-len(kv[1]), kv[0]))}


def report_lines(results: dict) -> list[str]:
    o = results["oracle"]
    ok = sum(v["ok"] for v in o.values())
    lines = [f"corpus {results['corpus']}: {results['programs']} programs, {len(o)} units; "
             f"the CUDA original compiles with nvcc: {ok} (the denominator)"]
    if results["no_units"]:
        lines.append(f"programs whose Makefile names no unit hipport can read: {', '.join(results['no_units'])}")
    for column, f in results["figures"].items():
        lines.append(f"{column:8} {f['compiled']} / {f['oracle_compiles']} compile ({f['compiled_percent']}%), "
                     f"clean-verdict precision {f['clean_precision']}% ({f['clean_compiled']} of {f['clean']})")
    for column, f in results["figures"].items():
        if f["failures"]:
            lines.append(f"{column} failures by first error:")
            for key, units in f["failures"]:
                lines.append(f"  {len(units):3}  {key}")
                lines.append(f"       {', '.join(units[:6])}{' ...' if len(units) > 6 else ''}")
    return lines


def regressions(results: dict, baseline: dict) -> list[str]:
    """Units whose original compiles (the denominator) that compiled in the baseline and fail now. A
    unit whose original fails is not measured: its port once compiled only through another program's
    folder (every unit had -I every unit's folder), which is no result to keep."""
    lost = []
    counted = {u for u, o in results["oracle"].items() if o["ok"]}
    for column, units in baseline.get("columns", {}).items():
        now = results["columns"].get(column)
        if now is None:
            continue
        lost += [f"{u} [{column}]" for u, v in units.items()
                 if u in counted and v.get("verdict") == "ok" and now.get(u, {}).get("verdict") != "ok"]
    return sorted(lost)


class Progress:
    """One line per finished unit on a terminal; silent when piped."""

    def __init__(self) -> None:
        self.on = sys.stderr.isatty()
        self.n = 0

    def __call__(self, step: str, unit) -> None:
        if self.on:
            self.n += 1
            sys.stderr.write(f"\r\033[K{step}: {self.n} {unit}"[:150])
            sys.stderr.flush()

    def end(self) -> None:
        if self.on:
            sys.stderr.write("\r\033[K")
        self.n = 0


def measure(corpus: Path, names: list[str] | None, work: Path, jobs: int, columns: tuple[str, ...]) -> dict:
    work.mkdir(parents=True, exist_ok=True)
    progs = programs(corpus, names)
    tree = corpus
    if names is not None:  # a subset: staged alone, so that convert ports only these
        tree = work / "staged"
        if tree.exists():
            shutil.rmtree(tree)
        for p in progs:
            shutil.copytree(corpus / p["name"], tree / p["name"])
    progress = Progress()
    verdicts = oracle(tree, progs, work, jobs, progress)
    progress.end()
    results: dict = {"schema": 1, "corpus": corpus.name, "samples": names is not None,
                     "programs": len(progs), "no_units": [p["name"] for p in progs if not p["units"]],
                     "oracle": verdicts, "columns": {}, "figures": {}}
    for version in ("6.3", "5.2"):
        wanted = [c for c in columns if (c == "amd-5.2") == (version == "5.2")]
        if not wanted:
            continue
        out, report = work / f"port-{version}", work / f"report-{version}.json"
        convert(tree, out, report, "5.2" if version == "5.2" else None, jobs)
        for column in wanted:
            verdict = verify_column(column, out, report, progs, work, jobs, progress, corpus)
            progress.end()
            if verdict is not None:
                results["columns"][column] = verdict
                results["figures"][column] = figures(verdicts, verdict)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--samples", type=Path, help="only the programs this file lists (one per line)")
    parser.add_argument("--work", type=Path, default=DEFAULT_WORK)
    parser.add_argument("--results", type=Path, default=DEFAULT_RESULTS)
    parser.add_argument("--baseline", type=Path, default=DEFAULT_BASELINE)
    parser.add_argument("--write-baseline", action="store_true")
    parser.add_argument("--allow-regressions", action="store_true")
    parser.add_argument("--columns", default=",".join(COLUMNS), help="comma-separated: " + ", ".join(COLUMNS))
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"oracle: {args.corpus}: no such corpus", file=sys.stderr)
        return 2
    names = None
    if args.samples is not None:
        names = [s.strip() for s in args.samples.read_text().splitlines() if s.strip() and not s.startswith("#")]
    columns = tuple(c for c in args.columns.split(",") if c)
    try:
        results = measure(args.corpus.resolve(), names, args.work.resolve(), args.jobs, columns)
    except HarnessError as exc:
        print(f"oracle: {exc}", file=sys.stderr)
        return 2
    print("\n".join(report_lines(results)))
    args.results.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"results: {args.results}")
    if args.write_baseline:
        shutil.copyfile(args.results, args.baseline)
        print(f"baseline written: {args.baseline}")
        return 0
    baseline = json.loads(args.baseline.read_text()) if args.baseline.is_file() else None
    comparable = baseline is not None and baseline.get("samples") == results["samples"]
    lost = regressions(results, baseline) if comparable else []
    if lost:
        print(f"\n!!! REGRESSION: {len(lost)} unit(s) compiled in the baseline and fail now:", file=sys.stderr)
        for unit in lost:
            print(f"!!!   {unit}", file=sys.stderr)
        return 0 if args.allow_regressions else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
