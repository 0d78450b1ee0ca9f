"""The rule set the engine consults: plain lookup tables built from rule files."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hipport.ruleset.argrules import ArgumentRule
from hipport.ruleset.codes import CodeTables
from hipport.ruleset.lintrules import LintIndex, RewriteRule, StructuralLint, build_index
from hipport.versions import Version, parse_version

if TYPE_CHECKING:  # `hipport check` never needs the build-file tables, nor their module
    from hipport.ruleset.build_rules import BuildRules
    from hipport.ruleset.dialects import Dialect


def _new_build_rules() -> BuildRules:
    from hipport.ruleset.build_rules import BuildRules

    return BuildRules()


@dataclass(frozen=True, slots=True)
class Origin:
    path: str
    builtin: bool


@dataclass(frozen=True, slots=True)
class NameRule:
    """A CUDA identifier and what HIP calls it (hip is None when HIP has nothing)."""

    cuda: str
    hip: str | None
    library: str
    kind: str
    section: str
    origin: Origin
    roc: str | None = None
    added: str | None = None
    deprecated: str | None = None
    changed: str | None = None
    removed: str | None = None
    experimental: str | None = None
    cuda_added: str | None = None
    cuda_deprecated: str | None = None
    cuda_removed: str | None = None
    note: str | None = None
    replacement: str | None = None
    # "host": the roc spelling is used only in host code of a file that calls a ROC library
    # (value types such as __half, which kernels keep for their arithmetic).
    roc_in: str | None = None
    # What targets before `added` get instead of `hip` (__nv_bfloat16: hip_bfloat16 before HIP 6.0
    # gave __hip_bfloat16); None: `hip` with an HP201 there.
    older: str | None = None
    # A macro's spelling where an #if or #elif tests its value alone (`#if __CUDACC__`, `&& !M`):
    # `defined(__HIPCC__)`, as HIP's NVIDIA headers define __HIPCC__ empty. None: hip there too.
    value_test: str | None = None
    # An unsupported declaration qualifier whose absence keeps the program's meaning on HIP
    # (__grid_constant__): the port deletes it instead of reporting HP101.
    erase: bool = False

    @property
    def supported(self) -> bool:
        return self.hip is not None


@dataclass(frozen=True, slots=True)
class HeaderRule:
    cuda: str
    hip: str | None  # None with drop=True: the include goes; None otherwise: unsupported
    drop: bool
    library: str
    origin: Origin
    roc: str | None = None
    role: str = "include"
    hip_flat: str | None = None  # the path ROCm used before dir_added
    roc_flat: str | None = None
    dir_added: str | None = None  # first ROCm with the per-library directory path
    flat_removed: str | None = None  # first ROCm without the flat path
    added: str | None = None  # first HIP with the hip path
    older: str | None = None  # what a HIP before added includes instead (None: nothing, an error)
    note: str | None = None  # why, or what to use instead, for a header HIP lacks
    rename_words: tuple[str, ...] = ()  # a directory rule's "CUDA=HIP" replacements in the rest of the path
    # what the #include line becomes instead: the header's content written for HIP (a polyfill of a
    # CUDA header HIP lacks), guarded by HIPPORT_INLINE_<PATH> (engine/includes.py)
    inline: str | None = None
    # words that keep the include as it is (HP103 with `note`): APIs of the header's family HIP lacks,
    # which hipport cannot see behind a namespace alias (cg::binary_partition)
    inline_unless: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class MacroRule:
    """A macro CUDA headers define that code tests in #if/#ifdef, and the HIP macro with the same meaning.

    hip is None when HIP has no macro that answers the same question (a CUDA version number):
    the test is reported, never turned true or false.
    """

    cuda: str
    hip: str | None
    origin: Origin
    header: str | None = None  # the CUDA header that defines it (its guard, or a feature macro)
    added: str | None = None  # first HIP that defines hip
    note: str | None = None


@dataclass(frozen=True, slots=True)
class NamespaceRule:
    cuda: str
    hip: str
    library: str
    origin: Origin


@dataclass(frozen=True, slots=True)
class WrapRule:
    cuda: str
    argument: int
    wrapper: str
    origin: Origin
    unless_declared: tuple[str, ...] = ()  # no wrapper where the argument is declared with one of these types


@dataclass(frozen=True, slots=True)
class MemberAccessor:
    """receiver.member means something else in HIP; a read becomes read(receiver)."""

    receiver: str
    member: str
    read: str
    code: str
    message: str
    origin: Origin


@dataclass(frozen=True, slots=True)
class LintRule:
    cuda: str
    code: str
    message: str
    origin: Origin
    severity: str | None = None
    once: bool = False  # the first use in a file only: a fact about the file, not each use


@dataclass(frozen=True, slots=True)
class LibraryNeed:
    """Ported code that includes `include` (a path, or a prefix ending in /) needs `library`."""

    include: str
    library: str
    package: str | None
    origin: Origin
    # Why the include builds on AMD only with today's CUDA (hipCUB's NVIDIA back end and CCCL 3):
    # the message of an HP441 at the include, unless the port is for AMD alone.
    nvidia_limit: str | None = None


@dataclass(frozen=True, slots=True)
class CodeInfo:
    code: str
    name: str
    severity: str
    summary: str
    effort: str = "medium"
    help: str = ""


@dataclass(frozen=True, slots=True)
class BlockPrimitive:
    """A CUB block primitive whose rocPRIM back end needs a block size that is a multiple of the
    wavefront for some algorithms (rules/cub-block-size.toml; hipport/engine/block_size.py)."""

    dimensions: tuple[int, int, int]  # template argument indexes of the block's x, y, z (-1: none)
    algorithm: int  # template argument index of the algorithm
    algorithms: tuple[str, ...]  # the algorithms that need the multiple
    wavefront: int
    code: str
    message: str
    # the algorithm that takes any block size, chosen where the size is not a multiple (None: report only)
    fallback: str | None = None
    fixed_message: str | None = None


@dataclass(frozen=True, slots=True)
class RuleTest:
    before: str
    after: str
    origin: Origin
    line: int
    findings: tuple[str, ...] = ()
    args: tuple[str, ...] = ()


@dataclass
class RuleSet:
    names: dict[str, NameRule] = field(default_factory=dict)
    headers: dict[str, HeaderRule] = field(default_factory=dict)
    namespaces: dict[str, NamespaceRule] = field(default_factory=dict)
    macros: dict[str, MacroRule] = field(default_factory=dict)  # tested in #if/#ifdef only
    wraps: dict[str, WrapRule] = field(default_factory=dict)
    symbol_lookups: frozenset[str] = frozenset()  # calls whose string argument names a symbol: dlsym
    lints: dict[str, LintRule] = field(default_factory=dict)
    rewrites: dict[str, RewriteRule] = field(default_factory=dict)  # version-gated call rewrites
    # CUDA device function HIP lacks -> (the function the port defines instead, its definition)
    polyfills: dict[str, tuple[str, str]] = field(default_factory=dict)
    arguments: dict[str, tuple[ArgumentRule, ...]] = field(default_factory=dict)  # callee -> argument rewrites
    member_accessors: dict[tuple[str, str], MemberAccessor] = field(default_factory=dict)  # (receiver, member)
    block_primitives: dict[str, BlockPrimitive] = field(default_factory=dict)  # CUB primitive -> its block-size rule
    # CUDA struct type -> (HIP pointer typedef, HIP pointer-to-const typedef or None): `cudaArray *a` -> `hipArray_t a`
    pointer_types: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    structural_lints: list[StructuralLint] = field(default_factory=list)
    # HIP name -> the HP441 lint naming it: a name one platform's HIP headers lack (rules/platform-names.toml)
    platform_names: dict[str, StructuralLint] = field(default_factory=dict)
    codes: dict[str, CodeInfo] = field(default_factory=dict)
    code_tables: CodeTables = field(default_factory=CodeTables)  # messages, families, sets (codes.toml)
    library_titles: dict[str, str] = field(default_factory=dict)
    library_needs: list[LibraryNeed] = field(default_factory=list)
    target_columns: dict[str, str] = field(default_factory=dict)  # library -> reference CSV column
    markers: frozenset[str] = frozenset()
    typedef_names: frozenset[str] = frozenset()  # HIP types that are typedefs of another struct tag
    runtime_include: str = "hip/hip_runtime.h"
    runtime_api_include: str = "hip/hip_runtime_api.h"
    runtime_libraries: frozenset[str] = frozenset()
    # libraries whose ported headers need the HIP runtime included before them (hipCUB's
    # component headers choose their back end by __HIP_PLATFORM_AMD__, which the runtime defines)
    runtime_first_libraries: frozenset[str] = frozenset()
    unmapped_patterns: tuple[str, ...] = ()
    tests: list[RuleTest] = field(default_factory=list)
    build: BuildRules = field(default_factory=_new_build_rules)  # CMake and Makefile tables
    # name -> a dialect's rules (PyTorch's CUDA API), applied to the code it recognises (ruleset/dialects.py)
    dialects: dict[str, Dialect] = field(default_factory=dict)
    qualified: dict[str, NameRule] = field(default_factory=dict)  # a dialect's A::b rewritten whole
    # set on a rule set overlaid by a dialect: its own name rules, looked up for the last part of a
    # name qualified by one of its namespaces (at::cuda::getCurrentCUDAStream), and those namespaces
    dialect_names: Mapping[str, NameRule] = field(default_factory=dict)
    dialect_scopes: frozenset[str] = frozenset()
    digest: str = ""
    # derived, rebuilt by finish()
    vocabulary: frozenset[str] = frozenset()
    unmapped_re: re.Pattern[str] = re.compile(r"(?!x)x")  # matches nothing until finish()
    newest_hip: Version = (0, 0, 0)
    lint_index: LintIndex = field(default_factory=LintIndex)
    roc_type_libraries: frozenset[str] = frozenset()  # libraries with roc_in = "host" types
    # CUDA type -> the HIP (False) or ROC (True) type it shares with another CUDA type (cudaError_t
    # and CUresult -> hipError_t): made here, where the name rules are at hand, because a rule set
    # read from the cache makes each name rule only when it is looked up
    collapsing_types: dict[bool, dict[str, str]] = field(default_factory=dict)
    # is_interesting's answers by token, for the scanner (hipport.parse.scan); emptied by finish()
    scan_memo: dict[bytes, str] = field(default_factory=dict, repr=False, compare=False)

    def finish(self) -> RuleSet:
        """Derive the lookup structures the scanner and engine need."""
        # A name HIP spells the same way (sqrtf, atomicAdd) needs no edit; only the
        # double-underscore intrinsics among them still mark a file as device code.
        # csrilu02Info_t keeps its name in HIP but not in rocSPARSE, so --roc needs it scanned too.
        ported = {n for n, r in self.names.items() if r.hip != n or n.startswith("__") or (r.roc and r.roc != n)}
        self.lint_index = build_index(self.structural_lints)
        self.vocabulary = frozenset(
            {
                *ported,
                *self.namespaces,
                *self.macros,
                *self.wraps,
                *self.lints,
                *self.markers,
                *self.rewrites,
                *self.polyfills,
                *self.arguments,
                *self.lint_index.by_name,
                *self._platform_call_names(),
                *{cuda.split("::", 1)[0].strip() for cuda in self.qualified},  # thrust::cuda::par
            }
        )
        self.unmapped_re = self._compile_unmapped()
        self.roc_type_libraries = frozenset(r.library for r in self.names.values() if r.roc_in)
        self.collapsing_types = {roc: self._collapsing(roc) for roc in (False, True)}
        versions = [parse_version(v) for r in self.names.values() for v in (r.added, r.deprecated, r.removed) if v]
        self.newest_hip = max(versions, default=(0, 0, 0))
        self.scan_memo = {}
        return self

    def _platform_call_names(self) -> set[str]:
        """The HIP names of calls whose argument rewrite one platform's headers need (hipMallocAsync):
        scanned in HIP code too (hipport/engine/platform_calls.py)."""
        names: set[str] = set()
        for cuda, rules in self.arguments.items():
            if any(rule.platform for rule in rules):
                name_rule = self.names.get(cuda)
                names.update(r.hip for r in rules if r.platform and r.hip)
                if name_rule is not None and name_rule.hip:
                    names.add(name_rule.hip)
        return names

    def _collapsing(self, roc: bool) -> dict[str, str]:
        by_target: dict[str, set[str]] = {}
        for rule in self.names.values():
            target = rule.roc if roc and rule.roc else rule.hip
            if rule.kind == "type" and target:
                by_target.setdefault(target, set()).add(rule.cuda)
        return {cuda: target for target, names in by_target.items() if len(names) > 1 for cuda in names}

    def is_interesting(self, name: str) -> bool:
        return (
            name in self.vocabulary
            or self.unmapped_re.match(name) is not None
            or self.lint_index.name_re.match(name) is not None
        )

    def __getattr__(self, name: str):
        # From the rule cache the build-file tables come packed, and are unpacked when first used
        # (hipport.ruleset.loader): `hipport check` never needs them, nor the code that defines them.
        if name == "build":
            unpack = self.__dict__.pop("_build_loader", None)
            if unpack is not None:
                self.build = unpack()
                return self.build
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        if "_build_loader" in state:
            del state["_build_loader"]
            state["build"] = self.build
        state["unmapped_re"] = None
        state["scan_memo"] = {}
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.unmapped_re = self._compile_unmapped()
        self.scan_memo = {}  # a rule cache written before the memo existed has none

    def _compile_unmapped(self) -> re.Pattern[str]:
        joined = "|".join(f"(?:{p})" for p in self.unmapped_patterns) or r"(?!x)x"
        return re.compile(rf"(?:{joined})\Z")
