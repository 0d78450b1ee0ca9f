"""What a rule file may hold: each rule kind's required and optional fields, with their types.

rules/README.md is the prose version; hipport.ruleset.schema checks files against this table.
"""

from __future__ import annotations

STR, BOOL, INT, STR_LIST = "string", "boolean", "integer", "list of strings"

VERSION_FIELDS = {
    "added": STR,
    "deprecated": STR,
    "changed": STR,
    "removed": STR,
    "experimental": STR,
    "cuda_added": STR,
    "cuda_deprecated": STR,
    "cuda_removed": STR,
}

# ROCm versions of a header's move from the flat include path (hipblas.h) to
# the per-library directory (hipblas/hipblas.h).
HEADER_VERSION_FIELDS = ("dir_added", "flat_removed")

# kind -> (required fields, optional fields)
KINDS: dict[str, tuple[dict[str, str], dict[str, str]]] = {
    "rename": (
        {"cuda": STR, "hip": STR},
        {
            "kind": STR,
            "section": STR,
            "roc": STR,
            "roc_in": STR,
            "library": STR,
            "note": STR,
            "replacement": STR,
            "older": STR,
            # a macro's spelling where an #if or #elif tests its value alone (`#if __CUDACC__`):
            # HIP's counterpart is defined empty on a platform, so only a presence test works there
            "value_test": STR,
            **VERSION_FIELDS,
        },
    ),
    "unsupported": (
        {"cuda": STR},
        {
            "kind": STR,
            "section": STR,
            "library": STR,
            "note": STR,
            "replacement": STR,
            "roc": STR,
            # a declaration qualifier (a marker) whose deletion keeps the meaning: the port deletes it
            "erase": BOOL,
            **VERSION_FIELDS,
        },
    ),
    "header": (
        {"cuda": STR},
        {
            "hip": STR,
            "drop": BOOL,
            "unsupported": BOOL,
            "library": STR,
            "roc": STR,
            "role": STR,
            "hip_flat": STR,
            "roc_flat": STR,
            "dir_added": STR,
            "flat_removed": STR,
            "note": STR,
            "added": STR,
            "older": STR,
            # a directory rule (cuda and hip end in /) that also replaces these words ("CUDA=HIP") in the
            # rest of the path, as a ROCm PyTorch names ATen/cuda/CUDAContext.h ATen/hip/HIPContext.h
            "rename_words": STR_LIST,
            # what the #include line becomes: the header written for HIP (cooperative_groups/reduce.h)
            "inline": STR,
            "inline_unless": STR_LIST,
        },
    ),
    # a macro CUDA headers define, as code tests it in #if/#ifdef (rules/macros.toml)
    "macro": ({"cuda": STR}, {"hip": STR, "header": STR, "added": STR, "note": STR}),
    "namespace": ({"cuda": STR, "hip": STR}, {"library": STR, "note": STR}),
    "wrap_argument": ({"cuda": STR, "argument": INT, "wrapper": STR}, {"note": STR, "unless_declared": STR_LIST}),
    "symbol_lookup": ({"call": STR}, {"note": STR}),
    "name_lint": ({"cuda": STR, "code": STR, "message": STR}, {"severity": STR, "once": BOOL}),
    "code": (
        {"code": STR, "name": STR, "severity": STR, "summary": STR},
        {"effort": STR, "help": STR},
    ),
    "library_title": ({"library": STR, "title": STR}, {"target_column": STR}),
    # the code registry's other tables (rules/codes.toml, hipport/ruleset/codes.py)
    "message": ({"code": STR, "key": STR, "text": STR}, {}),
    "family": ({"prefix": STR, "title": STR}, {}),
    "code_set": ({"set": STR, "codes": STR_LIST}, {"about": STR}),
    "not_ported": ({"code": STR, "status": STR}, {}),
    # a set of identifiers hipport's code asks for by name (RuleSet.code_tables.name_set)
    "name_set": ({"set": STR, "names": STR_LIST}, {"about": STR}),
    # a device function HIP lacks, written out: calls are renamed to `hip`, which the port defines
    # in the file from `definition`, once and guarded, before the first use (engine/polyfills.py)
    # variants: other CUDA names with the same definition, spelled with their names (loader.polyfill_variants)
    "polyfill": ({"cuda": STR, "hip": STR, "definition": STR}, {"note": STR, "variants": STR_LIST}),
    # an include path (or a path prefix ending in /) in ported code -> the library a build needs;
    # nvidia_limit: why this include does not build for NVIDIA with current CUDA (HP441 unless --platform amd)
    "library_need": ({"include": STR, "library": STR}, {"package": STR, "note": STR, "nvidia_limit": STR}),
    "test": ({"before": STR, "after": STR}, {"findings": STR_LIST, "args": STR_LIST}),
    # version-gated call rewrites and structural lints (hipport/ruleset/lintrules.py)
    "rewrite": (
        {"cuda": STR, "hip": STR, "since": STR, "message": STR},
        {
            "older": STR,
            "drop_argument": INT,
            "older_arguments": STR,
            "min_arguments": INT,
            "mask_argument": INT,
            "enable_define": STR,
            "default_since": STR,
            "older_platform": STR,
            "library": STR,
            "note": STR,
        },
    ),
    "lint": (
        {"code": STR, "match": STR, "message": STR},
        {
            "names": STR_LIST,
            "pattern": STR,
            "literals": STR_LIST,
            "operators": STR_LIST,
            "argument": INT,
            "operand": STR,
            "calls": STR,
            "position": STR,
            "subscript": STR,
            "types": STR_LIST,
            "text": STR,
            "receivers": STR_LIST,
            "device_code": BOOL,
            "pointer": BOOL,
            "added": STR,
            "hip": STR,
            "fix": STR,
            "fix_safe": BOOL,
            "severity": STR,
            "fixed_severity": STR,
            "value_severity": STR,
            "newest": STR,
            "once": BOOL,
            "library": STR,
            "platform": STR,
            "fix_definition": STR,
            "note": STR,
        },
    ),
    # calls whose HIP counterpart takes other arguments (rules/arguments.toml, hipport/ruleset/argrules.py)
    "argument_rewrite": (
        {"cuda": STR},
        {
            "count": INT,
            "min_count": INT,
            "target": STR,
            "hip": STR,
            "arguments": STR,
            "code": STR,
            "message": STR,
            "silent_values": STR_LIST,
            "keep_name": BOOL,
            "report": BOOL,
            "borrow_call": STR,
            "borrow_match": INT,
            "borrow_argument": INT,
            "borrow_key": INT,
            "borrow_also": STR_LIST,
            "since": STR,
            "until": STR,
            "library": STR,
            "platform": STR,
            "when_argument": INT,
            "when_declared": STR,
            "when_matches": STR,
            "note": STR,
        },
    ),
    # a CUDA struct type whose pointer has a portable HIP typedef (rules/platforms.toml, engine/pointer_types.py)
    "pointer_type": ({"cuda": STR, "hip": STR}, {"hip_const": STR, "note": STR}),
    # a member whose type differs in HIP, read through an accessor (rules/fp16.toml, hipport/engine/members.py)
    "member_accessor": ({"receiver": STR, "member": STR, "read": STR, "code": STR, "message": STR}, {"note": STR}),
    # build files (rules/buildfiles.toml, read by hipport/buildfiles)
    "build_library": (
        {"cuda": STR},
        {"targets": STR_LIST, "package": STR, "hip_target": STR, "hip_link": STR, "note": STR},
    ),
    "build_package": ({"cuda": STR}, {"hip": STR, "note": STR, "code": STR}),
    "build_arch_variable": ({"cuda": STR, "hip": STR}, {"environment": BOOL, "note": STR}),
    "build_extension": ({"call": STR, "note": STR}, {"flags_keyword": STR, "flags_key": STR}),
    "build_word": ({"cuda": STR}, {"hip": STR, "note": STR}),
    "build_flag": ({"flag": STR}, {"value": STR, "match": STR, "hip": STR, "note": STR, "nvcc_line": BOOL}),
    "build_path": ({"cuda": STR, "hip": STR}, {"note": STR}),
    "offload_arch": ({"name": STR}, {"added": STR, "default": BOOL, "note": STR}),
    # a qualified name a dialect rewrites whole (hipify 1.x: CUDACachingAllocator::get ->
    # HIPCachingAllocatorMasqueradingAsCUDA::get): listed for explain, applied by its first identifier
    "qualified": ({"cuda": STR, "hip": STR}, {"library": STR, "note": STR}),
    "build_test": ({"file": STR, "before": STR, "after": STR}, {"findings": STR_LIST, "args": STR_LIST}),
    # a CUB block primitive whose rocPRIM back end needs the block size to be a multiple of the wavefront
    # for the algorithms named (hipport/engine/block_size.py): template arguments x, y, z are the block's
    # dimensions, argument `algorithm` the algorithm (rules/cub-block-size.toml)
    "block_primitive": (
        {
            "cuda": STR,
            "x": INT,
            "algorithm": INT,
            "algorithms": STR_LIST,
            "wavefront": INT,
            "code": STR,
            "message": STR,
        },
        # fallback: the algorithm that takes any block size; with it, the port chooses it by a constant
        # expression where the size is not a multiple, and reports fixed_message (info) instead
        {"y": INT, "z": INT, "note": STR, "fallback": STR, "fixed_message": STR},
    ),
}

