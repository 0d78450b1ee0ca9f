"""Known names inside string literals, for --port-strings and the symbol-lookup finding.

The scanner finds identifiers wherever they are, strings included; the classifier
drops those in comments and strings as not code. A name in a string's own text is
kept here instead, with the call the literal is passed to (dlsym(h, "cuInit")), so
the engine can tell a message from a symbol looked up by name at run time.
"""

from __future__ import annotations

import re

from hipport.parse.sites import StringNameSite
from hipport.parse.treesitter.tree_path import NodePath

STRING_TEXT = frozenset({"string_content", "raw_string_content"})
_LITERALS = frozenset({"string_literal", "raw_string_literal"})
# Literals that are not text for people or programs to read as names: include paths, asm.
_NOT_TEXT = frozenset({"preproc_include", "gnu_asm_expression", "asm_statement", "linkage_specification"})
_LAST_NAME = re.compile(rb"([A-Za-z_][A-Za-z0-9_]*)\s*$")


def string_site(path: NodePath, depth: int, source: bytes, start: int, end: int, name: str) -> StringNameSite | None:
    """The site of name at start, inside the string text at depth; None where it is not text."""
    literal = depth - 1
    if path.type_at(literal) not in _LITERALS:
        return None
    around = literal - 1
    if path.type_at(around) == "concatenated_string":
        around -= 1
    if path.type_at(around) in _NOT_TEXT:
        return None
    call = None
    if path.type_at(around) == "argument_list" and path.type_at(around - 1) == "call_expression":
        function = path.at(around - 1).child_by_field_name("function")
        if function is not None:
            found = _LAST_NAME.search(source, function.start_byte, function.end_byte)
            call = found.group(1).decode("ascii") if found is not None else None
    return StringNameSite(start, end, name, call)
