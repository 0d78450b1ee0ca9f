"""The structural matchers by the name a rule's `match` gives: one module per matcher, named after it
(call-argument: call_argument.py), each with its parameter schema beside its code (its MATCHER). The
rule loader (hipport.ruleset.lintrules) accepts a `[[lint]]` only with a name registered here and the
parameters its schema requires; the parser backend runs the NAME and LITERAL matchers at the
scanner's candidates, the engine the FILE ones on the parsed file's syntax tree."""

from __future__ import annotations

from importlib import import_module

from hipport.lints.matcher import LITERAL, NAME, Matcher

# The registered matchers, by name.
NAMES = (
    "argument-type",
    "asm",
    "binary-operand",
    "call-argument",
    "call-on-call",
    "call-result-type",
    "coordinate-member",
    "coordinate-struct",
    "device-launch",
    "handle-arithmetic",
    "loop-bound",
    "macro-named-definition",
    "macro-test",
    "member",
    "name",
    "own-overload",
    "shared-array",
    "template-type",
    "vector-operator",
)
MATCHERS: dict[str, Matcher] = {
    name: import_module(f"{__package__}.{name.replace('-', '_')}").MATCHER for name in NAMES
}
# Run by the engine on the file's syntax tree, in this order (their findings and guards are added in it).
FILE_MATCHERS = (MATCHERS["vector-operator"], MATCHERS["own-overload"], MATCHERS["macro-named-definition"])
NAME_TRIGGERED = frozenset(n for n, m in MATCHERS.items() if m.trigger == NAME)
LITERAL_TRIGGERED = frozenset(n for n, m in MATCHERS.items() if m.trigger == LITERAL)
OWN_NAME_SILENCES = frozenset(n for n, m in MATCHERS.items() if m.own_name_silences)
