"""Compare a program's output with a reference's, numbers within a tolerance.

Both outputs are split into whitespace-separated tokens; a token that reads as
a number on both sides matches when |a - b| <= max(abs_tol, rel_tol * max(|a|, |b|)),
any other token must be equal. Timings differ from run to run by nature: the
reference command should print none, the user filters them out (--ignore-lines), or,
against a CUDA original, the original runs twice and what its own runs disagree on is
not compared.
"""

from __future__ import annotations

import math
import re
import subprocess
from pathlib import Path

_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:inf|nan)", re.I)
_TOKEN = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|(?i:[-+]?(?:inf|nan))\b|[^\s\d+\-.]+|\S")


TAIL_LINES = 8  # how much of a program's output a verdict shows


def decoded(data) -> str:
    """A program's output as text, whatever subprocess gave (bytes, str, or None after a time-out)."""
    if data is None:
        return ""
    return data.decode("utf-8", "replace") if isinstance(data, bytes) else data


def output_tail(text: str) -> str:
    return "\n".join(text.rstrip().splitlines()[-TAIL_LINES:])


def _tokens(text: str) -> list[str]:
    # numbers are split from the words around them: "count=71," gives count, =, 71, ","
    return [m.group() for m in _TOKEN.finditer(text)]


def _close(a: float, b: float, rel_tol: float, abs_tol: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b or abs(a - b) <= max(abs_tol, rel_tol * max(abs(a), abs(b)))


def difference(
    actual: str,
    reference: str,
    rel_tol: float = 1e-5,
    abs_tol: float = 1e-8,
    ignore: str | None = None,
    reference_again: str | None = None,
    actual_again: str | None = None,
) -> str | None:
    """None when the outputs agree; otherwise where they first differ, in one line. Lines that
    the regular expression ignore finds (timings, say) are left out on all sides.

    reference_again and actual_again are second runs of the same programs: a token that a
    program prints differently from one run to the next is nondeterministic by nature (a
    timing, a bandwidth, an address, a race in the program itself) and is not compared."""
    mine, theirs = _tokens(_kept(actual, ignore)), _tokens(_kept(reference, ignore))
    unstable: set[int] = set()
    reference_varies = False
    for first, again_text in ((theirs, reference_again), (mine, actual_again)):
        if again_text is None:
            continue
        again = _tokens(_kept(again_text, ignore))
        if len(again) != len(first):
            reference_varies = reference_varies or first is theirs
            continue
        unstable |= {i for i, (a, b) in enumerate(zip(first, again)) if a != b}
    varies = " (the reference's own two runs differ in length too: nondeterministic output)" if reference_varies else ""
    for index, (a, b) in enumerate(zip(mine, theirs)):
        if index in unstable or _same(a, b, rel_tol, abs_tol):
            continue
        return f"token {index + 1}: '{a}' where the reference has '{b}'{varies}"
    if len(mine) != len(theirs):
        return f"{len(mine)} tokens where the reference has {len(theirs)}{varies}"
    return None


def same_lines_reordered(actual: str, reference: str, ignore: str | None = None) -> bool:
    """The same lines, each as often, in another order: what GPU threads print (device printf)
    comes out in an order CUDA leaves unspecified."""
    mine, theirs = _kept(actual, ignore).splitlines(), _kept(reference, ignore).splitlines()
    return mine != theirs and sorted(mine) == sorted(theirs)


def _kept(text: str, ignore: str | None) -> str:
    if not ignore:
        return text
    pattern = re.compile(ignore)
    return "\n".join(line for line in text.splitlines() if not pattern.search(line))


def _same(a: str, b: str, rel_tol: float, abs_tol: float) -> bool:
    if a == b:
        return True
    return bool(_NUMBER.fullmatch(a) and _NUMBER.fullmatch(b) and _close(float(a), float(b), rel_tol, abs_tol))


def compare_with_reference(program, root: Path, output: str, settings) -> str | None:
    """Run --compare's reference command for program; None when output agrees with it, else why not."""
    assert settings.compare is not None
    main = program.units[0]
    base = root if root.is_dir() else root.parent
    command = settings.compare.format(
        name=program.name, stem=main.name.split(".")[0], dir=(base / program.directory).as_posix()
    )
    try:
        ref = subprocess.run(
            command, shell=True, capture_output=True, text=True, errors="replace", timeout=settings.timeout
        )
    except subprocess.TimeoutExpired:
        return f"the reference command ran over {settings.timeout:g} s: {command}"
    if ref.returncode != 0:
        return f"the reference command failed (exit status {ref.returncode}): {command}"
    found = difference(output, ref.stdout, settings.rel_tol, settings.abs_tol, settings.ignore)
    return f"output differs from the reference: {found}" if found else None
