"""CMakeLists.txt and *.cmake: the CUDA language, toolkit package, targets and flags -> HIP."""

from __future__ import annotations

import itertools
import re

from hipport.buildfiles.cmake_lexer import Arg, Command, commands
from hipport.buildfiles.edit import BuildPort, Word, split_words
from hipport.buildfiles.flags import FlagPass
from hipport.buildfiles.names import NamePass

HIP_MIN_CMAKE = (3, 21)  # the first CMake with the HIP language
_LANGUAGE_COMMANDS = {"enable_language", "check_language"}
_PROJECT_KEYWORDS = {"VERSION", "DESCRIPTION", "HOMEPAGE_URL", "LANGUAGES"}
_SOURCE_COMMANDS = {"add_executable", "add_library", "target_sources", "cuda_add_executable", "cuda_add_library"}
_OPTION_COMMANDS = {
    "target_compile_options",
    "add_compile_options",
    "target_link_options",
    "add_link_options",
    "target_link_libraries",
    "link_libraries",
}
_VARIABLE_COMMANDS = {"set": 0, "string": 1, "list": 1}  # command -> index of the variable argument
_FLAG_VARIABLE = re.compile(r"(CUDA|NVCC|HIP).*(FLAGS|OPTIONS)|(FLAGS|OPTIONS).*(CUDA|NVCC|HIP)")
_ARCH_END = {"CACHE", "PARENT_SCOPE", "FORCE"}
_VERSION = re.compile(r"^\d+(\.\d+)*$")


def port_cmake(port: BuildPort) -> None:
    CMakePort(port).run()


