"""Overloads that collapse: two CUDA types that become one HIP type.

cudaError_t and CUresult are distinct types in CUDA and one type, hipError_t, in
HIP, so a project that overloads a function on both (an error-name helper) has
two definitions of the same function after the port. This check finds function
definitions and declarations in one file whose parameter lists differ as written
and become identical once the rule set's type renames are applied.

What happens then:
- the bodies are the same once ported: whichever the preprocessor meets first is
  kept and the other skipped, with a guard macro around each (a safe edit: the
  two are provably interchangeable);
- they are in different branches of one #if: nothing collides;
- otherwise: an error finding on the later one, naming the line of each
  definition, when both are always compiled; a warning naming the conditions
  when each sits behind its own #if, since the clash needs both of them.
Declarations alone may repeat, unless their return types differ.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from dataclasses import dataclass
from typing import Any

from hipport.diagnostics import Applicability
from hipport.parse.sites import ParsedFile, Role
from hipport.ruleset.model import RuleSet

CONDITIONALS = frozenset({"preproc_if", "preproc_ifdef", "preproc_elif", "preproc_elifdef"})
ALTERNATIVES = frozenset({"preproc_else", "preproc_elif", "preproc_elifdef"})
SCOPES = frozenset({"namespace_definition", "class_specifier", "struct_specifier", "union_specifier"})
DECLARATORS = frozenset(
    {
        "pointer_declarator",
        "reference_declarator",
        "function_declarator",
        "parenthesized_declarator",
        "attributed_declarator",
    }
)
_TOKEN = re.compile(rb"[A-Za-z_]\w*|\d[\w.']*|\S")
_COMMENT = re.compile(rb"//[^\n]*|/\*.*?\*/", re.S)


@dataclass(frozen=True)
class CollapseFinding:
    code: str
    start: int
    end: int
    name: str
    message: str
    severity: str | None = None
    fix: str | None = None
    applicability: Applicability | None = None


@dataclass
class _Function:
    node: Any  # the tree-sitter node: a template_declaration, or the definition itself
    name: str
    written: tuple[str, ...]  # parameter types as written
    ported: tuple[str, ...]  # and after the type renames
    returns: str  # ported return type and qualifiers
    body: bytes | None  # ported body tokens; None for a declaration
    conditions: tuple  # ((conditional node id, in its alternative), ...) from the outside in
    tests: tuple[str, ...]  # the same conditions as text, for messages
    line_start: int
    line: int


def collapsing_types(rules: RuleSet, roc: bool) -> dict[str, str]:
    """CUDA type name -> HIP type name, for the HIP types more than one CUDA type becomes."""
    return rules.collapsing_types[roc]


def collapsed_overloads(source: bytes, parsed: ParsedFile, rules: RuleSet, roc: bool) -> tuple[list, list]:
    """(edits as (start, end, text), findings) for the overload pairs the type renames merge."""
    collapsing = collapsing_types(rules, roc)
    targets: dict[str, set[str]] = {}
    for site in parsed.names:
        target = collapsing.get(site.name)
        if target is not None and site.role is not Role.DECLARATION:
            targets.setdefault(target, set()).add(site.name)
    if not any(len(names) > 1 for names in targets.values()):
        return [], []  # the usual case: no two collapsing types in this file, no second parse
    renames = _renames(rules, roc)
    functions = _functions(source, renames)
    groups: dict[tuple, list[_Function]] = {}
    for function in functions:
        groups.setdefault((function.name, function.ported), []).append(function)
    edits: list[tuple[int, int, bytes]] = []
    findings: list[CollapseFinding] = []
    for (name, ported), members in groups.items():
        if len({m.written for m in members}) < 2:
            continue  # the project's own repeated declaration, not something the port did
        _judge(source, name, ported, members, edits, findings)
    return edits, findings


def _judge(
    source: bytes, name: str, ported: tuple[str, ...], members: list[_Function], edits: list, findings: list
) -> None:
    signature = f"{name}({', '.join(ported)})"
    first = members[0]
    for other in members[1:]:
        if other.written == first.written or _exclusive(first, other):
            continue
        spelled = (
            f"'{name}({', '.join(first.written)})' (line {first.line}) and "
            f"'{name}({', '.join(other.written)})' (line {other.line})"
        )
        if other.returns != first.returns:
            findings.append(
                CollapseFinding(
                    "HP431",
                    other.node.start_byte,
                    other.node.end_byte,
                    name,
                    f"{spelled} both become '{signature}' in HIP with different return types, which C++ "
                    "rejects; rename one of them",
                )
            )
            continue
        if first.body is None or other.body is None:
            continue  # a declaration may repeat
        if first.body == other.body:
            continue  # guarded below, once for the whole group
        both = not _conditions_apart(first, other)
        findings.append(
            CollapseFinding(
                "HP431",
                other.node.start_byte,
                other.node.end_byte,
                name,
                f"{spelled} both become '{signature}' in HIP, so the second is a redefinition"
                + (
                    ". Their bodies differ: keep one, or rename one and its callers"
                    if both
                    else f" wherever both are compiled ({_condition_text(source, first)} and "
                    f"{_condition_text(source, other)}). Their bodies differ: keep one, or rename one"
                ),
                severity=None if both else "info",
            )
        )
    definitions = [m for m in members if m.body is not None]
    if len(definitions) > 1 and len({m.body for m in definitions}) == 1:
        macro = "HIPPORT_ONE_" + re.sub(r"\W", "_", name) + "_" + hashlib.sha1(signature.encode()).hexdigest()[:8]
        planned = [_guard(source, m, macro) for m in definitions]
        if all(p is not None for p in planned):
            for plan in planned:
                edits.extend(plan or ())
            lines = ", ".join(str(m.line) for m in definitions)
            for m in definitions[1:]:
                findings.append(
                    CollapseFinding(
                        "HP432",
                        m.node.start_byte,
                        m.node.end_byte,
                        name,
                        f"the definitions of '{name}' on lines {lines} all become '{signature}' in HIP and "
                        f"do the same once ported: each is guarded by {macro}, so the first one compiled is kept",
                        fix=macro,
                        applicability=Applicability.SAFE,
                    )
                )
        else:
            findings.append(
                CollapseFinding(
                    "HP431",
                    definitions[1].node.start_byte,
                    definitions[1].node.end_byte,
                    name,
                    f"the definitions of '{name}' on lines {', '.join(str(m.line) for m in definitions)} all "
                    f"become '{signature}' in HIP (they do the same once ported); keep one of them",
                )
            )


def _guard(source: bytes, function: _Function, macro: str) -> list | None:
    """Edits wrapping function in #ifndef macro ... #endif, or None when it does not own its lines."""
    start, end = function.node.start_byte, function.node.end_byte
    if source[function.line_start : start].strip():
        return None
    line_end = source.find(b"\n", end)
    line_end = len(source) if line_end < 0 else line_end
    rest = _COMMENT.sub(b"", source[end:line_end])
    if rest.strip():
        return None
    if line_end > 0 and source[line_end - 1 : line_end] == b"\r":
        line_end -= 1
    newline = b"\r\n" if source[line_end : line_end + 1] == b"\r" else b"\n"
    opening = b"#ifndef " + macro.encode() + newline + b"#define " + macro.encode() + newline
    return [(function.line_start, function.line_start, opening), (line_end, line_end, newline + b"#endif")]


