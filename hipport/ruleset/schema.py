"""The rule-file schema, and errors that point at file:line.

Rule files are TOML. Each top-level array is one rule kind; each element is a
table whose fields are checked here. See rules/README.md for the prose version.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from hipport.ruleset.field_formats import field_problem

STR, BOOL, INT, STR_LIST = "string", "boolean", "integer", "list of strings"

_VERSION_FIELDS = {
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
_HEADER_VERSION_FIELDS = ("dir_added", "flat_removed")

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
            **_VERSION_FIELDS,
        },
    ),
    "unsupported": (
        {"cuda": STR},
        {"kind": STR, "section": STR, "library": STR, "note": STR, "replacement": STR, "roc": STR, **_VERSION_FIELDS},
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
        },
    ),
    # a macro CUDA headers define, as code tests it in #if/#ifdef (rules/macros.toml)
    "macro": ({"cuda": STR}, {"hip": STR, "header": STR, "added": STR, "note": STR}),
    "namespace": ({"cuda": STR, "hip": STR}, {"library": STR, "note": STR}),
    "wrap_argument": ({"cuda": STR, "argument": INT, "wrapper": STR}, {"note": STR}),
    "symbol_lookup": ({"call": STR}, {"note": STR}),
    "name_lint": ({"cuda": STR, "code": STR, "message": STR}, {"severity": STR}),
    "code": (
        {"code": STR, "name": STR, "severity": STR, "summary": STR},
        {"effort": STR, "help": STR},
    ),
    "library_title": ({"library": STR, "title": STR}, {"target_column": STR}),
    # an include path (or a path prefix ending in /) in ported code -> the library a build needs
    "library_need": ({"include": STR, "library": STR}, {"package": STR, "note": STR}),
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
            "added": STR,
            "hip": STR,
            "fix": STR,
            "fix_safe": BOOL,
            "severity": STR,
            "once": BOOL,
            "library": STR,
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
            "since": STR,
            "until": STR,
            "library": STR,
            "note": STR,
        },
    ),
    # a member whose type differs in HIP, read through an accessor (rules/fp16.toml, hipport/engine/members.py)
    "member_accessor": ({"receiver": STR, "member": STR, "read": STR, "code": STR, "message": STR}, {"note": STR}),
    # build files (rules/buildfiles.toml, read by hipport/buildfiles)
    "build_library": (
        {"cuda": STR},
        {"targets": STR_LIST, "package": STR, "hip_target": STR, "hip_link": STR, "note": STR},
    ),
    "build_package": ({"cuda": STR}, {"hip": STR, "note": STR}),
    "build_word": ({"cuda": STR}, {"hip": STR, "note": STR}),
    "build_flag": ({"flag": STR}, {"value": STR, "match": STR, "hip": STR, "note": STR, "nvcc_line": BOOL}),
    "build_path": ({"cuda": STR, "hip": STR}, {"note": STR}),
    "offload_arch": ({"name": STR}, {"added": STR, "default": BOOL, "note": STR}),
    "build_test": ({"file": STR, "before": STR, "after": STR}, {"findings": STR_LIST, "args": STR_LIST}),
}

# Top-level scalars and lists that are not arrays of rules.
TOP_LEVEL = {
    "schema": INT,
    "library": STR,
    "runtime_include": STR,
    "runtime_api_include": STR,
    "markers": STR_LIST,
    "runtime_libraries": STR_LIST,
    "patterns": STR_LIST,
    "typedef_names": STR_LIST,
    "cuda_root_variables": STR_LIST,
}

SEVERITIES = {"error", "warning", "info"}
BUILD_FLAG_VALUES = ("none", "joined", "separate", "either")
# Columns of the reference CSV that can hold the name a library's port emits.
TARGET_COLUMNS = ("hip_name", "roc_name")


@dataclass
class RuleFileError(Exception):
    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


def _type_ok(value: object, expected: str) -> bool:
    if expected == STR:
        return isinstance(value, str)
    if expected == BOOL:
        return isinstance(value, bool)
    if expected == INT:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


class _Locator:
    """Finds the line of the i-th rule of a kind, and of a field inside it.

    tomllib keeps no positions, so this re-reads the text. It understands both
    layouts used in rules/: one inline table per line inside `kind = [ ... ]`,
    and `[[kind]]` array-of-tables blocks.
    """

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()

    def entry_line(self, kind: str, index: int) -> int:
        header = re.compile(rf"^\s*\[\[\s*{re.escape(kind)}\s*\]\]")
        hits = [n for n, line in enumerate(self.lines, 1) if header.match(line)]
        if hits:
            return hits[index] if index < len(hits) else hits[-1]
        opener = re.compile(rf"^\s*{re.escape(kind)}\s*=\s*\[")
        for n, line in enumerate(self.lines, 1):
            if opener.match(line):
                seen = -1
                for m in range(n, len(self.lines) + 1):
                    if self.lines[m - 1].lstrip().startswith("{") or (m == n and "{" in line):
                        seen += 1
                        if seen == index:
                            return m
                return n
        return 1

    def field_line(self, kind: str, index: int, field: str) -> int:
        start = self.entry_line(kind, index)
        if re.search(rf"\b{re.escape(field)}\s*=", self.lines[start - 1]):
            return start
        pattern = re.compile(rf"^\s*{re.escape(field)}\s*=")
        for n in range(start + 1, min(len(self.lines), start + 50) + 1):
            if self.lines[n - 1].lstrip().startswith("[["):
                break
            if pattern.match(self.lines[n - 1]):
                return n
        return start

    def key_line(self, key: str) -> int:
        pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
        for n, line in enumerate(self.lines, 1):
            if pattern.match(line):
                return n
        return 1


# Rule files nest four levels (key, array, table, list) and use no dotted keys
# or floats; the limits leave room for any layout a person would write.
MAX_NESTING = 16
MAX_DOTS_PER_LINE = 32
_SHAPE = re.compile(
    r"""
      \"\"\"(?:\\.|[^\\])*?\"\"\"  |  '{3}.*?'{3}     # multi-line strings
    | "(?:\\.|[^"\\\n])*"         |  '[^'\n]*'        # one-line strings
    | \#[^\n]*                                        # comments
    | (?P<open>[\[{]) | (?P<close>[\]}]) | (?P<dot>\.) | (?P<newline>\n)
    """,
    re.S | re.X,
)


def check_shape(text: str, path: str) -> None:
    """Reject nesting no rule file needs before a TOML parser recurses into it.

    tomllib recurses once per nested array or table, and a dotted key with
    100,000 parts takes it some 40 GB: a small hostile file must fail here,
    with its line, and not take the process down.
    """
    depth, dots, line = 0, 0, 1
    for m in _SHAPE.finditer(text):
        kind = m.lastgroup
        if kind == "open":
            depth += 1
            if depth > MAX_NESTING:
                raise RuleFileError(path, line, f"arrays and tables nest deeper than {MAX_NESTING} levels")
        elif kind == "close":
            depth = max(0, depth - 1)
        elif kind == "dot":
            dots += 1
            if dots > MAX_DOTS_PER_LINE:
                raise RuleFileError(path, line, f"more than {MAX_DOTS_PER_LINE} dots in keys or numbers on one line")
        elif kind == "newline":
            line, dots = line + 1, 0
        else:
            line += m.group().count("\n")  # strings and comments


def validate(data: dict, text: str, path: str) -> None:
    """Raise RuleFileError at the first schema violation."""
    where = _Locator(text)
    for key, value in data.items():
        if key in KINDS:
            if not isinstance(value, list):
                raise RuleFileError(path, where.key_line(key), f"'{key}' must be an array of tables")
            for index, entry in enumerate(value):
                _validate_entry(key, index, entry, where, path)
        elif key in TOP_LEVEL:
            if not _type_ok(value, TOP_LEVEL[key]):
                raise RuleFileError(path, where.key_line(key), f"'{key}' must be a {TOP_LEVEL[key]}")
            problem = field_problem("", key, value)
            if problem is not None:
                raise RuleFileError(path, where.key_line(key), problem)
        else:
            known = ", ".join(sorted([*KINDS, *TOP_LEVEL]))
            raise RuleFileError(path, where.key_line(key), f"unknown key '{key}' (known: {known})")
    if data.get("schema", 1) != 1:
        raise RuleFileError(path, where.key_line("schema"), f"unsupported schema {data['schema']}, expected 1")
    for n, pattern in enumerate(data.get("patterns", [])):
        try:
            re.compile(pattern)
        except (re.error, OverflowError, RecursionError) as exc:
            raise RuleFileError(path, where.key_line("patterns") + n + 1, f"bad pattern {pattern!r}: {exc}") from None
    _check_duplicates(data, where, path)
    _check_argument_duplicates(data, where, path)


# Kinds whose rules are looked up by one field: two in one file would silently shadow each other.
_KEYED = {
    "rename": "cuda",
    "unsupported": "cuda",
    "header": "cuda",
    "namespace": "cuda",
    "wrap_argument": "cuda",
    "symbol_lookup": "call",
    "macro": "cuda",
    "name_lint": "cuda",
    "rewrite": "cuda",
    "code": "code",
    "library_title": "library",
}


def _check_duplicates(data: dict, where: _Locator, path: str) -> None:
    seen: dict[tuple[str, str], tuple[str, int]] = {}
    for kind, field in _KEYED.items():
        table = "name" if kind in ("rename", "unsupported") else kind  # one lookup table for both
        for index, entry in enumerate(data.get(kind, [])):
            key = (table, entry[field])
            if key in seen:
                first_kind, first_index = seen[key]
                raise RuleFileError(
                    path,
                    where.entry_line(kind, index),
                    f"duplicate {kind} rule for '{entry[field]}' (first at line "
                    f"{where.entry_line(first_kind, first_index)})",
                )
            seen[key] = (kind, index)


def _check_argument_duplicates(data: dict, where: _Locator, path: str) -> None:
    """Two argument rewrites for one call shape in one file would silently shadow each other."""
    seen: dict[tuple, int] = {}
    for index, entry in enumerate(data.get("argument_rewrite", [])):
        key = (
            entry["cuda"],
            entry.get("count"),
            entry.get("min_count", 0),
            entry.get("target", "hip"),
            entry.get("since"),
            entry.get("until"),
        )
        if key in seen:
            raise RuleFileError(
                path,
                where.entry_line("argument_rewrite", index),
                f"duplicate argument_rewrite rule for '{entry['cuda']}' with the same count, target "
                f"and versions (first at line {where.entry_line('argument_rewrite', seen[key])})",
            )
        seen[key] = index


def _validate_entry(kind: str, index: int, entry: object, where: _Locator, path: str) -> None:
    required, optional = KINDS[kind]
    if not isinstance(entry, dict):
        raise RuleFileError(path, where.entry_line(kind, index), f"each '{kind}' entry must be a table")
    for field, value in entry.items():
        expected = required.get(field) or optional.get(field)
        if expected is None:
            allowed = ", ".join([*required, *optional])
            raise RuleFileError(
                path,
                where.field_line(kind, index, field),
                f"unknown field '{field}' in {kind} rule (allowed: {allowed})",
            )
        if not _type_ok(value, expected):
            raise RuleFileError(path, where.field_line(kind, index, field), f"field '{field}' must be a {expected}")
        problem = field_problem(kind, field, value)
        if problem is not None:
            raise RuleFileError(path, where.field_line(kind, index, field), problem)
    for field in required:
        if field not in entry:
            raise RuleFileError(path, where.entry_line(kind, index), f"{kind} rule is missing required field '{field}'")
    severity = entry.get("severity")
    if severity is not None and severity not in SEVERITIES:
        raise RuleFileError(
            path, where.field_line(kind, index, "severity"), f"severity must be one of {', '.join(sorted(SEVERITIES))}"
        )
    for field in (*_VERSION_FIELDS, *_HEADER_VERSION_FIELDS):
        value = entry.get(field)
        if value is not None and not re.fullmatch(r"\d+(\.\d+){0,2}", value):
            raise RuleFileError(path, where.field_line(kind, index, field), f"'{field}' is not a version: {value!r}")
    if kind == "build_flag" and entry.get("value", "none") not in BUILD_FLAG_VALUES:
        raise RuleFileError(
            path, where.field_line(kind, index, "value"), f"value must be one of {', '.join(BUILD_FLAG_VALUES)}"
        )
    if kind == "argument_rewrite":
        from hipport.ruleset.argrules import validate_argument_rule

        argument_problem = validate_argument_rule(entry)
        if argument_problem is not None:
            raise RuleFileError(path, where.field_line(kind, index, argument_problem[0]), argument_problem[1])
        for field in ("since", "until"):
            if field in entry and not re.fullmatch(r"\d+(\.\d+){0,2}", entry[field]):
                raise RuleFileError(path, where.field_line(kind, index, field), f"'{field}' is not a version")
    if kind in ("lint", "rewrite"):
        from hipport.ruleset.lintrules import validate_lint, validate_rewrite

        field_and_problem = (validate_lint if kind == "lint" else validate_rewrite)(entry)
        if field_and_problem is not None:
            raise RuleFileError(path, where.field_line(kind, index, field_and_problem[0]), field_and_problem[1])
    if kind == "header":
        if "older" in entry and "added" not in entry:
            raise RuleFileError(
                path, where.field_line(kind, index, "older"), "'older' needs 'added', the first HIP with the 'hip' path"
            )
        if "dir_added" in entry and "hip_flat" not in entry:
            raise RuleFileError(
                path,
                where.field_line(kind, index, "dir_added"),
                "'dir_added' needs 'hip_flat', the path older versions use",
            )
    if entry.get("roc_in", "host") != "host":
        raise RuleFileError(path, where.field_line(kind, index, "roc_in"), 'roc_in must be "host"')
    column = entry.get("target_column")
    if column is not None and column not in TARGET_COLUMNS:
        raise RuleFileError(
            path,
            where.field_line(kind, index, "target_column"),
            f"target_column must be one of {', '.join(TARGET_COLUMNS)}",
        )


def relpath(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
