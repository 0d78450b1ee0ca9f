"""What the text of a rule field may be, beyond its type.

Rule files are untrusted input: a `--rules` file may come from anywhere. Its
fields end up inside the user's ported sources (rename targets, wrappers,
#include paths, lint fixes), build files (flags, paths, targets) and the
terminal (messages). So each field that is written into code is held to the
shape of the code it stands for (an identifier cannot smuggle in
`); system("...")`), message templates may only name their known
placeholders (a format spec such as {name:>999999999} would allocate
gigabytes), and no string may carry control characters (terminal escapes).
"""

from __future__ import annotations

import re
import string

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_QUALIFIED = rf"{_IDENT}(?:::{_IDENT})*"

IDENTIFIER = (re.compile(_IDENT), "a C identifier")
QUALIFIED = (re.compile(_QUALIFIED), "a C++ name (identifiers joined by ::)")
# rocrand_device::mtgp32_engine, scrambled_sobol32_engine<false>, void*
CXX_NAME = (
    re.compile(rf"{_QUALIFIED}(?:<[A-Za-z0-9_:, ]*>)?(?: ?\*)?"),
    "a C++ name (an identifier, optionally qualified, templated or a pointer)",
)
CODE = (re.compile(r"[A-Z]+[0-9]+"), "a finding code such as HP101")
CODE_WORDS = (re.compile(r"[A-Za-z0-9_]+(?: [A-Za-z0-9_]+)*"), "identifiers or numbers separated by single spaces")
# A lint fix is code built from words, casts and calls, with the matched text as {name}:
# no quotes, semicolons, braces other than the placeholder's, or preprocessor lines.
FIX = (
    re.compile(r"(?:[A-Za-z0-9_ <>(),.:!&|]|\{name\})+"),
    "identifiers, numbers, spaces, <>(),.:!&| and the placeholder {name}",
)
# A preprocessor condition a rule writes into an #if: names, numbers, defined(), ! && || and comparisons.
CONDITION = (re.compile(r"[A-Za-z0-9_ ()!&|<>=]+"), "a preprocessor condition: identifiers, numbers, spaces, ()!&|<>=")
ARGUMENTS = (re.compile(r"[A-Za-z0-9_]+(?:, ?[A-Za-z0-9_]+)*"), "comma-separated identifiers or numbers")
HEADER = (re.compile(r"(?!/)(?!.*(?:^|/)\.\.(?:/|$))[A-Za-z0-9_./+-]+"), "a relative header path without '..'")
FLAGS = (
    re.compile(r"(?:[A-Za-z0-9_=.,:+/{}-]+(?: [A-Za-z0-9_=.,:+/{}-]+)*)?"),
    "compiler flags without shell characters",
)
FLAG = (re.compile(r"-[A-Za-z0-9_=.,:+/-]*"), "a compiler flag")
PATH = (re.compile(r"/?[A-Za-z0-9_.+-]+(?:/[A-Za-z0-9_.+-]+)*"), "a path without spaces or shell characters")
LIBRARY = (re.compile(r"[A-Za-z0-9_.+-]+"), "a library name")

