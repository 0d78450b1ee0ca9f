"""What the lint matchers read around a candidate: node text, the enclosing scope's text, declarations,
#define values and whether the code is device code, each decoded or searched once per file or scope and
remembered. ContextReader is the tree-sitter backend's hipport.lints.context.Context."""

from __future__ import annotations

import re
from collections.abc import Callable

from hipport.lints.context import FUNCTION_NODES, IDENT, SyntaxPath, spelled_types
from hipport.parse.scan import integer_constants

DEVICE_QUALIFIERS = (b"__global__", b"__device__")
SCOPE_NODES = FUNCTION_NODES | {"preproc_arg"}  # whose text scope_text gives


class ContextReader:
    """The text lookups the matchers share, with their per-file caches."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        # Whether an offset is in a comment or literal by lexing; the classifier sets it per tree.
        self.not_code: Callable[[int], bool] | None = None
        self._macro_values: dict[str, tuple[int, str]] | None = None
        self._declared: dict[tuple[str, tuple[str, ...]], bool] = {}
        self._scope_texts: tuple[tuple[int, int], str] | None = None  # the last scope decoded
        self._file_text: str | None = None
        self._declarator_counts: dict[int, int] = {}

    def text(self, node) -> str:
        return " ".join(self.source[node.start_byte : node.end_byte].decode("utf-8", "replace").split())

    def scope_text(self, path: SyntaxPath, depth: int) -> str:
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

    def declarator_count(self, declaration) -> int:
        """How many declarators a declaration has; remembered, since `int a = f(), b = f(), ...`
        would otherwise list them again for every call."""
        count = self._declarator_counts.get(declaration.start_byte)
        if count is None:
            count = self._declarator_counts[declaration.start_byte] = len(
                declaration.children_by_field_name("declarator")
            )
        return count

    def mentions(self, text: str, operand: str, path: SyntaxPath | None, depth: int = 0) -> bool:
        """text names an identifier matching operand, or one assigned from such a name in scope."""
        names = IDENT.findall(text)
        if any(re.fullmatch(operand, n) for n in names):
            return True
        if path is None:
            return False
        scope = self.scope_text(path, depth)
        for n in set(names):
            for m in re.finditer(rf"\b{n}\s*=(?!=)([^;]*)", scope):
                if any(re.fullmatch(operand, source_name) for source_name in IDENT.findall(m.group(1))):
                    return True
        return False

    def declared_type(self, variable: str, types: tuple[str, ...], scope: str) -> str | None:
        spelled = spelled_types(types)
        m = re.search(rf"(?<![\w])({spelled})\s+(?:const\s+)?{variable}\s*[;=,)\[]", scope)
        return " ".join(m.group(1).split()) if m else None

    def declared_with(self, variable: str, receivers: tuple[str, ...]) -> bool:
        key = (variable, receivers)
        known = self._declared.get(key)
        if known is None:
            types = "|".join(map(re.escape, receivers))
            # a class template's type may carry its arguments: `cg::thread_block_tile<32> warp`
            arguments = r"(?:\s*<[^;{}()<>]*>)?"
            pattern = rf"\b(?:{types})\b{arguments}\s*(?:const\b\s*)?[&*\s]*(?:const\b\s*)?\b{re.escape(variable)}\b"
            known = self._declared[key] = re.search(pattern.encode(), self.source) is not None
        return known

    def macro_value(self, name: str) -> tuple[int | None, str]:
        """The value and spelling of an integer #define or constant of this file (scan.integer_constants)."""
        if self._macro_values is None:
            self._macro_values = {
                n: (value, spelled) for n, (value, spelled, _) in integer_constants(self.source).items()
            }
        return self._macro_values.get(name, (None, ""))

    def in_device_function(self, path: SyntaxPath, depth: int) -> bool:
        return in_device_function(path, depth, self.source)

    def in_device_only_function(self, path: SyntaxPath, depth: int) -> bool:
        return in_device_only_function(path, depth, self.source)


def in_device_function(path: SyntaxPath, depth: int, source: bytes) -> bool:
    """True when the node at depth sits in a __global__ or __device__ function (or lambda)."""
    head = _function_head(path, depth, source)
    return head is not None and any(q in head for q in DEVICE_QUALIFIERS)


def in_device_only_function(path: SyntaxPath, depth: int, source: bytes) -> bool:
    """In a function that runs on the device only: __global__, or __device__ without __host__
    (a __host__ __device__ function's host-only calls sit behind #ifdef __CUDA_ARCH__ tests)."""
    head = _function_head(path, depth, source)
    return head is not None and (b"__global__" in head or (b"__device__" in head and b"__host__" not in head))


def _function_head(path: SyntaxPath, depth: int, source: bytes) -> bytes | None:
    """The text before the declarator of the function (or lambda) the node at depth sits in."""
    found = path.nearest(FUNCTION_NODES, depth - 1)
    if found < 0:
        return None
    current = path.at(found)
    declarator = current.child_by_field_name("declarator")
    head_end = declarator.start_byte if declarator is not None else current.start_byte
    head = source[current.start_byte : head_end]
    if path.type_at(found) == "lambda_expression":
        body = current.child_by_field_name("body")
        head = source[current.start_byte : body.start_byte if body is not None else current.end_byte]
    return head