def _exclusive(a: _Function, b: _Function) -> bool:
    """a and b sit in different branches of one #if, so never both compiled."""
    inside_a = dict(a.conditions)
    return any(node in inside_a and inside_a[node] != alternative for node, alternative in b.conditions)


def _conditions_apart(a: _Function, b: _Function) -> bool:
    return set(a.conditions) != set(b.conditions)


def _condition_text(source: bytes, function: _Function) -> str:
    return " and ".join(function.tests) or f"line {function.line}"


def _renames(rules: RuleSet, roc: bool) -> dict[bytes, bytes]:
    return _derived(rules, roc, "renames", _all_renames)


# A RuleSet is not hashable; its tables are derived once per rule set object and kept with it.
_DERIVED: dict[tuple[int, bool, str], tuple[RuleSet, dict]] = {}


def _derived(rules: RuleSet, roc: bool, what: str, build) -> dict:
    key = (id(rules), roc, what)
    known = _DERIVED.get(key)
    if known is None or known[0] is not rules:
        if len(_DERIVED) > 16:
            _DERIVED.clear()
        known = _DERIVED[key] = (rules, build(rules, roc))
    return known[1]


def _all_renames(rules: RuleSet, roc: bool) -> dict:
    out = {}
    for rule in rules.names.values():
        target = rule.roc if roc and rule.roc else rule.hip
        if target and target != rule.cuda:
            out[rule.cuda.encode()] = target.encode()
    return out


def _functions(source: bytes, renames: dict[bytes, bytes]) -> list[_Function]:
    from hipport.parse.treesitter import _parser

    tree = _parser().parse(source)
    found: list[_Function] = []
    line_starts = [0] + [m.end() for m in re.finditer(rb"\n", source)]
    _walk(tree.root_node, source, renames, (), (), found, line_starts)
    return found


def _walk(node, source: bytes, renames, scope: tuple, conditions: tuple, found: list, line_starts) -> None:
    for child in node.named_children:
        kind = child.type
        if kind in ("function_definition", "declaration", "field_declaration", "template_declaration"):
            function = _function(child, source, renames, scope, conditions, line_starts)
            if function is not None:
                found.append(function)
                continue
        if kind in SCOPES or kind == "linkage_specification":
            name = child.child_by_field_name("name")
            inner = (
                scope + ((name.text.decode("utf-8", "replace") if name is not None else "{}"),)
                if kind in SCOPES
                else scope
            )
            _walk(child, source, renames, inner, conditions, found, line_starts)
        elif kind in ALTERNATIVES:
            # the alternative of the conditional we are in: same node id, other branch
            parent = conditions[-1] if conditions else None
            inner = conditions[:-1] + ((parent[0], True, f"not ({parent[2]})"),) if parent else conditions
            if kind in CONDITIONALS:
                inner = inner + ((child.id, False, _test(child, source)),)
            _walk(child, source, renames, scope, inner, found, line_starts)
        elif kind in CONDITIONALS:
            _walk(
                child,
                source,
                renames,
                scope,
                conditions + ((child.id, False, _test(child, source)),),
                found,
                line_starts,
            )
        elif kind in ("declaration_list", "field_declaration_list", "translation_unit"):
            _walk(child, source, renames, scope, conditions, found, line_starts)


