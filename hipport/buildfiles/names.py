"""Names inside build-file words: CUDA paths, CUDA:: targets, variables, languages, .cu sources.

One combined pattern runs over each piece of text, so every match is found
at its original position and no two rewrites can overlap.
"""

from __future__ import annotations

import re

from hipport.buildfiles.edit import BuildPort

_GENEX_LANGUAGE = r"(?:COMPILE_LANGUAGE|LINK_LANGUAGE|COMPILE_LANG_AND_ID|LINK_LANG_AND_ID):[\w,]+"
_SOURCE = r"(?:\$[({][^)}\s]*[)}]|[^\s;:,()\"'=<>|$])*\.(?:cuh|cu)(?![\w.])"
COMPILER_IDS = {"NVIDIA": "Clang"}


_GENEX_LANGUAGE_RE = re.compile(rf"\b{_GENEX_LANGUAGE}")


def _language_condition(found: str) -> str:
    """COMPILE_LANGUAGE:CUDA -> COMPILE_LANGUAGE:HIP, COMPILE_LANG_AND_ID:CUDA,NVIDIA -> ...:HIP,Clang."""
    kind, _, items = found.partition(":")
    names = items.split(",")
    if names and names[0] == "CUDA":
        names[0] = "HIP"
        if kind.endswith("_AND_ID"):
            names[1:] = [COMPILER_IDS.get(n, n) for n in names[1:]]
    return f"{kind}:{','.join(names)}"


def rename_languages(text: str) -> str:
    return _GENEX_LANGUAGE_RE.sub(lambda m: _language_condition(m.group()), text)


class NamePass:
    def __init__(self, port: BuildPort, cmake: bool) -> None:
        self.port = port
        self.cmake = cmake
        rules = port.rules
        parts = []
        if rules.paths:
            keys = sorted(rules.paths, key=len, reverse=True)
            # /usr/local/cuda-12.4/... is the same toolkit as /usr/local/cuda/...
            self._path_keys = {k: re.compile(re.escape(k).replace("cuda", r"cuda(?:-[0-9.]+)?", 1)) for k in keys}
            parts.append("(?P<path>" + "|".join(p.pattern for p in self._path_keys.values()) + r")(?![\w.-])")
        if rules.root_variables:
            names = "|".join(re.escape(v) for v in sorted(rules.root_variables))
            parts.append(rf"(?P<libdir>\$[({{](?:{names})[)}}]/lib64)(?![\w.-])")
        if cmake:
            parts.append(r"(?P<target>\bCUDA::\w+)")
            parts.append(rf"(?P<genex>\b{_GENEX_LANGUAGE})")
        if port.settings.rename is not None:
            parts.append(f"(?P<source>{_SOURCE})")
        if cmake:
            parts.append(r"(?P<word>\b[A-Za-z_]\w*)")
        else:
            parts.append(r"(?P<nvcc>(?<![\w.$-])nvcc(?![\w.-]))")
        self.pattern = re.compile("|".join(parts))
        self.targets_used: list[str] = []  # packages the file's CUDA:: targets need, in order of use

    def run(self, start: int, end: int) -> None:
        text = self.port.text
        for m in self.pattern.finditer(text, start, end):
            kind = m.lastgroup
            assert kind is not None  # every alternative is a named group
            new = getattr(self, "_" + kind)(m.group(), m.start())
            if new is not None:
                self.port.replace(m.start(), m.end(), new)

    def _path(self, found: str, at: int) -> str | None:
        for key, pattern in self._path_keys.items():
            if pattern.fullmatch(found):
                return self.port.rules.paths[key]
        return None

    def _libdir(self, found: str, at: int) -> str:
        return found[: -len("lib64")] + "lib"

    def _nvcc(self, found: str, at: int) -> str:
        return "hipcc"

    def _target(self, found: str, at: int) -> str | None:
        library = self.port.rules.targets.get(found)
        if library is None:
            self.port.finding(
                "HP501",
                at,
                at + len(found),
                found,
                f"no rule knows the CMake target '{found}'; link its ROCm counterpart by hand",
            )
            return None
        if library.hip_target is None:
            self.port.finding("HP501", at, at + len(found), found, f"'{found}' has no ROCm counterpart: {library.note}")
            return None
        if library.package and library.package not in self.targets_used:
            self.targets_used.append(library.package)
        return library.hip_target

    def _genex(self, found: str, at: int) -> str:
        return _language_condition(found)

    def _word(self, found: str, at: int) -> str | None:
        word = self.port.rules.words.get(found)
        if word is None:
            return None
        if word.hip is None:
            self.port.finding("HP501", at, at + len(found), found, f"'{found}' has no HIP counterpart: {word.note}")
        return word.hip

    def _source(self, found: str, at: int) -> str | None:
        rename = self.port.settings.rename
        assert rename is not None  # the pattern has a source group only with a rename
        return rename(found)
