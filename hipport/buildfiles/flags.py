"""nvcc command-line flags -> hipcc: architectures, link libraries and the flag table."""

from __future__ import annotations

import re
from dataclasses import dataclass

from hipport.buildfiles.edit import BuildPort, Word
from hipport.buildfiles.names import rename_languages
from hipport.ruleset.build_rules import BuildFlag, BuildRules

# Flags that choose the GPU architecture; their values name sm_XX / compute_XX.
ARCH_FLAGS = ("-arch", "--gpu-architecture", "-gencode", "--generate-code", "-code", "--gpu-code")
_ARCH_VALUE = re.compile(r"sm_|compute_|^(native|all|all-major)$")
_SEPARATOR = re.compile(r"[ \t;]*(\\\r?\n[ \t]*)*[ \t;]*\Z")


@dataclass(frozen=True, slots=True)
class FlagMatch:
    """What one nvcc flag is: an architecture flag, or its rule (None: no rule for this value),
    its value, and whether the value is the next word."""

    rule: BuildFlag | None
    value: str | None
    takes_next: bool = False
    arch: bool = False


def match_flag(rules: BuildRules, core: str, following: str | None, nvcc_line: bool = True) -> FlagMatch | None:
    """The nvcc flag spelled by core (and following, the next word when it can be a separate
    value), or None for a word the tables do not know. nvcc_line: the words are nvcc's for sure."""
    name, eq, joined = core.partition("=")
    if name in ARCH_FLAGS:
        arch, takes_next = (joined, False) if eq else (following, True)
        if arch is None or not (_ARCH_VALUE.search(arch) or (nvcc_line and arch.startswith(("$(", "${")))):
            return None  # -arch x86_64 and friends belong to other compilers
        return FlagMatch(None, arch, takes_next, arch=True)
    entries = tuple(e for e in rules.flags.get(name if eq else core, ()) if nvcc_line or not e.nvcc_line)
    if not entries:
        return None
    takes_next = False
    if eq:
        if not any(e.value in ("joined", "either") for e in entries):
            return None
        value: str | None = joined
    elif any(e.value in ("separate", "either") for e in entries) and following is not None:
        value, takes_next = following, True
    elif any(e.value == "none" for e in entries):
        value = None
    else:
        return None
    rule = next((e for e in entries if e.match is not None and e.match == value), None) or next(
        (e for e in entries if e.match is None), None
    )
    return FlagMatch(rule, value, takes_next)


class FlagPass:
    """Rewrites the flags among a run of words (one Makefile line, one CMake command).

    The first architecture flag of the run becomes one --offload-arch= per
    target; later ones are dropped, so -gencode lists collapse to one set.
    """

    def __init__(self, port: BuildPort, words: list[Word], nvcc_line: bool = True) -> None:
        self.port = port
        self.words = words
        self.nvcc_line = nvcc_line  # the words are nvcc's for sure (flags that other tools share apply)
        self.handled: set[int] = set()  # indices whose core was rewritten or consumed
        self.whole: set[int] = set()  # indices rewritten prefix and all (generator expressions)
        self.arch_done = False
        self.removed_through = -1  # end of the last removal that took the space after it

    def run(self) -> set[int]:
        i = 0
        while i < len(self.words):
            i = self._flag(i) + 1
        return self.handled

    def _flag(self, i: int) -> int:
        core = self.words[i].core
        if not core.startswith("-"):
            return i
        following = self.words[i + 1].core if self._next_is_value(i) else None
        found = match_flag(self.port.rules, core, following, self.nvcc_line)
        if found is None:
            if core.startswith("-l") and len(core) > 2 and "=" not in core:
                self._link(i, core[2:])
            return i
        last = i + 1 if found.takes_next else i
        if found.arch:
            return self._arch(i, last)
        rule, value = found.rule, found.value
        if rule is None:
            return last
        word = self.words[i]
        self.handled.update(range(i, last + 1))
        name = core.partition("=")[0]
        if rule.hip is None:
            shown = core if last == i else f"{core} {value}"
            self.port.finding(
                "HP502",
                word.core_start,
                self.words[last].core_end,
                name,
                f"'{shown}' is an nvcc flag: {rule.note}" if rule.note else f"'{shown}' is an nvcc flag",
            )
            return last
        self._rewrite(i, last, rule.hip.format(value=value or "").split())
        return last

    def _arch(self, i: int, last: int) -> int:
        self.handled.update(range(i, last + 1))
        if self.arch_done:
            self._rewrite(i, last, [])
        else:
            self.arch_done = True
            self._rewrite(i, last, [f"--offload-arch={a}" for a in self.port.settings.offload_arch])
        return last

    def _link(self, i: int, name: str) -> None:
        library = self.port.rules.libraries.get(name)
        if library is None:
            return
        word = self.words[i]
        self.handled.add(i)
        if library.hip_link is None:
            self.port.finding(
                "HP501",
                word.core_start,
                word.core_end,
                f"-l{name}",
                f"'-l{name}' has no ROCm counterpart: {library.note}",
            )
        else:
            self._rewrite(i, i, [f"-l{library.hip_link}"])

    def _next_is_value(self, i: int) -> bool:
        if i + 1 >= len(self.words):
            return False
        here, after = self.words[i], self.words[i + 1]
        return (
            not here.wrapped
            and not after.wrapped
            and _SEPARATOR.match(self.port.text, here.end, after.start) is not None
        )

    def _rewrite(self, first: int, last: int, flags: list[str]) -> None:
        """Replace words[first..last] with flags (none: remove them and the space before)."""
        port, words = self.port, self.words
        head, tail = words[first], words[last]
        if head.wrapped:
            prefix = head.text[: head.core_start - head.start]
            suffix = head.text[head.core_end - head.start :]
            if len(flags) > 1 and not head.quoted:
                # An unquoted generator expression cannot hold a space: one per flag.
                prefix = rename_languages(prefix)
                port.replace(head.start, head.end, " ".join(prefix + f + suffix for f in flags))
                self.whole.add(first)
            else:
                port.replace(head.core_start, head.core_end, ";".join(flags) if head.quoted else " ".join(flags))
            return
        if flags:
            port.replace(head.start, tail.end, " ".join(flags))
            return
        if self.removed_through == head.start:
            port.replace(head.start, tail.end, "")
        elif first > 0 and _SEPARATOR.match(port.text, words[first - 1].end, head.start):
            port.replace(words[first - 1].end, tail.end, "")
        elif last + 1 < len(words) and _SEPARATOR.match(port.text, tail.end, words[last + 1].start):
            port.replace(head.start, words[last + 1].start, "")
            self.removed_through = words[last + 1].start
        else:
            port.replace(head.start, tail.end, "")