def _test(node, source: bytes) -> str:
    condition = node.child_by_field_name("condition") or node.child_by_field_name("name")
    keyword = (
        source[node.start_byte : node.start_byte + 8].split()[0].decode("ascii", "replace")
        if node.end_byte > node.start_byte
        else "#if"
    )
    text = source[condition.start_byte : condition.end_byte].decode("utf-8", "replace") if condition else ""
    return f"{keyword} {' '.join(text.split())}"


def _function(node, source: bytes, renames, scope, conditions, line_starts) -> _Function | None:
    outer = node
    template = b""
    if node.type == "template_declaration":
        parameters = node.child_by_field_name("parameters")
        template = source[parameters.start_byte : parameters.end_byte] if parameters is not None else b""
        inner = [c for c in node.named_children if c.type in ("function_definition", "declaration")]
        if not inner:
            return None
        node = inner[0]
    declarator = node.child_by_field_name("declarator")
    wrappers = b""
    while declarator is not None and declarator.type in DECLARATORS and declarator.type != "function_declarator":
        wrappers += source[declarator.start_byte : declarator.start_byte + 1]
        declarator = declarator.child_by_field_name("declarator") or (
            declarator.named_children[-1] if declarator.named_children else None
        )
    if declarator is None or declarator.type != "function_declarator":
        return None
    name_node = declarator.child_by_field_name("declarator")
    parameters = declarator.child_by_field_name("parameters")
    if name_node is None or parameters is None:
        return None
    written, ported = [], []
    placeholders: dict[bytes, bytes] = {}  # parameter names, so that bodies compare whatever they are called
    for parameter in parameters.named_children:
        if parameter.type not in ("parameter_declaration", "optional_parameter_declaration"):
            if parameter.type == "variadic_parameter_declaration" or parameter.type == "...":
                written.append("...")
                ported.append("...")
            continue
        tokens, parameter_name = _parameter_tokens(parameter, source)
        if parameter_name:
            placeholders[parameter_name] = b"$%d" % len(placeholders)
        written.append(" ".join(t.decode("utf-8", "replace") for t in tokens))
        ported.append(" ".join(renames.get(t, t).decode("utf-8", "replace") for t in tokens))
    type_node = node.child_by_field_name("type")
    head = source[node.start_byte : type_node.end_byte] if type_node is not None else b""
    after = source[parameters.end_byte : declarator.end_byte]  # const, noexcept, -> trailing type
    returns = _ported_tokens(template + b" " + head + wrappers + b" " + after, renames)
    body_node = node.child_by_field_name("body") if node.type == "function_definition" else None
    body = (
        _ported_tokens(source[body_node.start_byte : body_node.end_byte], {**renames, **placeholders})
        if body_node
        else None
    )
    line = bisect.bisect_right(line_starts, outer.start_byte)
    function = _Function(
        node=outer,
        name="::".join(scope + (" ".join(name_node.text.decode("utf-8", "replace").split()),)),
        written=tuple(written),
        ported=tuple(ported),
        returns=returns.decode("utf-8", "replace"),
        body=body,
        conditions=tuple((node_id, alternative) for node_id, alternative, _ in conditions),
        tests=tuple(test for _, _, test in conditions),
        line_start=line_starts[line - 1],
        line=line,
    )
    return function


def _parameter_tokens(parameter, source: bytes) -> tuple[list[bytes], bytes]:
    """The parameter's type tokens (its text without its name and default value), and its name."""
    end = parameter.end_byte
    default = parameter.child_by_field_name("default_value")
    if default is not None:
        end = default.start_byte
    declarator = parameter.child_by_field_name("declarator")
    name_span = None
    while declarator is not None:
        if declarator.type in ("identifier", "field_identifier"):
            name_span = (declarator.start_byte, declarator.end_byte)
            break
        declarator = declarator.child_by_field_name("declarator") or next(
            (c for c in declarator.named_children if c.type not in ("type_qualifier",)), None
        )
    text = source[parameter.start_byte : end]
    name = b""
    if name_span is not None:
        a, b = name_span[0] - parameter.start_byte, name_span[1] - parameter.start_byte
        name = text[a:b]
        text = text[:a] + text[b:]
    return _TOKEN.findall(_COMMENT.sub(b" ", text).rstrip(b"= \t\r\n")), name


def _ported_tokens(text: bytes, renames: dict[bytes, bytes]) -> bytes:
    return b" ".join(renames.get(t, t) for t in _TOKEN.findall(_COMMENT.sub(b" ", text)))
