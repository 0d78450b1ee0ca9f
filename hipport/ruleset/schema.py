"""The rule-file schema, and errors that point at file:line.

Rule files are TOML. Each top-level array is one rule kind; each element is a
table whose fields are checked here. See rules/README.md for the prose version.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from hipport.ruleset.field_formats import field_problem
from hipport.ruleset.kinds import (
    HEADER_VERSION_FIELDS,
    VERSION_FIELDS,
    BOOL,
    BUILD_FLAG_VALUES,
    INT,
    KINDS,
    SEVERITIES,
    STR,
    TARGET_COLUMNS,
    TOP_LEVEL,
)


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
    "polyfill": "cuda",
    "qualified": "cuda",
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
            entry.get("when_argument"),
            entry.get("when_declared"),
            entry.get("when_matches"),
        )
        if key in seen:
            raise RuleFileError(
                path,
                where.entry_line("argument_rewrite", index),
                f"duplicate argument_rewrite rule for '{entry['cuda']}' with the same count, target, "
                f"versions and conditions (first at line {where.entry_line('argument_rewrite', seen[key])})",
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
    for field in (*VERSION_FIELDS, *HEADER_VERSION_FIELDS):
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
    if kind in ("header", "rename"):
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
