"""What a program's own build says about building and running it: the units and compile flags of a
Makefile, and the command lines of its `run:` target or of CTest's `add_test`.

A Makefile is read the way GNU make reads the part that matters here: assignments (`=`, `:=`,
`?=`, `+=`), conditionals (`ifeq`, `ifneq`, `ifdef`, `ifndef`), references (`$(VAR)`, `${VAR}`,
`$(VAR:.cu=.o)`), rules and their recipes. A variable the file never sets (`$(LAUNCHER)`) is empty,
as in make; functions (`$(shell ...)`, `$(wildcard ...)`) are left out rather than guessed at.
A program's command line is a recipe line whose command is the program itself (`./$(program) 10 2`),
after any `VAR=value` words and `cd DIR &&`; other lines (`ulimit`, `mpiexec ...`) are not the
program's run. Only the standard library: the GPU step reads these where hipport's dependencies
are not installed.
"""

from __future__ import annotations

import itertools
import re
import shlex
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from hipport.buildfiles.cmake_lexer import commands

SOURCE_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx", ".c", ".hip")
# The compile flags that mean the same to nvcc and to HIP's compilers: the standard, macros, include paths.
_PORTABLE_FLAG = re.compile(r"-(?:std=|D|U|I)")
# nvcc's own language and link flags that a program needs to build at all (device lambdas, separate
# compilation, OpenMP host code, libraries); architecture and optimisation are the verifier's.
_NVCC_FLAG = re.compile(
    r"--?(?:extended-lambda|expt-extended-lambda|expt-relaxed-constexpr|rdc=true|"
    r"relocatable-device-code=true)$|-l\w"
)
_ASSIGNMENT = re.compile(r"^(?:(?:export|override)\s+)?([A-Za-z_][\w.-]*)\s*(\?=|::=|:=|\+=|!=|=)\s*(.*)$")
_RULE = re.compile(r"^([^:=#\t][^:=#]*?)\s*::?(?!=)\s*(.*)$")
_CONDITIONAL = re.compile(r"^(ifeq|ifneq|ifdef|ifndef)\b\s*(.*)$")
_ENV_WORD = re.compile(r"^[A-Za-z_]\w*=")
_EXPANSION_DEPTH = 20


@dataclass(frozen=True)
class RunCommand:
    """One run of a program: its arguments, extra environment and folder (relative to its own)."""

    executable: str = ""  # as the build file writes it: ./main
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    cwd: str = ""


@dataclass(frozen=True)
class Recipe:
    """What one program's build file says: the binary, its units, flags and runs (each may be empty)."""

    origin: str  # "Makefile", "CMakeLists.txt": for messages
    program: str | None = None
    sources: tuple[str, ...] = ()  # relative to the build file's folder
    flags: tuple[str, ...] = ()  # -std=, -D, -U, -I (relative -I as written)
    runs: tuple[RunCommand, ...] = ()
    nvcc_flags: tuple[str, ...] = ()  # what nvcc builds need beside flags: --extended-lambda, -lcublas


