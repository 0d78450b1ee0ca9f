"""hipport's benchmark: start-up, throughput, reruns and scaling, beside PyTorch's hipify.

    python bench/run.py             # quick: 100 and 1,000 files, files up to 16 MB (a few minutes)
    python bench/run.py --full      # also 10,000 files and a 50 MB file (BENCH_FULL=1 does the same)
    python bench/run.py --smoke     # 100 files, one run each: proves the benchmark still works (CI)
    python bench/run.py --tree DIR  # the hipport in DIR (another checkout, or a frozen copy of this one)

Every figure is the median of several runs of the real command line in a fresh
process (min and max beside it), on a synthetic corpus that bench/corpus.py
writes at bench time. Results go to the terminal and to bench/results.json with
a description of the machine. The peer, torch.utils.hipify, comes from the
optional `bench` extra; without it the peer rows say so.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import corpus as corpus_gen  # noqa: E402  (bench/ is not a package)

PYTHON = sys.executable
PROBES = str(HERE / "probes.py")
# The console script, as users run it; `python -m hipport` where it is missing.
_SCRIPT = Path(PYTHON).with_name("hipport")
HIPPORT = [str(_SCRIPT)] if _SCRIPT.exists() else [PYTHON, "-m", "hipport"]
SEED = 1
CHECK_TARGET_S = 0.150
MBPS_TARGET = 5.0
PEER_SPEEDUP_TARGET = 3.0
WARM_SHARE_TARGET = 0.05
RSS_TARGET_MB = 300
# torch's hipify slows down more than linearly on big files (4 MB: 7 to 25 s here);
# a peer run past this is stopped and reported as "more than".
PEER_TIMEOUT_S = 120


@dataclass
class Mode:
    name: str
    corpus_sizes: tuple[int, ...]
    big_files_mb: tuple[float, ...]
    runs: int  # runs of each batch measurement
    check_runs: int
    peer: bool
    reruns: bool = True
    big_runs: int = 2  # 1 for files of 10 MB and more


MODES = {
    "smoke": Mode("smoke", (100,), (), runs=1, check_runs=2, peer=False, big_runs=1),
    "quick": Mode("quick", (100, 1000), (1.0, 4.0, 16.0), runs=3, check_runs=10, peer=True),
    "full": Mode("full", (100, 1000, 10000), (1.0, 4.0, 16.0, 50.0), runs=3, check_runs=10, peer=True),
}


@dataclass
class Row:
    section: str
    name: str
    seconds: list[float]
    files: int | None = None
    cpu_seconds: list[float] = field(default_factory=list)  # user + system, the process and its children
    bytes: int | None = None
    peak_rss_kb: int | None = None
    tree_rss_kb: int | None = None
    note: str = ""
    ratios: dict[str, float] = field(default_factory=dict)
    available: bool = True

    @property
    def median(self) -> float | None:
        return statistics.median(self.seconds) if self.seconds else None

    def to_json(self) -> dict:
        data = {"section": self.section, "name": self.name, "available": self.available, "note": self.note}
        if self.seconds:
            data.update(runs=[round(s, 4) for s in self.seconds], median_s=round(self.median, 4),
                        min_s=round(min(self.seconds), 4), max_s=round(max(self.seconds), 4))
            if self.cpu_seconds:
                data["cpu_median_s"] = round(statistics.median(self.cpu_seconds), 4)
            if self.files:
                data["files"] = self.files
                data["files_per_s"] = round(self.files / self.median, 1)
            if self.bytes:
                data["bytes"] = self.bytes
                data["mb_per_s"] = round(self.bytes / 1e6 / self.median, 2)
        if self.peak_rss_kb:
            data["peak_rss_mb"] = round(self.peak_rss_kb / 1024, 1)
        if self.tree_rss_kb:
            data["peak_tree_rss_mb"] = round(self.tree_rss_kb / 1024, 1)
        if self.ratios:
            data["ratios"] = {k: round(v, 3) for k, v in self.ratios.items()}
        return data


# -- running commands ----------------------------------------------------------


class CommandFailed(RuntimeError):
    pass


class TimedOut(RuntimeError):
    pass


@dataclass
class Timing:
    wall: float
    cpu: float  # user + system of the process and every child it waited for
    peak_rss_kb: int  # the largest single process
    tree_rss_kb: int | None  # sampled sum over the process tree, when asked for


class _TreeRss:
    """Samples the summed RSS of a process and its descendants (for --jobs N)."""

    def __init__(self, pid: int, every: float = 0.02) -> None:
        self.pid, self.every, self.peak = pid, every, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return self.peak

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, sum(_rss_kb(p) for p in _descendants(self.pid)))
            self._stop.wait(self.every)


def _descendants(pid: int) -> list[int]:
    found, pending = [], [pid]
    while pending:
        p = pending.pop()
        found.append(p)
        try:
            children = Path(f"/proc/{p}/task/{p}/children").read_text().split()
        except OSError:
            continue
        pending.extend(int(c) for c in children)
    return found


def _rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def run_timed(cmd: list[str], ok: tuple[int, ...] = (0,), env: dict | None = None,
              tree_rss: bool = False, timeout: float | None = None) -> Timing:
    """Run cmd in a fresh process and measure it; output goes to a scratch file, not a pipe that could fill."""
    with tempfile.TemporaryFile() as log:
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=log, stderr=log, stdin=subprocess.DEVNULL, env=env,
                                start_new_session=True)
        sampler = _TreeRss(proc.pid) if tree_rss else None
        expired = threading.Event()
        timer = threading.Timer(timeout, lambda: (expired.set(), os.killpg(proc.pid, 9))) if timeout else None
        if timer:
            timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - started
        if timer:
            timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        tree = sampler.stop() if sampler else None
        if expired.is_set():
            raise TimedOut(f"stopped after {timeout:.0f}s")
        if proc.returncode not in ok:
            log.seek(0)
            tail = log.read().decode("utf-8", "replace").strip().splitlines()[-5:]
            raise CommandFailed(f"{' '.join(map(str, cmd))} exited {proc.returncode}: " + " | ".join(tail))
    return Timing(elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, tree)


def run_json(cmd: list[str], env: dict | None = None) -> dict:
    """Run a probe that prints one JSON object on its last stdout line."""
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise CommandFailed(f"{' '.join(cmd)} exited {done.returncode}: {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def hipport_env(cache: Path, tree: Path | None) -> dict:
    env = dict(os.environ)
    env["HIPPORT_CACHE_DIR"] = str(cache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if tree is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tree), env.get("PYTHONPATH")]))
    return env


def use_tree(tree: Path) -> None:
    """Benchmark the hipport in another checkout (or a copy of this one) instead of the installed one."""
    global HIPPORT
    HIPPORT = [PYTHON, "-m", "hipport"]  # the console script would import the installed package


def clear_run_cache(cache: Path) -> None:
    """Forget everything convert cached between runs, but keep the compiled rule cache.

    The rule cache is built once per installation (and per rule change), so a
    user's "cold" run of a new tree still has it.
    """
    if not cache.exists():
        return
    for entry in cache.rglob("*"):
        if entry.is_file() and not (entry.name.startswith("rules-") and entry.suffix == ".pickle"):
            entry.unlink()
    for entry in sorted(cache.rglob("*"), reverse=True):
        if entry.is_dir() and not any(entry.iterdir()):
            entry.rmdir()


# -- what this hipport can do --------------------------------------------------


@dataclass
class Capabilities:
    jobs: bool
    check: bool
    cache_option: str | None  # the convert flag that turns its incremental cache off, if any
    mentions_cache: bool
    force: bool  # convert needs --force to write into a non-empty OUT

    def to_json(self) -> dict:
        return {"convert_jobs": self.jobs, "check": self.check, "convert_cache": self.mentions_cache,
                "convert_no_cache_flag": self.cache_option, "convert_force": self.force}


def capabilities(env: dict) -> Capabilities:
    top = subprocess.run([*HIPPORT, "--help"], capture_output=True, text=True, env=env).stdout
    convert = subprocess.run([*HIPPORT, "convert", "--help"], capture_output=True, text=True, env=env).stdout
    commands = {line.split()[0] for line in top.split("Commands:", 1)[-1].splitlines() if line.strip()}
    no_cache = next((flag for flag in ("--no-cache",) if flag in convert), None)
    return Capabilities(jobs="--jobs" in convert, check="check" in commands, cache_option=no_cache,
                        mentions_cache="cache" in convert.lower(), force="--force" in convert)


# -- the machine -----------------------------------------------------------------


def machine(env: dict, tree: Path | None) -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram_gb = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                ram_gb = round(int(line.split()[1]) / 1024 ** 2, 1)
    except OSError:
        pass
    version = subprocess.run([PYTHON, "-c", "import hipport; print(hipport.__version__)"], capture_output=True,
                             text=True, env=env).stdout.strip()
    checkout = tree if tree is not None and (tree / ".git").exists() else ROOT

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], capture_output=True, text=True, cwd=checkout)
        return done.stdout.strip() if done.returncode == 0 else ""

    commit = git("rev-parse", "HEAD")
    dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "ram_gb": ram_gb,
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "hipport": version,
        "git_commit": commit or None,
        "git_dirty": dirty,
        "tree": None if tree is None else (str(tree) if checkout == tree else f"a copy of {checkout}'s work tree"),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        "date": time.strftime("%Y-%m-%d %H:%M:%S %z"),
    }


# -- corpora -----------------------------------------------------------------------


def ensure_corpus(work: Path, files: int) -> corpus_gen.Corpus:
    """Generate the corpus, or reuse one this generator already wrote with the same arguments."""
    root = work / f"corpus-{files}"
    stamp = root / ".bench-stamp"
    key = f"{files}:{SEED}:{_digest(HERE / 'corpus.py')}"
    if stamp.exists() and stamp.read_text() == key:
        listing = json.loads((work / f"corpus-{files}.json").read_text())
        c = corpus_gen.Corpus(root, files=[root / p for p in listing["files"]], bytes=listing["bytes"],
                              latin1=[root / p for p in listing["latin1"]], crlf=[root / p for p in listing["crlf"]],
                              large=[root / p for p in listing["large"]])
        return c
    if root.exists():
        shutil.rmtree(root)
    c = corpus_gen.generate(root, files, SEED)
    rel = lambda ps: [p.relative_to(root).as_posix() for p in ps]  # noqa: E731
    (work / f"corpus-{files}.json").write_text(json.dumps(
        {"files": rel(c.files), "bytes": c.bytes, "latin1": rel(c.latin1), "crlf": rel(c.crlf), "large": rel(c.large)}))
    stamp.write_text(key)
    return c


def _digest(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def source_bytes(paths) -> int:
    return sum(p.stat().st_size for p in paths)


# -- measurements --------------------------------------------------------------------


class Bench:
    def __init__(self, mode: Mode, work: Path, peer: bool, tree: Path | None = None) -> None:
        self.mode = mode
        self.work = work
        self.cache = work / "cache"
        self.env = hipport_env(self.cache, tree)
        self.rows: list[Row] = []
        self.peer_enabled = peer
        self.peer_info = peer_description() if peer else {"available": False, "note": "peer disabled"}
        self.caps = capabilities(self.env)
        self.corpora: dict[int, corpus_gen.Corpus] = {}
        self.breakdown: dict = {}
        self.log = lambda msg: print(f"  .. {msg}", file=sys.stderr, flush=True)

    # ---- helpers

    def add(self, row: Row) -> Row:
        self.rows.append(row)
        median = f"{row.median:.3f}s" if row.seconds else "n/a"
        self.log(f"{row.section}: {row.name}: {median} {row.note}")
        return row

    def convert_cmd(self, src: Path, out: Path, report: Path, jobs: int | None) -> list[str]:
        cmd = [*HIPPORT, "convert", str(src), "-o", str(out), "--report", str(report)]
        if jobs is not None:
            cmd += ["--jobs", str(jobs)]
        return cmd

    def measure(self, section: str, name: str, runs: int, cmd_for_run, before=None, ok=(0,), tree_rss=False,
                **row) -> Row:
        """Run a command `runs` times in fresh processes and record the row."""
        timings = []
        for i in range(runs):
            if before is not None:
                before(i)
            timings.append(run_timed(cmd_for_run(i), ok=ok, env=self.env, tree_rss=tree_rss))
        trees = [t.tree_rss_kb for t in timings if t.tree_rss_kb]
        return self.add(Row(section, name, [t.wall for t in timings], cpu_seconds=[t.cpu for t in timings],
                            peak_rss_kb=max(t.peak_rss_kb for t in timings), tree_rss_kb=max(trees) if trees else None,
                            **row))

    # ---- sections

    def warm_up(self) -> None:
        """Build the compiled rule cache once, as any first run after installing would."""
        self.cache.mkdir(parents=True, exist_ok=True)
        clear_run_cache(self.cache)
        tmp = self.work / "warmup.cu"
        tmp.write_text("__global__ void k() {}\nint main() { k<<<1, 1>>>(); cudaDeviceSynchronize(); }\n")
        run_timed([*HIPPORT, "convert", str(tmp), "-o", os.devnull], env=self.env)
        if self.caps.check:  # also compiles the check path's modules to bytecode
            run_timed([*HIPPORT, "check", str(tmp)], ok=(0, 1), env=self.env)

    def single_file_rows(self, c: corpus_gen.Corpus) -> Path:
        one = typical_file(c)
        twenty = [p for p in c.sources() if p.suffix in (".cu", ".cpp", ".cuh", ".h")][:20]
        runs = self.mode.check_runs
        size = one.stat().st_size
        interp = self.measure("start-up", "python -c pass (interpreter alone)", runs, lambda i: [PYTHON, "-c", "pass"])
        if self.caps.check:
            row = self.measure("start-up", f"hipport check one file ({size / 1000:.1f} kB)", runs,
                               lambda i: [*HIPPORT, "check", str(one)], ok=(0, 1), files=1, bytes=size)
            self.measure("start-up", f"hipport check {len(twenty)} files", max(3, runs // 2),
                         lambda i: [*HIPPORT, "check", *map(str, twenty)], ok=(0, 1), files=len(twenty),
                         bytes=source_bytes(twenty))
        else:
            row = self.measure("start-up", f"convert one file -o /dev/null ({size / 1000:.1f} kB)", runs,
                               lambda i: [*HIPPORT, "convert", str(one), "-o", os.devnull], files=1, bytes=size,
                               note="no `hipport check` in this build: convert stands in")
        row.ratios["x_interpreter_start"] = row.median / interp.median
        self.measure("start-up", "hipport convert one file -o /dev/null --report", runs,
                     lambda i: [*HIPPORT, "convert", str(one), "-o", os.devnull, "--report", os.devnull],
                     files=1, bytes=size)
        return one

    def cold_start_breakdown(self, one: Path) -> None:
        runs = max(3, self.mode.check_runs // 2)
        samples = [run_json([PYTHON, PROBES, "breakdown", str(one)], env=self.env) for _ in range(runs)]
        interp = next(r for r in self.rows if r.name.startswith("python -c pass"))
        wall = {"interpreter start (python -c pass)": interp.median}
        cpu = {"interpreter start (python -c pass)": statistics.median(interp.cpu_seconds)}
        for key in samples[0]["steps"]:
            values = [s["steps"].get(key) for s in samples]
            if None in values:
                continue
            wall[key] = statistics.median(v[0] for v in values)
            cpu[key] = statistics.median(v[1] for v in values)
        self.breakdown = {"file": one.name, "bytes": one.stat().st_size, "runs": runs,
                          "steps_s": {k: round(v, 4) for k, v in wall.items()},
                          "steps_cpu_s": {k: round(v, 4) for k, v in cpu.items()},
                          "total_s": round(sum(wall.values()), 4), "total_cpu_s": round(sum(cpu.values()), 4),
                          "notes": samples[0].get("notes", [])}
        self.log(f"breakdown (wall): {self.breakdown['steps_s']}")

    def batch_rows(self, n: int, c: corpus_gen.Corpus) -> None:
        out, report = self.work / f"out-{n}", self.work / f"report-{n}.json"
        runs = self.mode.runs if n <= 1000 else 1

        def fresh(_i):
            shutil.rmtree(out, ignore_errors=True)
            clear_run_cache(self.cache)

        job_counts: list[int | None] = [1, os.cpu_count() or 1] if self.caps.jobs else [None]
        for jobs in dict.fromkeys(job_counts):
            label = f"cold convert, {n:,} files, --jobs {jobs}" if jobs else f"cold convert, {n:,} files"
            self.measure("batch", label, runs, lambda i: self.convert_cmd(c.root, out, report, jobs), before=fresh,
                         tree_rss=bool(jobs and jobs > 1), files=len(c.files), bytes=c.bytes,
                         note="" if jobs else "convert has no --jobs in this build: one process")
        if not self.caps.jobs:
            self.add(Row("batch", f"cold convert, {n:,} files, --jobs {os.cpu_count()}", [], available=False,
                         note="n/a: convert has no --jobs option in this build"))

    def parser_rows(self, c: corpus_gen.Corpus, count: int = 20) -> None:
        """The precise libclang backend next to tree-sitter on the same files (issue 7).

        A subset, because clang reads the CUDA and C++ headers for every unit:
        about a thousand times tree-sitter's cost per file. Both run with one
        process and no cache so that the ratio is parse against parse.
        """
        src = self.work / f"parser-src-{count}"
        shutil.rmtree(src, ignore_errors=True)
        src.mkdir(parents=True)
        picked = [p for p in c.sources() if p.suffix in (".cu", ".cpp")][:count]
        for path in picked:
            shutil.copy2(path, src / path.name)
        size = source_bytes(picked)
        rows = {}
        for parser in ("treesitter", "clang"):
            out = self.work / f"parser-out-{parser}"

            def fresh(_i, out=out):
                shutil.rmtree(out, ignore_errors=True)

            rows[parser] = self.measure(
                "parser", f"convert {len(picked)} files, --parser {parser}, --jobs 1, --no-cache",
                1 if parser == "clang" else self.mode.runs,
                lambda i, parser=parser, out=out: [*HIPPORT, "convert", str(src), "-o", str(out), "-q",
                                                   "--parser", parser, "--jobs", "1", "--no-cache"],
                before=fresh, files=len(picked), bytes=size,
                note="files whose library headers CUDA lacks here fall back to tree-sitter (HP903)"
                if parser == "clang" else "")
        if rows["clang"].seconds and rows["treesitter"].seconds:
            rows["clang"].ratios["x_treesitter_time"] = rows["clang"].median / rows["treesitter"].median

    def rerun_rows(self, n: int, c: corpus_gen.Corpus) -> None:
        """Warm rerun and a rerun after editing 1% of the sources, on a copy of the corpus."""
        src = self.work / f"rerun-src-{n}"
        out, report = self.work / f"rerun-out-{n}", self.work / f"rerun-report-{n}.json"
        shutil.rmtree(src, ignore_errors=True)
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(c.root, src)
        clear_run_cache(self.cache)
        jobs = os.cpu_count() if self.caps.jobs else None
        cmd = self.convert_cmd(src, out, report, jobs) + (["--force"] if self.caps.force else [])
        cold = run_timed(cmd, env=self.env).wall
        note = "" if self.caps.mentions_cache else "convert has no incremental cache in this build"
        flag = f", --jobs {jobs}" if jobs else ""
        warm = self.measure("reruns", f"warm rerun, {n:,} files{flag}, nothing changed", self.mode.runs,
                            lambda i: cmd, files=len(c.files), bytes=c.bytes,
                            note=(note + f"; the cold run before it took {cold:.2f}s").lstrip("; "))
        warm.ratios["share_of_cold"] = warm.median / cold
        sources = sorted(p for p in src.rglob("*") if p.suffix in corpus_gen.SOURCE_SUFFIXES)
        k = max(1, round(len(sources) / 100))
        touched = sources[:: len(sources) // k][:k]

        def edit(i):
            for p in touched:
                with open(p, "ab") as f:
                    f.write(f"// bench edit {i}\n".encode())

        edited = self.measure("reruns", f"rerun after editing {len(touched)} of {len(sources)} sources (1%){flag}",
                              self.mode.runs, lambda i: cmd, before=edit, files=len(c.files), bytes=c.bytes, note=note)
        edited.ratios["share_of_cold"] = edited.median / cold

    def big_file_rows(self) -> None:
        base = None
        peer_stopped = None
        for mb in self.mode.big_files_mb:
            path = self.work / f"big-{mb:g}MB" / "big.cu"
            if not path.exists():
                shutil.rmtree(path.parent, ignore_errors=True)
                corpus_gen.big_file(path, mb, SEED)
            size = path.stat().st_size
            out = self.work / f"big-{mb:g}MB-out.cu"
            runs = self.mode.big_runs if mb < 10 else 1
            row = self.measure("file size", f"one {size / 1e6:.0f} MB file", runs,
                               lambda i: [*HIPPORT, "convert", str(path), "-o", str(out), "--report", f"{out}.json"],
                               files=1, bytes=size)
            per_mb = row.median / (size / 1e6)
            base = base or per_mb
            row.ratios["s_per_mb_vs_smallest_file"] = per_mb / base
            if not (self.peer_enabled and self.peer_info["available"]):
                continue
            if peer_stopped:
                self.add(Row("file size", f"peer: torch hipify, one {size / 1e6:.0f} MB file", [], available=False,
                             note=f"not run: the peer already needed more than {PEER_TIMEOUT_S}s on {peer_stopped}"))
                continue
            peer = self.peer_row("file size", f"one {size / 1e6:.0f} MB file", path.parent, 1, size, 1)
            if peer.seconds:
                row.ratios["x_peer_time"] = row.median / peer.median
            else:
                peer_stopped = f"{size / 1e6:.0f} MB"
                row.ratios["x_peer_time_at_most"] = row.median / PEER_TIMEOUT_S

    def peer_row(self, section: str, what: str, src: Path, files: int, size: int, runs: int,
                 ignores: list[Path] = ()) -> Row:
        out = self.work / "peer-out"
        listing = self.work / "peer-ignores.json"
        seconds, imports, rss = [], [], 0
        name = f"peer: torch hipify, {what}"
        for _ in range(runs):
            shutil.rmtree(out, ignore_errors=True)
            listing.write_text(json.dumps([str(out / p.relative_to(src)) for p in ignores]))
            try:
                timing = run_timed([PYTHON, PROBES, "peer", str(src), str(out), str(listing)], env=self.env,
                                   timeout=PEER_TIMEOUT_S)
            except TimedOut as exc:
                return self.add(Row(section, name, [], files=files, bytes=size, available=False,
                                    note=f"more than {PEER_TIMEOUT_S}s: {exc}"))
            result = json.loads((out.parent / "peer-result.json").read_text())
            seconds.append(result["import_hipify_s"] + result["hipify_s"])
            imports.append(result["import_torch_s"])
            rss = max(rss, timing.peak_rss_kb)
        note = (f"hipify() plus importing its module; importing torch first ({statistics.median(imports):.1f}s) "
                "is not counted; RSS includes torch")
        if ignores:
            note += f"; skips the {len(ignores)} latin-1 files it cannot read (UnicodeDecodeError)"
        return self.add(Row(section, name, seconds, files=files, bytes=size, peak_rss_kb=rss, note=note))

    def peer_rows(self) -> None:
        for n, c in self.corpora.items():
            if not self.peer_info["available"]:
                self.add(Row("peer", f"peer: torch hipify, {n:,} files", [], available=False,
                             note=self.peer_info["note"]))
                continue
            runs = self.mode.runs if n <= 1000 else 1
            peer = self.peer_row("peer", f"{n:,} files", c.root, len(c.files), c.bytes, runs, ignores=c.latin1)
            for row in self.rows:
                if row.section == "batch" and row.seconds and f" {n:,} files" in row.name and peer.seconds:
                    row.ratios["x_peer_time"] = row.median / peer.median

    def scaling(self) -> None:
        base = None
        for row in self.rows:
            if row.section != "batch" or not row.seconds or ("--jobs" in row.name and "--jobs 1" not in row.name):
                continue
            per_mb = row.median / (row.bytes / 1e6)
            base = base or per_mb
            row.ratios["s_per_mb_vs_smallest_corpus"] = per_mb / base


def typical_file(c: corpus_gen.Corpus) -> Path:
    """A .cu file of median size among those with kernels: what a pre-commit hook sees."""
    kernels = sorted((p for p in c.sources() if "_kernels_" in p.name and p not in c.latin1 and p not in c.crlf),
                     key=lambda p: (p.stat().st_size, p.name))
    if not kernels:
        kernels = sorted(c.sources(), key=lambda p: (p.stat().st_size, p.name))
    return kernels[len(kernels) // 2]


def peer_description() -> dict:
    try:
        from importlib.metadata import version

        v = version("torch")
    except Exception:
        return {"available": False, "note": "n/a: torch is not installed (pip install -e '.[bench]')"}
    return {"available": True, "name": "torch.utils.hipify.hipify_python.hipify", "torch": v, "note": ""}


# -- output -----------------------------------------------------------------------


def render(results: dict) -> str:
    lines = []
    m = results["machine"]
    lines.append(f"hipport {m['hipport']} ({(m['git_commit'] or 'no git')[:10]}{' +dirty' if m['git_dirty'] else ''})"
                 f" on {m['cpu']}, {m['cores']} cores, {m['ram_gb']} GB, Python {m['python']};"
                 f" load average at start {m['load_average_at_start']}, at end {results['load_average_at_end']}")
    peer = results["peer"]
    lines.append(f"peer: {peer.get('name', 'torch hipify')} (torch {peer.get('torch', '-')})" if peer["available"]
                 else f"peer: {peer['note']}")
    header = (f"{'measurement':56} {'median':>8} {'min-max':>15} {'CPU':>7} {'files/s':>8} {'MB/s':>6} "
              f"{'RSS MB':>9}  ratios")
    section = None
    for row in results["rows"]:
        if row["section"] != section:
            section = row["section"]
            lines += ["", f"[{section}]", header]
        if not row.get("median_s"):
            lines.append(f"{row['name'][:56]:56} {'n/a':>8}  {row['note']}")
            continue
        rss = row.get("peak_rss_mb", "")
        if "peak_tree_rss_mb" in row:
            rss = f"{rss}/{row['peak_tree_rss_mb']}"
        ratios = "  ".join(_ratio_text(k, v) for k, v in row.get("ratios", {}).items())
        cpu = _sec(row["cpu_median_s"]) if "cpu_median_s" in row else ""
        lines.append(f"{row['name'][:56]:56} {_sec(row['median_s']):>8} "
                     f"{_sec(row['min_s']) + '-' + _sec(row['max_s']):>15} {cpu:>7} {row.get('files_per_s', ''):>8} "
                     f"{row.get('mb_per_s', ''):>6} {rss:>9}  {ratios}")
        if row["note"]:
            lines.append(f"{'':4}{row['note']}")
    b = results.get("breakdown")
    if b:
        lines += ["", f"[cold start, one {b['bytes'] / 1000:.1f} kB file, in process; medians of {b['runs']} runs]",
                  f"  {'step':52} {'wall':>8} {'CPU':>8}"]
        for step, value in b["steps_s"].items():
            lines.append(f"  {step:52} {_sec(value):>8} {_sec(b['steps_cpu_s'][step]):>8}")
        lines.append(f"  {'sum':52} {_sec(b['total_s']):>8} {_sec(b['total_cpu_s']):>8}")
        lines += [f"  note: {n}" for n in b["notes"]]
    lines += ["", "[targets]"]
    for t in results["targets"]:
        state = "n/a" if t["met"] is None else ("met" if t["met"] else "NOT MET")
        lines.append(f"  {state:8} {t['target']}: {t['value']}")
    return "\n".join(lines)


def _sec(s: float) -> str:
    return f"{s * 1000:.0f}ms" if s < 1 else f"{s:.2f}s"


def _ratio_text(key: str, value: float) -> str:
    if key == "x_peer_time":
        return f"{1 / value:.1f}x faster than peer" if value < 1 else f"{value:.1f}x slower than peer"
    if key == "share_of_cold":
        return f"{value * 100:.0f}% of cold"
    if key == "s_per_mb_vs_smallest_corpus":
        return f"{value:.2f}x time/MB of smallest corpus"
    if key == "s_per_mb_vs_smallest_file":
        return f"{value:.2f}x time/MB of smallest file"
    if key == "x_peer_time_at_most":
        return f"more than {1 / value:.1f}x faster than peer (peer stopped)"
    if key == "x_interpreter_start":
        return f"{value:.1f}x bare interpreter"
    return f"{key}={value:.2f}"


def targets(rows: list[Row], mode: Mode, caps: Capabilities) -> list[dict]:
    def find(pred):
        return next((r for r in rows if r.seconds and pred(r)), None)

    out = []
    one = find(lambda r: r.section == "start-up" and ("check one file" in r.name or "convert one file -o /dev/null ("
                                                      in r.name))
    out.append({"target": f"check one file under {CHECK_TARGET_S * 1000:.0f} ms wall, start-up included",
                "value": f"{one.median * 1000:.0f} ms wall, {statistics.median(one.cpu_seconds) * 1000:.0f} ms CPU"
                if one else "n/a",
                "met": (one.median < CHECK_TARGET_S) if one else None})
    largest = max(mode.corpus_sizes)
    jobs_label = f"--jobs {os.cpu_count()}" if caps.jobs else ""
    batch = find(lambda r: r.section == "batch" and f" {largest:,} files" in r.name and r.name.endswith(jobs_label)) \
        if caps.jobs else find(lambda r: r.section == "batch" and f" {largest:,} files" in r.name)
    mbps = batch.bytes / 1e6 / batch.median if batch else None
    out.append({"target": f"cold batch convert with JSON report, {jobs_label or 'one process'}, >= {MBPS_TARGET} MB/s",
                "value": f"{mbps:.2f} MB/s on {largest:,} files ({batch.bytes / 1e6:.1f} MB)" if mbps else "n/a",
                "met": (mbps >= MBPS_TARGET) if mbps else None})
    single = find(lambda r: r.section == "batch" and f" {largest:,} files" in r.name and "--jobs 2" not in r.name
                  and ("--jobs 1" in r.name or not caps.jobs))
    if single:
        s_mbps = single.bytes / 1e6 / single.median
        cpu_mbps = single.bytes / 1e6 / statistics.median(single.cpu_seconds)
        out.append({"target": f"single-process throughput >= {MBPS_TARGET} MB/s",
                    "value": f"{s_mbps:.2f} MB/s wall ({cpu_mbps:.2f} MB per CPU-second)",
                    "met": s_mbps >= MBPS_TARGET})
    ratio = batch.ratios.get("x_peer_time") if batch else None
    out.append({"target": f"at least {PEER_SPEEDUP_TARGET:g}x faster than torch hipify on the same corpus",
                "value": f"{1 / ratio:.2f}x as fast" if ratio else "n/a (no peer)",
                "met": (1 / ratio >= PEER_SPEEDUP_TARGET) if ratio else None})
    warms = [r for r in rows if r.section == "reruns" and r.name.startswith("warm") and "share_of_cold" in r.ratios]
    # Judged on the largest tree, like throughput; the smaller ones are shown beside it.
    share = warms[-1].ratios["share_of_cold"] if warms else None
    out.append({"target": f"warm rerun under {WARM_SHARE_TARGET * 100:.0f}% of cold",
                "value": "; ".join(f"{r.ratios['share_of_cold'] * 100:.1f}% of cold on {r.name.split(', ')[1]}"
                                   for r in warms) or "n/a",
                "met": (share < WARM_SHARE_TARGET) if share else None})
    rss_rows = [r for r in rows if r.section == "batch" and r.seconds and f" {largest:,} files" in r.name]
    peak = max(((r.tree_rss_kb or r.peak_rss_kb or 0) for r in rss_rows), default=0) / 1024
    out.append({"target": f"peak memory under {RSS_TARGET_MB} MB for the {largest:,}-file corpus"
                + ("" if largest >= 10000 else " (10,000 files in --full)"),
                "value": f"{peak:.0f} MB" if peak else "n/a", "met": (peak < RSS_TARGET_MB) if peak else None})
    for key, what in (("s_per_mb_vs_smallest_corpus", "corpus size"), ("s_per_mb_vs_smallest_file", "file size")):
        scale = [r.ratios[key] for r in rows if key in r.ratios]
        if len(scale) > 1:
            out.append({"target": f"time grows linearly (or better) with {what}",
                        "value": "time/MB against the smallest: " + ", ".join(f"{s:.2f}x" for s in scale),
                        "met": max(scale) <= 1.25})
    return out


# -- main ---------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--full", action="store_true", help="also 10,000 files and a 50 MB file")
    parser.add_argument("--smoke", action="store_true", help="100 files, one run each, no peer (what CI runs)")
    parser.add_argument("--no-peer", action="store_true", help="skip torch hipify")
    parser.add_argument("--work", type=Path, default=HERE / "corpus", help="scratch directory (default bench/corpus)")
    parser.add_argument("--results", type=Path, default=HERE / "results.json", help="default bench/results.json")
    parser.add_argument("--tree", type=Path, metavar="DIR",
                        help="benchmark the hipport package in DIR (a checkout, or a copy of this work tree)")
    args = parser.parse_args(argv)
    tree = args.tree.resolve() if args.tree else None
    if tree is not None:
        if not (tree / "hipport" / "__init__.py").is_file():
            parser.error(f"{tree}: no hipport package there")
        use_tree(tree)

    mode = MODES["smoke" if args.smoke else "full" if args.full or os.environ.get("BENCH_FULL") == "1" else "quick"]
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    bench = Bench(mode, work, peer=mode.peer and not args.no_peer, tree=tree)
    described = machine(bench.env, tree)  # the load average before the bench adds to it
    print(f"hipport bench ({mode.name}): corpora {', '.join(f'{n:,}' for n in mode.corpus_sizes)} files; "
          f"scratch {work}", file=sys.stderr)
    try:
        bench.warm_up()
        for n in mode.corpus_sizes:
            bench.corpora[n] = ensure_corpus(work, n)
        first = bench.corpora[mode.corpus_sizes[0]]
        one = bench.single_file_rows(bench.corpora[max(mode.corpus_sizes)] if mode.name != "smoke" else first)
        bench.cold_start_breakdown(one)
        for n, c in bench.corpora.items():
            bench.batch_rows(n, c)
        if mode.reruns:
            # Start-up is a fixed ~80 ms, so the share of cold falls with the tree: show both sizes.
            for n in [n for n in (1000, 10000) if n in bench.corpora] or [mode.corpus_sizes[0]]:
                bench.rerun_rows(n, bench.corpora[n])
        bench.parser_rows(first)
        bench.big_file_rows()
        if bench.peer_enabled:
            bench.peer_rows()
        else:
            bench.add(Row("peer", "peer: torch hipify", [], available=False,
                          note="n/a: peer skipped (--no-peer or smoke)"))
        bench.scaling()
    except CommandFailed as exc:
        print(f"bench: {exc}", file=sys.stderr)
        return 1

    results = {
        "schema": 1,
        "mode": mode.name,
        "command": "python bench/run.py" + (" --full" if mode.name == "full" else " --smoke" if mode.name == "smoke"
                                            else ""),
        "machine": described,
        "hipport_capabilities": bench.caps.to_json(),
        "peer": bench.peer_info,
        "corpora": {str(n): {**c.summary(), "seed": SEED} for n, c in bench.corpora.items()},
        "rows": [r.to_json() for r in bench.rows],
        "breakdown": bench.breakdown,
        "targets": targets(bench.rows, mode, bench.caps),
        "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
        "bench_seconds": round(time.perf_counter() - started, 1),
    }
    args.results.write_text(json.dumps(results, indent=2) + "\n")
    print(render(results))
    print(f"\nwrote {args.results} in {results['bench_seconds']:.0f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