# Top-level scalars and lists that are not arrays of rules.
TOP_LEVEL = {
    "schema": INT,
    "library": STR,
    "runtime_include": STR,
    "runtime_api_include": STR,
    "markers": STR_LIST,
    "runtime_libraries": STR_LIST,
    "runtime_first_libraries": STR_LIST,
    "patterns": STR_LIST,
    "typedef_names": STR_LIST,
    "cuda_root_variables": STR_LIST,
    # A dialect (hipport/ruleset/dialects.py): the file's rules apply only to code the dialect's
    # markers recognise, for target releases from dialect_since and before dialect_until.
    "dialect": STR,
    "dialect_title": STR,
    "dialect_since": STR,
    "dialect_until": STR,
    "dialect_facts": STR,
    "detect_includes": STR_LIST,
    "detect_build": STR_LIST,
    # the namespaces a dialect declares its names in: the last part of a name qualified by one of
    # them (at::cuda::getCurrentCUDAStream) is looked up in the dialect's names
    "qualified_scopes": STR_LIST,
}

SEVERITIES = {"error", "warning", "info"}
BUILD_FLAG_VALUES = ("none", "joined", "separate", "either")
# Columns of the reference CSV that can hold the name a library's port emits.
TARGET_COLUMNS = ("hip_name", "roc_name")
