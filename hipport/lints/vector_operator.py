"""'vector-operator': a free, non-template operator matching TEXT on one of the vector types NAMES,
which HIP's own member operators make ambiguous; with POSITION "binary", a binary operator taking
two of the type (by value or const reference), which HIP's non-template friends make ambiguous.

CUDA's float4 is a plain struct, so projects define operator+=(float4 &, float4)
(helper_math.h style). HIP's float4 is HIP_vector_type<float, 4>, whose compound
assignments and ++/-- are non-template members: the project's free operator is an
equally good match, and every use of it is ambiguous (the definition alone compiles).

When the project's operator does what HIP's does, component by component, it is
kept for NVIDIA only (the rule's fix is the #if condition); otherwise the finding
is an error for the user to settle. The rules are `match = "vector-operator"`
lints (rules/lint-semantics.toml): NAMES are the vector types, TEXT the operators.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hipport.diagnostics import Applicability
from hipport.lints.matcher import FILE, Matcher
from hipport.lints.rule import StructuralLint

COMPONENTS = ("x", "y", "z", "w")
_CONTAINERS = frozenset(
    {
        "namespace_definition",
        "linkage_specification",
        "declaration_list",
        "preproc_if",
        "preproc_ifdef",
        "preproc_else",
        "preproc_elif",
        "preproc_elifdef",
    }
)
_TOKEN = re.compile(rb"[A-Za-z_]\w*|\d[\w.']*|<<=|>>=|\+\+|--|[-+*/%^|&]=|\S")


@dataclass(frozen=True)
class SemanticFinding:
    """A semantic lint's finding, with the guard or prelude edits that come with its fix."""

    code: str
    start: int
    end: int
    name: str
    message: str
    severity: str
    library: str | None
    fix: str | None
    applicability: Applicability | None
    edits: tuple[tuple[int, int, bytes], ...] = ()


def findings(source: bytes, lints: Sequence[StructuralLint], root: Callable[[], Any]) -> list[SemanticFinding]:
    """The file's findings for its vector-operator lints; root() gives the file's syntax tree, which is
    asked for only when a definition may match."""
    if not lints or b"operator" not in source:
        return []
    wanted = [lint for lint in lints if _prefilter(lint).search(source)]
    if not wanted:
        return []
    line_starts = line_starts_of(source)
    found: list[SemanticFinding] = []
    kinds = ("function_definition", "declaration")
    for definition, conditions in scoped_items(root(), (), source, kinds, _CONTAINERS):
        for lint in wanted:
            if lint.fix is not None and "".join(lint.fix.split()) in conditions:
                continue  # already kept for other platforms only: ported code
            finding = _judge(definition, lint, source, line_starts)
            if finding is not None:
                found.append(finding)
                break
    return found


_PREFILTERS: dict[int, re.Pattern[bytes]] = {}


def _prefilter(lint: StructuralLint) -> re.Pattern[bytes]:
    key = id(lint)
    pattern = _PREFILTERS.get(key)
    if pattern is None:
        types = "|".join(map(re.escape, lint.names))
        first = r"(?:const\s+)?(?:{types})\b" if lint.position == "binary" else r"(?:{types})\s*&"
        pattern = _PREFILTERS[key] = re.compile(
            (rf"operator\s*(?:{lint.text})\s*\(\s*" + first.format(types=types)).encode()
        )
    return pattern


def scoped_items(node, conditions: tuple[str, ...], source: bytes, kinds: tuple[str, ...], containers: frozenset[str]):
    """(item of one of kinds, the #if conditions around it without spaces), looking into containers
    only (namespaces, extern "C", #if branches): never into templates, classes or functions."""
    for child in node.named_children:
        if child.type in kinds:
            yield child, conditions
        elif child.type in containers:
            condition = child.child_by_field_name("condition") if child.type == "preproc_if" else None
            inner = conditions + ("".join(_text(condition, source).split()),) if condition is not None else conditions
            yield from scoped_items(child, inner, source, kinds, containers)


def function_declarator(definition):
    """The function_declarator of a definition, through the pointer and reference declarators of its
    return type; None for anything else."""
    declarator = definition.child_by_field_name("declarator")
    while declarator is not None and declarator.type in ("reference_declarator", "pointer_declarator"):
        declarator = next((c for c in declarator.named_children if c.type.endswith("declarator")), None)
    return declarator if declarator is not None and declarator.type == "function_declarator" else None