class Makefile:
    """A Makefile's variables and rules, evaluated once."""

    def __init__(self, text: str) -> None:
        self.variables: dict[str, tuple[str, bool]] = {}  # name -> (value, expanded already)
        self.rules: dict[str, tuple[str, list[str]]] = {}  # target -> (prerequisites, recipe lines)
        self._read(text)

    def value(self, name: str, depth: int = 0) -> str:
        raw, simple = self.variables.get(name, ("", True))
        return raw if simple else self.expand(raw, depth + 1)

    def expand(self, text: str, depth: int = 0) -> str:
        if depth > _EXPANSION_DEPTH or "$" not in text:
            return text
        out, i = [], 0
        while i < len(text):
            c = text[i]
            if c != "$" or i + 1 == len(text):
                out.append(c)
                i += 1
                continue
            nxt = text[i + 1]
            if nxt == "$":
                out.append("$")
                i += 2
            elif nxt in "({":
                end = _closing(text, i + 1)
                out.append(self._reference(text[i + 2 : end], depth))
                i = end + 1
            else:
                out.append(self.value(nxt, depth))
                i += 2
        return "".join(out)

    def _reference(self, body: str, depth: int) -> str:
        if " " in body.split(":")[0] or "\t" in body:
            return ""  # a function: $(shell ...), $(wildcard ...)
        name, _, substitution = self.expand(body, depth + 1).partition(":")
        value = self.value(name, depth)
        if "=" not in substitution:
            return value
        old, new = substitution.split("=", 1)
        return " ".join(w[: -len(old)] + new if old and w.endswith(old) else w for w in value.split())

    def _read(self, text: str) -> None:
        # one entry per open conditional: [is this branch taken, was any branch of it taken]
        branches: list[list[bool]] = []
        target: str | None = None

        def reading() -> bool:
            return all(taken for taken, _ in branches)

        for line in _logical_lines(text):
            if line.startswith("\t") and target is not None:
                if reading():
                    self.rules[target][1].append(line[1:])
                continue
            stripped = _without_comment(line).strip()
            conditional = _CONDITIONAL.match(stripped)
            if conditional:
                holds = reading() and self._holds(*conditional.groups())
                branches.append([holds, holds])
            elif re.match(r"else\b", stripped) and branches:
                nested = _CONDITIONAL.match(stripped[4:].strip())
                outer = all(taken for taken, _ in branches[:-1])
                holds = outer and not branches[-1][1] and (self._holds(*nested.groups()) if nested else True)
                branches[-1] = [holds, branches[-1][1] or holds]
            elif stripped == "endif" and branches:
                branches.pop()
            elif stripped and reading():
                target = self._statement(stripped, target)

    def _statement(self, line: str, target: str | None) -> str | None:
        assignment = _ASSIGNMENT.match(line)
        if assignment:
            name, op, value = assignment.groups()
            self._assign(name, op, value)
            return None  # a recipe never follows an assignment
        rule = _RULE.match(line)
        if rule is None:
            return target
        targets, prerequisites = (self.expand(part) for part in rule.groups())
        prerequisites = prerequisites.split(";")[0]
        first = None
        for name in targets.split():
            self.rules.setdefault(name, (prerequisites, []))
            first = first or name
        return first

    def _assign(self, name: str, op: str, value: str) -> None:
        if op == "?=" and name in self.variables:
            return
        if op == "!=":
            self.variables[name] = ("", True)  # a shell command's output: not run
        elif op in (":=", "::="):
            self.variables[name] = (self.expand(value), True)
        elif op == "+=" and name in self.variables:
            old, simple = self.variables[name]
            self.variables[name] = (f"{old} {self.expand(value) if simple else value}".strip(), simple)
        else:
            self.variables[name] = (value, False)

    def _holds(self, kind: str, argument: str) -> bool:
        if kind in ("ifdef", "ifndef"):
            defined = bool(self.value(self.expand(argument).strip()))
            return defined if kind == "ifdef" else not defined
        pair = _comparison(argument)
        if pair is None:
            return False
        equal = self.expand(pair[0]).strip() == self.expand(pair[1]).strip()
        return equal if kind == "ifeq" else not equal

    def runs(self, target: str = "run") -> tuple[RunCommand, ...]:
        """The program runs a target's recipe makes; the recipe's other commands are left out."""
        if target not in self.rules:
            return ()
        found = []
        for line in self.rules[target][1]:
            found += _program_runs(self.expand(line.lstrip("@-+ \t")), self.rules)
        return tuple(found)


def read_makefile(text: str) -> Recipe:
    make = Makefile(text)
    runs = make.runs()
    program = PurePosixPath(runs[0].executable).name if runs else None
    rule = next((make.rules[t] for t in (program, f"./{program}") if t in make.rules), None)
    sources: list[str] = []
    if rule is not None:
        for word in rule[0].split():
            stem = PurePosixPath(word)
            if stem.suffix in SOURCE_SUFFIXES:
                sources.append(word)
            elif stem.suffix == ".o":
                sources.append(str(stem.with_suffix("")))  # the suffix is found beside the Makefile
    if not sources:
        sources = make.value("source").split() or make.value("SRC").split()
    words = _words(" ".join(make.value(v) for v in ("CFLAGS", "CXXFLAGS", "NVCCFLAGS", "CUDAFLAGS")))
    flags = _portable(words)
    link = _words(" ".join(make.value(v) for v in ("LDFLAGS", "LDLIBS", "LIBS")))
    nvcc = [*_openmp(words + link), *_language(words), *(w for w in [*words, *link] if _NVCC_FLAG.match(w))]
    return Recipe("Makefile", program, tuple(sources), tuple(flags), runs, tuple(dict.fromkeys(nvcc)))


def _language(words: list[str]) -> list[str]:
    """nvcc's `-x cu` (`--x cu`): every source, .c ones too, is compiled as CUDA; one word, so that a
    compile database keeps it with its value."""
    for flag, value in itertools.pairwise(words):
        if flag in ("-x", "--x") and value in ("cu", "cuda"):
            return ["--x=cu"]
    return [w for w in words if w in ("-x=cu", "--x=cu")][:1]


