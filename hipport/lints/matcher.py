"""A structural matcher as the registry (registry.py) holds it: its name in rule files, what triggers
it, its parameter schema and its code. Each matcher module defines one MATCHER."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# What starts a matcher:
NAME = "name"  # a scanner candidate name (run: ctx, rule, path, depth, start, end, name, site -> LintHit | None)
LITERAL = "literal"  # an integer literal or integer macro (run: ctx, rule, path, depth, value -> LintHit | None)
LAUNCH = "launch"  # a <<<>>> launch in device code: the engine makes the hit (no run)
FILE = "file"  # the whole file's syntax tree (run: source, lints, root -> list[SemanticFinding])

LOOP_POSITIONS = frozenset({"initializer", "condition"})


def _no_hit(*_args: Any) -> None:
    """The run of a matcher whose hits another step makes (LAUNCH)."""
    return None


@dataclass(frozen=True)
class Matcher:
    name: str  # what a rule's `match` says
    trigger: str  # NAME, LITERAL, LAUNCH or FILE
    required: frozenset[str]  # the parameters a rule of this kind must have
    optional: frozenset[str] = frozenset()
    run: Callable[..., Any] = _no_hit
    # LITERAL matchers: judge a literal inside a #define body, which the tree keeps as text
    # (ctx, rule, body node, start, end, value -> LintHit | None)
    in_define: Callable[..., Any] | None = None
    # Checks beyond the schema: entry -> (field, problem) or None
    check: Callable[[dict], tuple[str, str] | None] | None = None
    # A rule about a function or macro by name: silent where the file declares that name itself
    # (a compatibility shim that defines __shfl_sync, or its own __CUDA_ARCH__).
    own_name_silences: bool = False
    positions: frozenset[str] = LOOP_POSITIONS  # the values a `position` parameter may take