def named_declarator(definition, kind: str):
    """(function_declarator, its name node) of a definition whose name is a node of kind, else None."""
    declarator = function_declarator(definition)
    name_node = declarator.child_by_field_name("declarator") if declarator is not None else None
    return (declarator, name_node) if name_node is not None and name_node.type == kind else None


def _judge(node, lint: StructuralLint, source: bytes, line_starts: list[int]) -> SemanticFinding | None:
    named = named_declarator(node, "operator_name")
    if named is None:
        return None
    declarator, name_node = named
    operator = "".join(_text(name_node, source).split())[len("operator") :]
    if lint.text is None or not re.fullmatch(lint.text, operator):
        return None
    parameters = [
        p for p in declarator.child_by_field_name("parameters").named_children if p.type == "parameter_declaration"
    ]
    if not parameters:
        return None
    vector = _parameter_type(parameters[0], source)
    if lint.position == "binary":
        return _binary(node, lint, source, operator, parameters, name_node) if vector in lint.names else None
    if vector not in lint.names or not _is_mutable_reference(parameters[0], source):
        return None
    increment = operator in ("++", "--")
    if increment:
        if len(parameters) > 2 or (len(parameters) == 2 and _parameter_type(parameters[1], source) != "int"):
            return None
    elif (
        len(parameters) != 2
        or _parameter_type(parameters[1], source) != vector
        or _is_mutable_reference(parameters[1], source)
    ):
        return None  # a scalar right operand: HIP's member for it is a template, which loses
    signature = f"operator{operator}({', '.join(' '.join(_text(p, source).split()) for p in parameters)})"
    body = node.child_by_field_name("body") if node.type == "function_definition" else None
    edits = (
        _guard(node, source, line_starts, lint.fix)
        if body is not None
        and lint.fix_safe
        and lint.fix
        and _componentwise(body, source, parameters, operator, vector)
        else None
    )
    message = lint.message.replace("{name}", vector)
    if edits is not None:
        return _finding(lint, name_node, signature, message, edits)
    return _finding(
        lint,
        name_node,
        signature,
        f"{message} Remove or rename '{signature}': its body is not the component-by-component form that "
        "HIP's operator is known to match.",
        None,
    )


def _finding(lint: StructuralLint, name_node, signature: str, message: str, edits) -> SemanticFinding:
    """With edits, the operator is kept for NVIDIA only (a safe fix, info); without, it needs a person."""
    if edits is not None:
        return SemanticFinding(
            lint.code,
            name_node.start_byte,
            name_node.end_byte,
            signature,
            f"{message} This one works component by component like HIP's, so it is kept for NVIDIA only "
            f"(#if {lint.fix}).",
            "info",
            lint.library,
            lint.fix,
            Applicability.SAFE,
            tuple(edits),
        )
    return SemanticFinding(
        lint.code,
        name_node.start_byte,
        name_node.end_byte,
        signature,
        message,
        lint.severity or "error",
        lint.library,
        None,
        None,
    )


def _binary(node, lint: StructuralLint, source: bytes, operator: str, parameters, name_node) -> SemanticFinding | None:
    """A free binary operator on two of the same vector type, each by value or const reference:
    as good a match as HIP's non-template friend, so every use is ambiguous."""
    vector = _parameter_type(parameters[0], source)
    if len(parameters) != 2 or _parameter_type(parameters[1], source) != vector:
        return None  # a scalar operand: HIP's operator for it is a template, which loses
    if any(_is_mutable_reference(p, source) or _is_pointer(p) for p in parameters):
        return None
    signature = f"operator{operator}({', '.join(' '.join(_text(p, source).split()) for p in parameters)})"
    message = lint.message.replace("{name}", vector)
    body = node.child_by_field_name("body") if node.type == "function_definition" else None
    names = [_declared_name(p, source) for p in parameters]
    if (
        body is not None
        and lint.fix_safe
        and lint.fix
        and all(names)
        and _returns_componentwise(body, source, names, operator, vector)
    ):
        edits = _guard(node, source, line_starts_of(source), lint.fix)
        if edits is not None:
            return _finding(lint, name_node, signature, message, edits)
    return _finding(lint, name_node, signature, message, None)


def line_starts_of(source: bytes) -> list[int]:
    return [0] + [m.end() for m in re.finditer(rb"\n", source)]


