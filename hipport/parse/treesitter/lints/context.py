"""What the lint matchers read around a candidate: node text, the enclosing scope's text, declarations
and #define values, each decoded or searched once per file or scope and remembered."""

from __future__ import annotations

import re

from hipport.parse.scan import integer_constants
from hipport.parse.treesitter.tree_path import NodePath

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
FUNCTION_NODES = frozenset({"function_definition", "lambda_expression"})
SCOPE_NODES = FUNCTION_NODES | {"preproc_arg"}  # whose text _scope_text gives


class ContextReader:
    """The text lookups LintMatcher and its matcher mixins share, with their per-file caches."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        self._macro_values: dict[str, tuple[int, str]] | None = None
        self._declared: dict[tuple[str, tuple[str, ...]], bool] = {}
        self._scope_texts: tuple[tuple[int, int], str] | None = None  # the last scope decoded
        self._file_text: str | None = None
        self._declarator_counts: dict[int, int] = {}

    def _text(self, node) -> str:
        return " ".join(self.source[node.start_byte : node.end_byte].decode("utf-8", "replace").split())

    def _scope_text(self, path: NodePath, depth: int) -> str:
        """The text of the function (or macro body) enclosing the node at depth, or of the whole file.

        Decoded once per scope for the hits in a row that share it, and once per file.
        """
        found = path.nearest(SCOPE_NODES, depth)
        if found < 0:
            if self._file_text is None:
                self._file_text = self.source.decode("utf-8", "replace")
            return self._file_text
        span = path.at(found).byte_range
        if self._scope_texts is None or self._scope_texts[0] != span:
            self._scope_texts = (span, self.source[span[0] : span[1]].decode("utf-8", "replace"))
        return self._scope_texts[1]

    def _declarator_count(self, declaration) -> int:
        """How many declarators a declaration has; remembered, since `int a = f(), b = f(), ...`
        would otherwise list them again for every call."""
        count = self._declarator_counts.get(declaration.start_byte)
        if count is None:
            count = self._declarator_counts[declaration.start_byte] = len(
                declaration.children_by_field_name("declarator")
            )
        return count

    def _mentions(self, text: str, operand: str, path: NodePath | None, depth: int = 0) -> bool:
        """text names an identifier matching operand, or one assigned from such a name in scope."""
        names = IDENT.findall(text)
        if any(re.fullmatch(operand, n) for n in names):
            return True
        if path is None:
            return False
        scope = self._scope_text(path, depth)
        for n in set(names):
            for m in re.finditer(rf"\b{n}\s*=(?!=)([^;]*)", scope):
                if any(re.fullmatch(operand, source_name) for source_name in IDENT.findall(m.group(1))):
                    return True
        return False

    def _declared_type(self, variable: str, types: tuple[str, ...], scope: str) -> str | None:
        spelled = "|".join(r"\s+".join(map(re.escape, t.split())) for t in sorted(types, key=len, reverse=True))
        m = re.search(rf"(?<![\w])({spelled})\s+(?:const\s+)?{variable}\s*[;=,)\[]", scope)
        return " ".join(m.group(1).split()) if m else None

    def _declared_with(self, variable: str, receivers: tuple[str, ...]) -> bool:
        key = (variable, receivers)
        known = self._declared.get(key)
        if known is None:
            types = "|".join(map(re.escape, receivers))
            pattern = rf"\b(?:{types})\b\s*(?:const\b\s*)?[&*\s]*(?:const\b\s*)?\b{re.escape(variable)}\b"
            known = self._declared[key] = re.search(pattern.encode(), self.source) is not None
        return known

    def _macro_value(self, name: str) -> tuple[int | None, str]:
        """The value and spelling of an integer #define or constant of this file (scan.integer_constants)."""
        if self._macro_values is None:
            self._macro_values = {
                n: (value, spelled) for n, (value, spelled, _) in integer_constants(self.source).items()
            }
        return self._macro_values.get(name, (None, ""))