class CMakePort:
    def __init__(self, port: BuildPort) -> None:
        self.port = port
        self.names = NamePass(port, cmake=True)
        self.uses_hip = False
        self.minimum: Arg | None = None
        self.toolkit: Command | None = None  # the first find_package(CUDAToolkit/CUDA)

    def run(self) -> None:
        found = commands(self.port.text)
        self.marked = _sources_marked_hip(found)
        for command in found:
            self._command(command)
        self._find_packages()
        self._minimum_version()

    def _command(self, command: Command) -> None:
        key, args = command.key, command.args
        done: set[int] = set()  # arguments rewritten whole here: the name pass leaves them alone
        if key == "cmake_minimum_required":
            self._record_minimum(args)
        elif key == "project":
            done |= self._project_languages(args)
        elif key in _LANGUAGE_COMMANDS:
            done |= self._languages(args, range(len(args)))
        elif key == "find_package" and args:
            done |= self._find_package(command)
        done |= self._language_properties(args)
        done |= self._architectures(command)
        self._name_words(command, done)
        if key in _SOURCE_COMMANDS and self.port.settings.rename is None:
            self._mark_hip_sources(command)
        elif key == "file" and args and args[0].text in ("GLOB", "GLOB_RECURSE") and self.port.settings.rename is None:
            self._mark_glob(command)

    # -- languages ---------------------------------------------------------------

    def _project_languages(self, args: list[Arg]) -> set[int]:
        values = [a.text for a in args]
        # project(name CXX CUDA): without LANGUAGES, the languages are positional
        start = values.index("LANGUAGES") + 1 if "LANGUAGES" in values else 1
        end = start
        while end < len(args) and values[end] not in _PROJECT_KEYWORDS:
            end += 1
        return self._languages(args, range(start, end))

    def _languages(self, args: list[Arg], indices) -> set[int]:
        done = set()
        for i in indices:
            if args[i].text == "CUDA":
                self.port.replace(args[i].start, args[i].end, "HIP")
                self.uses_hip = True
                done.add(i)
        return done

    def _language_properties(self, args: list[Arg]) -> set[int]:
        """LANGUAGE CUDA / LINKER_LANGUAGE CUDA in set_source_files_properties and friends."""
        done = set()
        for i in range(1, len(args)):
            if args[i].text == "CUDA" and args[i - 1].text in ("LANGUAGE", "LINKER_LANGUAGE"):
                self.port.replace(args[i].start, args[i].end, "HIP")
                done.add(i)
        return done

    # -- packages ----------------------------------------------------------------

    def _find_package(self, command: Command) -> set[int]:
        args = command.args
        package = self.port.rules.packages.get(args[0].text)
        if package is None:
            return set()
        if package.hip is None:
            self.port.finding(
                "HP501",
                args[0].start,
                args[0].end,
                args[0].text,
                f"find_package({args[0].text}) has no ROCm counterpart: {package.note}",
            )
            return {0}
        self.port.replace(args[0].start, args[0].end, package.hip)
        if package.note:
            self.port.finding(package.code, args[0].start, args[0].end, args[0].text, package.note)
        done = {0}
        if package.hip == "hip" and len(args) > 1 and _VERSION.match(args[1].text):
            # A CUDA version means nothing to ROCm's hip package.
            self.port.replace(args[0].end, args[1].end, "")
            done.add(1)
        if package.hip == "hip" and self.toolkit is None:
            self.toolkit = command
        return done

    def _find_packages(self) -> None:
        """After the toolkit's find_package, find the ROCm libraries the targets need."""
        if self.toolkit is None:
            return
        needed = [p for p in (*self.names.targets_used, *self.port.settings.packages) if p != "hip"]
        needed = list(dict.fromkeys(needed))
        if not needed:
            return
        keywords = [a.text for a in self.toolkit.args[1:] if a.text in ("REQUIRED", "QUIET")]
        suffix = "".join(f" {k}" for k in keywords)
        indent = self.port.line_indent(self.toolkit.start)
        newline = self.port.newline()
        self.port.insert(self.toolkit.end, "".join(f"{newline}{indent}find_package({p}{suffix})" for p in needed))

    # -- architectures -------------------------------------------------------------

    def _architectures(self, command: Command) -> set[int]:
        args, key = command.args, command.key
        values = [a.text for a in args]
        variable = self._arch_variable(values[0]) if key == "set" and values else None
        if variable is not None:
            end = next((i for i in range(1, len(values)) if values[i] in _ARCH_END), len(values))
            done = self._replace_arches(args, 1, end)
            if done:  # the HIP build's variable, where it reads it (ENV{PYTORCH_ROCM_ARCH})
                hip = f"ENV{{{variable.hip}}}" if variable.environment or values[0].startswith("ENV{") else variable.hip
                self.port.replace(args[0].start, args[0].end, hip)
                done.add(0)
            return done
        done = set()
        for i, value in enumerate(values):
            if value != "CUDA_ARCHITECTURES" or i + 1 >= len(values):
                continue
            if key == "set_property":
                done |= self._replace_arches(args, i + 1, len(values))
            elif key == "set_target_properties":
                done |= self._replace_arches(args, i + 1, i + 2)
        return done

    def _arch_variable(self, name: str):
        """The rule of a GPU target list variable set by name (X or ENV{X}), or None."""
        if name.startswith("ENV{") and name.endswith("}"):
            name = name[4:-1]
        return self.port.rules.arch_variables.get(name)

    def _replace_arches(self, args: list[Arg], first: int, end: int) -> set[int]:
        if first >= end:
            return set()
        chosen = args[first:end]
        if all(a.text.upper() in ("OFF", "") for a in chosen):
            return set()
        if any("$" in a.text for a in chosen):
            self.port.finding(
                "HP503",
                chosen[0].start,
                chosen[-1].end,
                chosen[0].text,
                "the CUDA architectures come from a variable; set them to AMD targets "
                f"({';'.join(self.port.settings.offload_arch)}) by hand",
            )
            return set()
        arches = ";".join(self.port.settings.offload_arch)
        if len(chosen) == 1:
            self.port.replace(chosen[0].start, chosen[0].end, arches)
        else:
            # 70 80 is a list of two; one unquoted gfx90a;gfx942 is the same list.
            start = chosen[0].start - (1 if chosen[0].kind == "quoted" else 0)
            end_at = chosen[-1].end + (1 if chosen[-1].kind == "quoted" else 0)
            self.port.replace(start, end_at, arches)
        return set(range(first, end))

    # -- words: names everywhere, flags where flags go --------------------------------

    def _name_words(self, command: Command, done: set[int]) -> None:
        port = self.port
        word = port.rules.words.get(command.name)
        if word is not None and word.hip is None:
            port.finding(
                "HP501",
                command.start,
                command.start + len(command.name),
                command.name,
                f"'{command.name}' has no HIP counterpart: {word.note}",
            )
        if command.key == "message":
            return  # prose, like a string in C++
        words: list[Word] = []
        for i, arg in enumerate(command.args):
            if arg.kind == "bracket" or i in done:
                continue
            words.extend(split_words(arg.text, arg.start, quoted=arg.kind == "quoted"))
        flags = FlagPass(port, words)
        handled = flags.run() if self._takes_flags(command) else set()
        for index, piece in enumerate(words):
            if index in flags.whole:
                continue
            if index in handled:
                self.names.run(piece.start, piece.core_start)
                self.names.run(piece.core_end, piece.end)
            else:
                self.names.run(piece.start, piece.end)

    def _takes_flags(self, command: Command) -> bool:
        key = command.key
        if key in _OPTION_COMMANDS:
            return True
        index = _VARIABLE_COMMANDS.get(key)
        if index is None or len(command.args) <= index:
            return False
        return _FLAG_VARIABLE.search(command.args[index].text) is not None

    # -- .cu sources that keep their name ---------------------------------------------

    def _mark_hip_sources(self, command: Command) -> None:
        """CMake compiles .cu as CUDA: a .cu source that keeps its name must say LANGUAGE HIP."""
        sources = [
            a.text
            for a in command.args[1:]
            if a.kind != "bracket" and a.text.endswith(".cu") and "$<" not in a.text and a.text not in self.marked
        ]
        if sources:
            self._insert_language(command, " ".join(sources))

    def _mark_glob(self, command: Command) -> None:
        args = command.args
        patterns = [
            a.text
            for a in args[2:]
            if a.text not in ("CONFIGURE_DEPENDS", "LIST_DIRECTORIES", "RELATIVE", "FOLLOW_SYMLINKS", "true", "false")
        ]
        if len(args) < 3 or not patterns:
            return
        if all(p.endswith(".cu") for p in patterns):
            if f"${{{args[1].text}}}" not in self.marked:
                self._insert_language(command, f"${{{args[1].text}}}")
        elif any(p.endswith(".cu") for p in patterns):
            self.port.finding(
                "HP501",
                command.start,
                command.end,
                args[1].text,
                f"${{{args[1].text}}} mixes .cu with other sources; mark its .cu files with "
                "set_source_files_properties(... PROPERTIES LANGUAGE HIP), or port with --rename",
            )

    def _insert_language(self, command: Command, sources: str) -> None:
        indent = self.port.line_indent(command.start)
        self.port.insert(
            command.end, f"{self.port.newline()}{indent}set_source_files_properties({sources} PROPERTIES LANGUAGE HIP)"
        )

    # -- the CMake version the HIP language needs ---------------------------------------

    def _record_minimum(self, args: list[Arg]) -> None:
        values = [a.text for a in args]
        if "VERSION" in values and values.index("VERSION") + 1 < len(args):
            self.minimum = args[values.index("VERSION") + 1]

    def _minimum_version(self) -> None:
        if not self.uses_hip or self.minimum is None:
            return
        low = self.minimum.text.partition("...")[0]
        try:
            version = tuple(int(p) for p in low.split("."))
        except ValueError:
            return
        if version[:2] < HIP_MIN_CMAKE:
            wanted = ".".join(map(str, HIP_MIN_CMAKE))
            self.port.replace(self.minimum.start, self.minimum.start + len(low), wanted)


def _sources_marked_hip(found: list[Command]) -> set[str]:
    """Sources a set_source_files_properties(... LANGUAGE HIP) already covers: a second port adds none."""
    marked: set[str] = set()
    for command in found:
        values = command.values()
        if command.key == "set_source_files_properties" and "PROPERTIES" in values:
            properties = values[values.index("PROPERTIES") + 1 :]
            if any(k == "LANGUAGE" and v == "HIP" for k, v in itertools.pairwise(properties)):
                marked.update(values[: values.index("PROPERTIES")])
    return marked
