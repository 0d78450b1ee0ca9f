"""What a matcher reads: the syntax around a candidate, through the interfaces the parser backend
implements (hipport.parse.treesitter.lints.context.ContextReader, NodePath), so that the matchers
know no parser. Nodes are the backend's syntax-tree nodes (type, start_byte, end_byte,
child_by_field_name, named_children)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from hipport.lints.rule import StructuralLint

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
FUNCTION_NODES = frozenset({"function_definition", "lambda_expression"})
# The roles of a name site (hipport.parse.sites.Role, a str enum) the matchers test.
USE, NAMESPACE = "use", "namespace"


class SyntaxPath(Protocol):
    """The path from the root to a candidate's node (hipport.parse.treesitter.tree_path.NodePath)."""

    def at(self, depth: int) -> Any: ...

    def type_at(self, depth: int) -> str: ...

    def nearest(self, types: frozenset[str], depth: int) -> int: ...


class Site(Protocol):
    """A name site as the matchers read it (hipport.parse.sites.NameSite)."""

    @property
    def start(self) -> int: ...

    @property
    def role(self) -> str: ...

    @property
    def arguments(self) -> Sequence[tuple[int, int]] | None: ...


class Context(Protocol):
    """One file's text lookups, each decoded or searched once and remembered."""

    source: bytes
    not_code: Callable[[int], bool] | None  # whether an offset is in a comment or literal, when the tree cannot say

    def text(self, node: Any) -> str:
        """The node's text, runs of white space made one space."""
        ...

    def scope_text(self, path: SyntaxPath, depth: int) -> str:
        """The text of the function (or macro body) around the node at depth, or of the whole file."""
        ...

    def declarator_count(self, declaration: Any) -> int: ...

    def mentions(self, text: str, operand: str, path: SyntaxPath | None, depth: int = 0) -> bool:
        """text names an identifier matching operand, or one assigned from such a name in scope."""
        ...

    def declared_type(self, variable: str, types: tuple[str, ...], scope: str) -> str | None: ...

    def declared_with(self, variable: str, receivers: tuple[str, ...]) -> bool: ...

    def macro_value(self, name: str) -> tuple[int | None, str]:
        """The value and spelling of an integer #define or constant of this file."""
        ...

    def in_device_function(self, path: SyntaxPath, depth: int) -> bool:
        """The node at depth sits in a __global__ or __device__ function (or lambda)."""
        ...

    def in_device_only_function(self, path: SyntaxPath, depth: int) -> bool:
        """In a __global__, or __device__ without __host__, function."""
        ...


def argument_span(rule: StructuralLint, site: Site | None) -> tuple[int, int] | None:
    """Where the argument the rule names is, in a call site that has it."""
    if site is None or site.role != USE or site.arguments is None or len(site.arguments) <= rule.argument:
        return None
    a, b = site.arguments[rule.argument]
    return a, b


def argument_text(ctx: Context, rule: StructuralLint, site: Site | None) -> str | None:
    """The text of the argument the rule names, in a call site that has it."""
    span = argument_span(rule, site)
    return ctx.source[span[0] : span[1]].decode("utf-8", "replace") if span is not None else None


def spelled_types(types: tuple[str, ...]) -> str:
    """A regex alternative of the type names, longest first, any white space between their words."""
    return "|".join(r"\s+".join(map(re.escape, t.split())) for t in sorted(types, key=len, reverse=True))
