"""The structural matchers by the name a rule's `match` gives: one module per matcher, each with its
parameter schema beside its code (its MATCHER). The rule loader (hipport.ruleset.lintrules) accepts
a `[[lint]]` only with a name registered here and the parameters its schema requires; the parser
backend runs the NAME and LITERAL matchers at the scanner's candidates, the engine the FILE ones."""

from __future__ import annotations

from hipport.lints import (
    argument_type,
    asm,
    binary_operand,
    call_argument,
    call_on_call,
    call_result_type,
    coordinate_member,
    coordinate_struct,
    device_launch,
    handle_arithmetic,
    loop_bound,
    macro_test,
    member,
    name,
    own_overload,
    shared_array,
    template_type,
    vector_operator,
)
from hipport.lints.matcher import LITERAL, NAME, Matcher

_MODULES = (
    argument_type,
    asm,
    binary_operand,
    call_argument,
    call_on_call,
    call_result_type,
    coordinate_member,
    coordinate_struct,
    device_launch,
    handle_arithmetic,
    loop_bound,
    macro_test,
    member,
    name,
    own_overload,
    shared_array,
    template_type,
    vector_operator,
)
MATCHERS: dict[str, Matcher] = {module.MATCHER.name: module.MATCHER for module in _MODULES}
# Run by the engine on the file's syntax tree, in this order (their findings and guards are added in it).
FILE_MATCHERS = (vector_operator.MATCHER, own_overload.MATCHER)
NAME_TRIGGERED = frozenset(n for n, m in MATCHERS.items() if m.trigger == NAME)
LITERAL_TRIGGERED = frozenset(n for n, m in MATCHERS.items() if m.trigger == LITERAL)
OWN_NAME_SILENCES = frozenset(n for n, m in MATCHERS.items() if m.own_name_silences)