def _returns_componentwise(body, source: bytes, names: list[str], operator: str, vector: str) -> bool:
    """The body is exactly `return make_float2(a.x OP b.x, a.y OP b.y);` (or float2(...), float2{...},
    {...}) over the type's components."""
    tokens = [
        t.decode() for t in _TOKEN.findall(re.sub(rb"//[^\n]*|/\*.*?\*/", b" ", _bytes(body, source), flags=re.S))
    ]
    if tokens[:2] != ["{", "return"] or tokens[-2:] != [";", "}"]:
        return False
    expression = tokens[2:-2]
    if expression[:1] in (["make_" + vector], [vector]):
        expression = expression[1:]
    if len(expression) < 2 or (expression[0], expression[-1]) not in (("(", ")"), ("{", "}")):
        return False
    a, b = names
    components = [[a, ".", c, operator, b, ".", c] for c in COMPONENTS[: int(vector[-1])]]
    return expression[1:-1] == [t for i, part in enumerate(components) for t in ([","] if i else []) + part]


def _is_pointer(parameter) -> bool:
    declarator = parameter.child_by_field_name("declarator")
    return declarator is not None and declarator.type in ("pointer_declarator", "abstract_pointer_declarator")


def _parameter_type(parameter, source: bytes) -> str:
    type_node = parameter.child_by_field_name("type")
    return _text(type_node, source) if type_node is not None else ""


def _is_mutable_reference(parameter, source: bytes) -> bool:
    declarator = parameter.child_by_field_name("declarator")
    qualifiers = [c for c in parameter.named_children if c.type == "type_qualifier"]
    return (
        declarator is not None
        and declarator.type == "reference_declarator"
        and not qualifiers
        and not _text(declarator, source).startswith("&&")
    )


def _componentwise(body, source: bytes, parameters, operator: str, vector: str) -> bool:
    """The body is exactly `a.x OP= b.x; a.y OP= b.y; ...` over the type's components (or ++/-- on each)."""
    names = [_declared_name(p, source) for p in parameters]
    if not names[0] or (operator not in ("++", "--") and not names[1]):
        return False
    count = int(vector[-1])
    tokens = [
        t.decode() for t in _TOKEN.findall(re.sub(rb"//[^\n]*|/\*.*?\*/", b" ", _bytes(body, source), flags=re.S))
    ]
    if tokens[:1] != ["{"] or tokens[-1:] != ["}"]:
        return False
    tokens = tokens[1:-1]
    if tokens[-3:] == ["return", names[0], ";"]:
        tokens = tokens[:-3]
    a = names[0]
    if operator in ("++", "--"):
        prefix = [t for c in COMPONENTS[:count] for t in (operator, a, ".", c, ";")]
        postfix = [t for c in COMPONENTS[:count] for t in (a, ".", c, operator, ";")]
        return tokens in (prefix, postfix)
    b = names[1]
    expected = [t for c in COMPONENTS[:count] for t in (a, ".", c, operator, b, ".", c, ";")]
    return tokens == expected


def _declared_name(parameter, source: bytes) -> str:
    declarator = parameter.child_by_field_name("declarator")
    while declarator is not None and declarator.type != "identifier":
        declarator = next((c for c in declarator.named_children), None)
    return _text(declarator, source) if declarator is not None else ""


def _guard(node, source: bytes, line_starts: list[int], condition: str) -> list | None:
    """Edits putting node's lines inside #if condition ... #endif, or None when it shares its lines."""
    start, end = node.start_byte, node.end_byte
    line_start = line_starts[bisect.bisect_right(line_starts, start) - 1]
    if source[line_start:start].strip():
        return None
    line_end = source.find(b"\n", end)
    line_end = len(source) if line_end < 0 else line_end
    if re.sub(rb"//[^\n]*|/\*.*?\*/", b"", source[end:line_end]).strip():
        return None
    newline = b"\n"
    if source[line_end - 1 : line_end] == b"\r":
        line_end -= 1
        newline = b"\r\n"
    return [(line_start, line_start, b"#if " + condition.encode() + newline), (line_end, line_end, newline + b"#endif")]


def _text(node, source: bytes) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _bytes(node, source: bytes) -> bytes:
    return source[node.start_byte : node.end_byte]


MATCHER = Matcher(
    "vector-operator",
    FILE,
    frozenset({"names", "text"}),
    frozenset({"position"}),
    run=findings,
    positions=frozenset({"binary"}),
)
