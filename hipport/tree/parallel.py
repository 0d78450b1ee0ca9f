"""Port many files, in this process or in a pool of workers, as they are read.

The rule set goes to each worker once, through the pool's initializer; the
tasks carry only a file's bytes, its path and the macros its headers define.
Files go to the workers in chunks, and each chunk's ports come back as compact
records without the sources the main process holds already (hipport.tree.records):
one task and one result per file made the main process, not the workers, the
bottleneck. Each worker stores the cache entries of what it ports. The workers
start before the first file is read (a process forked later would start with
every source read so far) or, on a rerun, at the first file the cache does not
have; only a few chunks are in flight at a time, so the sources waiting in
memory stay few however large the tree.
Workers ignore SIGINT: Ctrl-C reaches the whole process group, and a worker
interrupted while it holds the result queue's lock would hang the pool's
shutdown for ever. The main process alone stops the run. They are started
with SIGINT blocked, so that not even a worker's first instants can be hit.
"""

from __future__ import annotations

import gc
import os
import signal
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, as_completed, wait
from contextlib import contextmanager
from dataclasses import dataclass

from hipport.options import Options
from hipport.porting import port_bytes
from hipport.engine.port import FileResult
from hipport.ruleset.model import RuleSet
from hipport.tree.cache import PortCache
from hipport.tree.records import pack, unpack

# Files per chunk at most, so that results (and progress) keep coming back; the first chunks
# are smaller, so that every worker has work at once and a small tree is still shared out.
CHUNK_FILES = 32
CHUNK_BYTES = 1 << 20
# Chunks sent and not yet back, per worker, before the next file is read.
IN_FLIGHT_PER_WORKER = 4


@dataclass(frozen=True)
class PortTask:
    rel: str
    source: bytes
    declared: frozenset[str]
    path: str  # the file on disk, for a parser backend that reads it (clang)
    key: str = ""  # its cache entry, if the run is cached


_worker: dict = {}


def _start_worker(rules: RuleSet, options: Options) -> None:
    _worker["rules"], _worker["options"] = rules, options


def _start_pool_worker(rules: RuleSet, options: Options) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    _start_worker(rules, options)


@contextmanager
def _sigint_held():
    """Processes forked inside start with SIGINT blocked; a Ctrl-C meanwhile reaches this process after."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _port(task: PortTask) -> FileResult:
    return port_bytes(task.source, _worker["rules"], _worker["options"], task.rel, task.path, task.declared)


def _port_chunk(chunk: list[PortTask], cache: PortCache | None) -> list[tuple]:
    records = []
    for task in chunk:
        record = pack(_port(task))
        if cache is not None:
            cache.put_record(task.key, record)
        records.append(record)
    return records


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return os.cpu_count() or 1


Done = list[tuple[PortTask, FileResult]]


class Porter:
    """Ports tasks as they are handed over: here with one job, else in a pool of workers.

        with Porter(rules, options, jobs, cache, expected=n) as porter:
            for task in tasks:
                handle(porter.submit(task))  # the ports finished meanwhile, in any order
            handle(porter.finish())

    Each port is stored in cache under task.key by the process that made it.
    """

    def __init__(
        self, rules: RuleSet, options: Options, jobs: int, cache: PortCache | None = None, expected: int = 0
    ) -> None:
        self.cache = cache if cache is not None and cache.enabled else None
        self.pool: ProcessPoolExecutor | None = None
        self.chunk: list[PortTask] = []
        self.chunk_bytes = 0
        self.sent = 0
        self.pending: dict = {}  # future -> its chunk
        self.workers = min(jobs, expected)
        self.limit = self.workers * IN_FLIGHT_PER_WORKER
        self.rules, self.options = rules, options
        self.started = False
        self.thaw = gc.get_freeze_count() == 0  # else someone froze objects of their own: leave them so

    def _start(self) -> None:
        """Here, or a pool whose workers are forked now, before the next source is read."""
        self.started = True
        if self.workers <= 1:
            _start_worker(self.rules, self.options)
            return
        self.pool = ProcessPoolExecutor(
            max_workers=self.workers, initializer=_start_pool_worker, initargs=(self.rules, self.options)
        )
        with _sigint_held():  # the first submit forks every worker
            self.pool.submit(int)

    def __enter__(self) -> Porter:
        return self

    def __exit__(self, kind, value, traceback) -> None:
        if self.thaw:
            gc.unfreeze()  # see _handed_over
        if self.pool is None:
            return
        # One call that joins the pool's manager thread: after a shutdown(wait=False) a second
        # shutdown no longer does, and that thread, closing its wake-up pipe while the interpreter
        # exits, could make the exit print a traceback (EBADF) after a Ctrl-C.
        self.pool.shutdown(wait=True, cancel_futures=kind is not None)

    def submit(self, task: PortTask) -> Done:
        if not self.started:
            self._start()
        if self.pool is None:
            result = _port(task)
            if self.cache is not None:
                self.cache.put(task.key, result)
            return _handed_over([(task, result)])
        self.chunk.append(task)
        self.chunk_bytes += len(task.source)
        if len(self.chunk) < min(CHUNK_FILES, self.sent + 1) and self.chunk_bytes < CHUNK_BYTES:
            return []
        self._send()
        if len(self.pending) < self.limit:
            return self._collect([f for f in self.pending if f.done()])
        return self._collect(wait(self.pending, return_when=FIRST_COMPLETED).done)

    def finish(self) -> Done:
        """Every port not returned yet (waits for them)."""
        if self.pool is None:
            return []
        if self.chunk:
            self._send()
        return self._collect(list(as_completed(self.pending)))

    def _send(self) -> None:
        assert self.pool is not None  # chunks are sent only with a pool
        with _sigint_held():
            self.pending[self.pool.submit(_port_chunk, self.chunk, self.cache)] = self.chunk
        self.chunk, self.chunk_bytes = [], 0
        self.sent += 1

    def _collect(self, futures) -> Done:
        done: Done = []
        for future in futures:
            chunk = self.pending.pop(future)
            done.extend((task, unpack(record, task.source)) for task, record in zip(chunk, future.result()))
        return _handed_over(done)


def _handed_over(done: Done) -> Done:
    """done, its ports kept out of the collector's sight until the Porter closes.

    A tree run keeps every port to the end, for its report: each full collection walked all
    of them (the edits of 10,000 files are half a million objects), and one comes every time
    the heap has grown by a quarter. What is frozen is still freed when no longer referenced;
    only a reference cycle made meanwhile waits for the unfreeze.
    """
    gc.freeze()
    return done