def read_cmake(text: str) -> Recipe:
    """CTest's add_test: `add_test(NAME x COMMAND prog args...)` or `add_test(x prog args...)`."""
    variables: dict[str, str] = {}
    executables: list[str] = []
    runs: list[RunCommand] = []
    program = None
    for command in commands(text):
        values = [_cmake_expand(v, variables) for v in command.values()]
        if command.key == "set" and values:
            variables[values[0]] = " ".join(values[1:])
        elif command.key == "add_executable" and values:
            executables.append(values[0])
        elif command.key == "add_test" and values:
            words = values[values.index("COMMAND") + 1 :] if "COMMAND" in values else values[1:]
            for keyword in ("WORKING_DIRECTORY", "CONFIGURATIONS", "COMMAND_EXPAND_LISTS"):
                if keyword in words:
                    words = words[: words.index(keyword)]
            if words:
                program = program or PurePosixPath(words[0]).name
                runs.append(RunCommand(words[0], tuple(words[1:])))
    return Recipe("CMakeLists.txt", program or (executables[0] if executables else None), runs=tuple(runs))


def program_recipe(directory: Path) -> Recipe | None:
    """The recipe of the program built in directory: its Makefile's, else its CMakeLists.txt's add_test."""
    for name, reader in (("Makefile", read_makefile), ("makefile", read_makefile), ("CMakeLists.txt", read_cmake)):
        path = directory / name
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        recipe = reader(text)
        if recipe.runs or recipe.sources:
            return recipe
    return None


def source_files(directory: Path, recipe: Recipe) -> list[Path]:
    """The recipe's units that exist under directory (a stem takes the first source suffix found)."""
    found = []
    for name in recipe.sources:
        path = directory / name
        if path.suffix not in SOURCE_SUFFIXES:
            suffixed = (path.with_name(path.name + suffix) for suffix in SOURCE_SUFFIXES)
            path = next((p for p in suffixed if p.is_file()), path)
        if path.is_file() and path not in found:
            found.append(path)
    return found


def _program_runs(line: str, rules) -> list[RunCommand]:
    try:
        words = shlex.split(line, posix=True)
    except ValueError:
        return []
    found, cwd, segment = [], "", []
    for word in [*words, "&&"]:
        if word not in ("&&", ";", "||"):
            segment.append(word)
            continue
        env = []
        while segment and _ENV_WORD.match(segment[0]):
            key, _, value = segment.pop(0).partition("=")
            env.append((key, value))
        if segment[:1] == ["cd"] and len(segment) == 2:
            cwd = segment[1]
        elif segment and (segment[0].startswith(("./", "../")) or segment[0] in rules):
            found.append(RunCommand(segment[0], tuple(segment[1:]), tuple(env), cwd))
        segment = []
    return found


def _words(text: str) -> list[str]:
    try:
        return shlex.split(text, posix=True)
    except ValueError:
        return text.split()


def _openmp(words: list[str]) -> list[str]:
    """OpenMP host code (-fopenmp, -Xcompiler -fopenmp, -Xcompiler=-fopenmp,-Wall), as nvcc takes it."""
    uses = any("-fopenmp" in word.replace("=", ",").split(",") for word in words)
    return ["-Xcompiler=-fopenmp", "-lgomp"] if uses else []


def _portable(words: list[str]) -> list[str]:
    flags, i = [], 0
    while i < len(words):
        word = words[i]
        if word in ("-D", "-U", "-I") and i + 1 < len(words):
            flags.append(word + words[i + 1])
            i += 2
            continue
        if _PORTABLE_FLAG.match(word) and len(word) > 2:
            flags.append(word)
        i += 1
    return flags


def _comparison(argument: str) -> tuple[str, str] | None:
    argument = argument.strip()
    if argument.startswith("("):
        inner = argument[1 : _closing(argument, 0)]
        depth = 0
        for i, c in enumerate(inner):
            depth += c in "({"
            depth -= c in ")}"
            if c == "," and depth == 0:
                return inner[:i], inner[i + 1 :]
        return None
    quoted = re.findall(r"\"([^\"]*)\"|'([^']*)'", argument)
    return (quoted[0][0] or quoted[0][1], quoted[1][0] or quoted[1][1]) if len(quoted) == 2 else None


def _closing(text: str, open_at: int) -> int:
    pairs = {"(": ")", "{": "}"}
    opener, depth = text[open_at], 0
    for i in range(open_at, len(text)):
        if text[i] == opener:
            depth += 1
        elif text[i] == pairs[opener]:
            depth -= 1
            if depth == 0:
                return i
    return len(text)


def _logical_lines(text: str) -> list[str]:
    return re.sub(r"\\\r?\n[ \t]*", " ", text).splitlines()


def _without_comment(line: str) -> str:
    match = re.search(r"(?<!\\)#", line)
    return line[: match.start()] if match else line


def _cmake_expand(value: str, variables: dict[str, str]) -> str:
    value = re.sub(r"\$<TARGET_FILE:([^>]+)>", r"\1", value)
    return re.sub(r"\$\{(\w+)\}", lambda m: variables.get(m.group(1), ""), value)
