"""Port many files in a process pool; results come back in input order.

The rule set goes to each worker once, through the pool's initializer; the
tasks carry only a file's bytes, its path and the macros its headers define.
"""
from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass

from hipport.options import Options
from hipport.rules.engine import FileResult
from hipport.rules.ruleset import RuleSet


@dataclass(frozen=True)
class PortTask:
    rel: str
    source: bytes
    declared: frozenset[str]
    path: str  # the file on disk, for a parser backend that reads it (clang)


_worker: dict = {}


def _start_worker(rules: RuleSet, options: Options) -> None:
    _worker["rules"], _worker["options"] = rules, options


def _port(task: PortTask) -> FileResult:
    from hipport.api import port_bytes

    return port_bytes(task.source, _worker["rules"], _worker["options"], task.rel, task.path, task.declared)


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return os.cpu_count() or 1


def port_all(tasks: list[PortTask], rules: RuleSet, options: Options, jobs: int,
             done: Callable[[PortTask], None] | None = None) -> list[FileResult]:
    """Port every task; done(task) is called as each one finishes, in any order."""
    done = done or (lambda task: None)
    if jobs <= 1 or len(tasks) <= 1:
        _start_worker(rules, options)
        results = []
        for task in tasks:
            results.append(_port(task))
            done(task)
        return results
    results: list[FileResult | None] = [None] * len(tasks)
    with ProcessPoolExecutor(max_workers=min(jobs, len(tasks)), initializer=_start_worker,
                             initargs=(rules, options)) as pool:
        futures = {pool.submit(_port, task): index for index, task in enumerate(tasks)}
        try:
            for future in as_completed(futures):
                index = futures[future]
                results[index] = future.result()
                done(tasks[index])
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    return results  # type: ignore[return-value]