# (kind, field) -> format; "" as kind is a top-level key. A list field's format applies to each element.
FORMATS: dict[tuple[str, str], tuple[re.Pattern[str], str]] = {
    **{
        (kind, "cuda"): IDENTIFIER
        for kind in (
            "rename",
            "unsupported",
            "namespace",
            "wrap_argument",
            "name_lint",
            "rewrite",
            "build_word",
            "build_package",
            "argument_rewrite",
            "macro",
            "polyfill",
        )
    },
    ("argument_rewrite", "hip"): IDENTIFIER,
    ("argument_rewrite", "code"): CODE,
    ("argument_rewrite", "borrow_call"): IDENTIFIER,
    ("member_accessor", "receiver"): IDENTIFIER,
    ("member_accessor", "member"): IDENTIFIER,
    ("member_accessor", "read"): IDENTIFIER,
    ("member_accessor", "code"): CODE,
    ("macro", "hip"): IDENTIFIER,
    ("macro", "header"): HEADER,
    ("rename", "hip"): CXX_NAME,
    ("rename", "roc"): CXX_NAME,
    ("rename", "value_test"): CONDITION,
    ("polyfill", "hip"): IDENTIFIER,
    ("polyfill", "variants"): IDENTIFIER,
    ("unsupported", "roc"): CXX_NAME,
    ("namespace", "hip"): QUALIFIED,
    ("wrap_argument", "wrapper"): CXX_NAME,  # HIP_SYMBOL, or a cast: static_cast<unsigned long long>
    ("name_lint", "code"): CODE,
    ("code", "code"): CODE,
    ("lint", "code"): CODE,
    **{("header", field): HEADER for field in ("hip", "roc", "hip_flat", "roc_flat", "older")},
    ("library_need", "include"): HEADER,
    ("library_need", "package"): LIBRARY,
    ("rewrite", "hip"): IDENTIFIER,
    ("rewrite", "older"): IDENTIFIER,
    ("rewrite", "enable_define"): IDENTIFIER,
    ("rewrite", "older_arguments"): ARGUMENTS,
    ("lint", "names"): IDENTIFIER,
    ("lint", "receivers"): IDENTIFIER,
    ("lint", "hip"): IDENTIFIER,
    ("pointer_type", "cuda"): IDENTIFIER,
    ("pointer_type", "hip"): IDENTIFIER,
    ("pointer_type", "hip_const"): IDENTIFIER,
    ("lint", "fix"): FIX,
    ("lint", "types"): CODE_WORDS,
    ("build_word", "hip"): IDENTIFIER,
    ("build_package", "hip"): IDENTIFIER,
    ("build_package", "code"): CODE,
    ("build_arch_variable", "cuda"): IDENTIFIER,
    ("build_arch_variable", "hip"): IDENTIFIER,
    ("build_extension", "call"): IDENTIFIER,
    ("build_extension", "flags_keyword"): IDENTIFIER,
    ("build_extension", "flags_key"): IDENTIFIER,
    ("build_library", "cuda"): LIBRARY,
    ("build_library", "package"): IDENTIFIER,
    ("build_library", "hip_link"): LIBRARY,
    ("build_library", "hip_target"): QUALIFIED,
    ("build_library", "targets"): QUALIFIED,
    ("build_flag", "flag"): FLAG,
    ("build_flag", "hip"): FLAGS,
    ("build_path", "cuda"): PATH,
    ("build_path", "hip"): PATH,
    ("offload_arch", "name"): IDENTIFIER,
    ("", "markers"): IDENTIFIER,
    ("", "typedef_names"): IDENTIFIER,
    ("", "runtime_libraries"): IDENTIFIER,
    ("", "runtime_first_libraries"): IDENTIFIER,
    ("", "cuda_root_variables"): IDENTIFIER,
    ("", "runtime_include"): HEADER,
    ("", "runtime_api_include"): HEADER,
}

# (kind, field) -> the placeholders its str.format template may use
TEMPLATES: dict[tuple[str, str], frozenset[str]] = {
    ("rewrite", "message"): frozenset({"cuda", "hip", "older", "since", "target", "define", "default_since"}),
    ("lint", "message"): frozenset({"name", "target", "hip", "added"}),
    ("lint", "fix"): frozenset({"name"}),
    ("build_flag", "hip"): frozenset({"value"}),
}

# Tab, line feed and carriage return are text; every other control character is not.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def field_problem(kind: str, field: str, value: object) -> str | None:
    """Why value cannot be the text of this field, or None when it can."""
    for text in value if isinstance(value, list) else [value]:
        if not isinstance(text, str):
            continue
        control = _CONTROL.search(text)
        if control is not None:
            return f"'{field}' holds the control character {control.group()!r}"
        shape = FORMATS.get((kind, field))
        if shape is not None and not shape[0].fullmatch(text):
            return f"'{field}' must be {shape[1]}, got {_shown(text)}"
        allowed = TEMPLATES.get((kind, field))
        if allowed is not None:
            problem = _template_problem(text, allowed)
            if problem is not None:
                return f"'{field}' {problem}"
    return None


def _template_problem(template: str, allowed: frozenset[str]) -> str | None:
    try:
        parts = list(string.Formatter().parse(template))
    except ValueError as exc:
        return f"is not a valid template ({exc}); write a literal brace as {{{{ or }}}}"
    for _, name, spec, conversion in parts:
        if name is None:
            continue
        if name not in allowed or spec or conversion:
            spelled = "{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
            return f"may only use the placeholders {', '.join('{' + a + '}' for a in sorted(allowed))}, not {spelled}"
    return None


def _shown(text: str, limit: int = 60) -> str:
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"... ({len(text)} characters)"
