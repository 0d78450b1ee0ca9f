"""What the tree-sitter backend knows of the CUDA grammar: node kinds, and the lexing it falls back on."""

from __future__ import annotations

import re
from functools import lru_cache

IDENTIFIER_NODES = {"identifier", "type_identifier", "namespace_identifier", "field_identifier"}
NOT_CODE = {
    "comment",
    "string_literal",
    "string_content",
    "raw_string_literal",
    "raw_string_content",
    "raw_string_delimiter",
    "char_literal",
    "character",
    "escape_sequence",
    "system_lib_string",
}
# Declarator wrappers between a declared name and the declaration that owns it.
DECLARATOR_WRAPPERS = {
    "pointer_declarator",
    "reference_declarator",
    "array_declarator",
    "parenthesized_declarator",
    "function_declarator",
    "init_declarator",
    "attributed_declarator",
}
DECLARATION_OWNERS = {
    "declaration",
    "field_declaration",
    "parameter_declaration",
    "optional_parameter_declaration",
    "type_definition",
    "function_definition",
}
NAMED_DECLARATIONS = {
    "enumerator",
    "alias_declaration",
    "namespace_definition",
    "namespace_alias_definition",
    "preproc_def",
    "preproc_function_def",
    "concept_definition",
}
TAGGED_TYPES = {"struct_specifier", "class_specifier", "union_specifier", "enum_specifier"}
TYPE_PARAMETERS = {
    "type_parameter_declaration",
    "optional_type_parameter_declaration",
    "variadic_type_parameter_declaration",
}
# The parents an identifier may be declared in; under any other it is a use.
MAY_DECLARE = NAMED_DECLARATIONS | TAGGED_TYPES | TYPE_PARAMETERS | DECLARATOR_WRAPPERS | DECLARATION_OWNERS
CONDITIONAL_BLOCKS = frozenset({"preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef"})
MACRO_DEFINITIONS = {"preproc_def", "preproc_function_def"}
# Comments and literals found by lexing alone. Used where tree-sitter recovered
# from an error, since its recovery can read an unterminated comment as code;
# numbers come first so digit separators (1'000) are not taken for chars.
NOT_CODE_LEXEMES = re.compile(
    rb"""[0-9][A-Za-z0-9_.']*
       | //[^\n]*
       | /\*.*?(?:\*/|\Z)
       | R"(?P<delim>[^()\\\s"]{0,16})\(.*?(?:\)(?P=delim)"|\Z)
       | "(?:\\.|[^"\\\n])*"?
       | '(?:\\.|[^'\\\n])*'?""",
    re.S | re.X,
)
DEFINE_LINE = re.compile(rb"[ \t]*#[ \t]*define[ \t]+[A-Za-z_][A-Za-z0-9_]*(?:\(([^)]*)\))?")


@lru_cache(maxsize=1)
def _parser():
    # Imported here so that files with no candidates never load the grammar.
    import tree_sitter
    import tree_sitter_cuda

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_cuda.language()))


@lru_cache(maxsize=1)
def _comment_kind() -> int:
    return _parser().language.id_for_node_kind("comment", True)


def spans_of_code(nodes) -> list[tuple[int, int]]:
    """(start, end) of each node that is not a comment (by kind id: the grammar has one "comment")."""
    comment = _comment_kind()
    return [node.byte_range for node in nodes if node.kind_id != comment]
