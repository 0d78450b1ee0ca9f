"""Makefiles: nvcc -> hipcc, architecture and link flags, CUDA paths, .cu rules."""

from __future__ import annotations

import re

from hipport.buildfiles.arch_list import port_arch_lists
from hipport.buildfiles.edit import BuildPort, split_words
from hipport.buildfiles.flags import FlagPass
from hipport.buildfiles.names import NamePass

# A logical line: physical lines joined by a trailing backslash.
_LOGICAL_LINE = re.compile(r"(?:[^\n\\]|\\(?!\r?\n)|\\\r?\n)*")
_ASSIGNMENT = re.compile(r"[ \t]*(?:export[ \t]+|override[ \t]+)?[A-Za-z0-9_.-]+[ \t]*(?:\?=|::=|:=|\+=|!=|=)")
# Words of a line; a backslash before a newline is a line join, not part of a word.
_WORD = re.compile(r"(?:[^\s\\]|\\(?!\r?\n)\S?)+")
# A line that runs nvcc or sets its flags (NVCCFLAGS = ..., CUDA_FLAGS += ...).
_NVCC_LINE = re.compile(r"\bnvcc\b|\$[({]NVCC|^[ \t]*(?:\w*(?:NVCC|CUDA)\w*|CU\w*FLAGS)[ \t]*[:?+!]?=", re.M)
# The HIP headers refuse to compile under a host compiler (g++) unless told the
# platform; hipcc says it by itself, and saying it twice is harmless.
PLATFORM_DEFINE = "-D__HIP_PLATFORM_AMD__"


def port_makefile(port: BuildPort) -> None:
    names = NamePass(port, cmake=False)
    text = port.text
    for m in _LOGICAL_LINE.finditer(text):
        if m.start() == m.end():
            continue
        start, end = m.start(), _comment_start(text, m.start(), m.end())
        assignment = _ASSIGNMENT.match(text, start, end)
        if assignment:
            start = assignment.end()  # the variable's name is the user's: keep it
        words = split_words(text[start:end], start, _WORD)
        handled = FlagPass(port, words, _NVCC_LINE.search(text, m.start(), end) is not None).run()
        for index, word in enumerate(words):
            if index not in handled:
                names.run(word.start, word.end)
        _define_platform(port, words)
    port_arch_lists(port, make=True)


def port_shell(port: BuildPort) -> None:
    """A shell script: only the GPU target lists it sets (TORCH_CUDA_ARCH_LIST=...) are ported;
    its compiler lines are not read."""
    port_arch_lists(port, make=False)


def _define_platform(port: BuildPort, words) -> None:
    """-I<CUDA root>/include tells a host compiler where the runtime headers are: HIP's need the platform too."""
    if any(w.text.startswith(PLATFORM_DEFINE) for w in words):
        return
    roots = port.rules.root_variables
    for word in words:
        text = word.text
        if not (text.startswith("-I") and text.endswith("/include")):
            continue
        root = text[2 : -len("/include")]
        if root.startswith("/usr/local/cuda") or (root[:2] in ("$(", "${") and root[2:-1] in roots):
            port.insert(word.end, " " + PLATFORM_DEFINE)
            return


def _comment_start(text: str, start: int, end: int) -> int:
    i = start
    while True:
        i = text.find("#", i, end)
        if i < 0:
            return end
        if i == start or text[i - 1] != "\\":
            return i
        i += 1
