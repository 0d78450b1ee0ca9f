"""Build-file rule tables (rules/buildfiles.toml), merged like the source rules."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class BuildLibrary:
    """One CUDA library as build files name it, and its ROCm counterpart (None: there is none)."""

    cuda: str  # the -l name
    targets: tuple[str, ...] = ()  # CMake CUDA:: imported targets
    package: str | None = None  # find_package() that provides hip_target
    hip_target: str | None = None
    hip_link: str | None = None
    note: str = ""


@dataclass(frozen=True, slots=True)
class BuildWord:
    cuda: str
    hip: str | None
    note: str = ""
    code: str = "HP501"  # the finding that reports the note


@dataclass(frozen=True, slots=True)
class ArchVariable:
    """A variable that lists the GPU targets (TORCH_CUDA_ARCH_LIST), and what the HIP build reads
    instead; environment: that build reads it from the environment only."""

    cuda: str
    hip: str
    environment: bool = False
    note: str = ""


@dataclass(frozen=True, slots=True)
class ExtensionCall:
    """A setup.py call that builds a GPU extension (CUDAExtension): what a ROCm build does with it,
    and the keyword whose dict holds the GPU compiler's flags under flags_key."""

    call: str
    note: str
    flags_keyword: str | None = None
    flags_key: str | None = None


@dataclass(frozen=True, slots=True)
class BuildFlag:
    flag: str
    value: str = "none"  # none | joined | separate | either
    match: str | None = None
    hip: str | None = None  # None: reported; "": dropped
    note: str = ""
    nvcc_line: bool = False  # ambiguous outside nvcc's command lines (cmake -G Ninja)


@dataclass(frozen=True, slots=True)
class OffloadArch:
    name: str
    added: str | None = None
    default: bool = False


@dataclass(frozen=True, slots=True)
class BuildTest:
    file: str
    before: str
    after: str
    origin: str
    line: int
    findings: tuple[str, ...] = ()
    args: tuple[str, ...] = ()


@dataclass
class BuildRules:
    libraries: dict[str, BuildLibrary] = field(default_factory=dict)  # by -l name
    targets: dict[str, BuildLibrary] = field(default_factory=dict)  # by CUDA:: target
    packages: dict[str, BuildWord] = field(default_factory=dict)  # find_package names
    words: dict[str, BuildWord] = field(default_factory=dict)
    flags: dict[str, tuple[BuildFlag, ...]] = field(default_factory=dict)
    paths: dict[str, str] = field(default_factory=dict)
    root_variables: frozenset[str] = frozenset()
    arches: dict[str, OffloadArch] = field(default_factory=dict)
    arch_variables: dict[str, ArchVariable] = field(default_factory=dict)
    extensions: dict[str, ExtensionCall] = field(default_factory=dict)
    tests: list[BuildTest] = field(default_factory=list)

    def merge(self, data: dict, text: str, origin: str) -> None:
        for entry in data.get("build_library", []):
            library = BuildLibrary(
                entry["cuda"],
                tuple(entry.get("targets", ())),
                entry.get("package"),
                entry.get("hip_target"),
                entry.get("hip_link"),
                entry.get("note", ""),
            )
            self.libraries[library.cuda] = library
            for target in library.targets:
                self.targets[target] = library
        for entry in data.get("build_package", []):
            self.packages[entry["cuda"]] = BuildWord(
                entry["cuda"], entry.get("hip"), entry.get("note", ""), entry.get("code", "HP501")
            )
        for entry in data.get("build_arch_variable", []):
            variable = ArchVariable(entry["cuda"], entry["hip"], entry.get("environment", False), entry.get("note", ""))
            self.arch_variables[variable.cuda] = variable
            self.words[variable.cuda] = BuildWord(variable.cuda, variable.hip)  # where a build file reads it
        for entry in data.get("build_extension", []):
            self.extensions[entry["call"]] = ExtensionCall(
                entry["call"], entry["note"], entry.get("flags_keyword"), entry.get("flags_key")
            )
        for entry in data.get("build_word", []):
            self.words[entry["cuda"]] = BuildWord(entry["cuda"], entry.get("hip"), entry.get("note", ""))
        for entry in data.get("build_flag", []):
            flag = BuildFlag(
                entry["flag"],
                entry.get("value", "none"),
                entry.get("match"),
                entry.get("hip"),
                entry.get("note", ""),
                entry.get("nvcc_line", False),
            )
            # A later file's rule for the same flag and value replaces the earlier one.
            kept = tuple(f for f in self.flags.get(flag.flag, ()) if f.match != flag.match)
            self.flags[flag.flag] = (*kept, flag)
        for entry in data.get("build_path", []):
            self.paths[entry["cuda"]] = entry["hip"]
        if "cuda_root_variables" in data:
            self.root_variables = self.root_variables | frozenset(data["cuda_root_variables"])
        for entry in data.get("offload_arch", []):
            self.arches[entry["name"]] = OffloadArch(entry["name"], entry.get("added"), entry.get("default", False))
        lines = [n for n, line in enumerate(text.splitlines(), 1) if line.strip() == "[[build_test]]"]
        for index, entry in enumerate(data.get("build_test", [])):
            self.tests.append(
                BuildTest(
                    entry["file"],
                    entry["before"],
                    entry["after"],
                    origin,
                    lines[index] if index < len(lines) else 1,
                    tuple(entry.get("findings", ())),
                    tuple(entry.get("args", ())),
                )
            )

    def default_arches(self, target_hip) -> tuple[str, ...]:
        """The default GPU targets the target HIP's compiler knows."""
        from hipport.versions import parse_version

        return tuple(
            a.name
            for a in self.arches.values()
            if a.default and (a.added is None or target_hip is None or parse_version(a.added) <= target_hip)
        )


# Rule records the rule cache stores field by field (hipport/ruleset/loader.py).
BUILD_RECORDS = (BuildLibrary, BuildWord, BuildFlag, OffloadArch, BuildTest, ArchVariable, ExtensionCall)
