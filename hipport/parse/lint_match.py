"""Structural lint matchers, run by the tree-sitter backend at scanner candidates.

Each matcher starts from the one node the scanner pointed at (an identifier or
an integer literal) and looks only at its neighbourhood: the enclosing call,
binary expression, loop or declaration, plus, for one-step lookups such as "this
variable was assigned a ballot", the text of the enclosing function. None of
them walks the tree. Inside #define bodies, which tree-sitter keeps as text,
the matchers that can judge lexically do so and the others stay silent.
"""
from __future__ import annotations

import re
from collections.abc import Callable

from hipport.parse.sites import LintHit, NameSite, Role
from hipport.rules.lintrules import LintIndex, StructuralLint, int_value

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Nodes that may stand between a call and the declaration or assignment it feeds.
CALL_WRAPPERS = {"parenthesized_expression", "cast_expression"}
COMMUTATIVE = {"&", "|", "^", "*", "+"}
DEVICE_QUALIFIERS = (b"__global__", b"__device__")
FUNCTION_NODES = {"function_definition", "lambda_expression"}
_ASM_TEXT = re.compile(rb'\s*(?:(?:volatile|__volatile__|inline|goto)\s*)*\(\s*((?:"(?:\\.|[^"\\\n])*"\s*)+)')
_DEFINE_VALUE = re.compile(
    rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+\(?[ \t]*([0-9][0-9A-Fa-fxXuUlL']*)[ \t]*\)?[ \t]*$", re.M)


def in_device_function(node, source: bytes) -> bool:
    """True when node sits in a __global__ or __device__ function (or lambda)."""
    current = node.parent
    while current is not None:
        if current.type in FUNCTION_NODES:
            declarator = current.child_by_field_name("declarator")
            head_end = declarator.start_byte if declarator is not None else current.start_byte
            head = source[current.start_byte:head_end]
            if current.type == "lambda_expression":
                body = current.child_by_field_name("body")
                head = source[current.start_byte:body.start_byte if body is not None else current.end_byte]
            return any(q in head for q in DEVICE_QUALIFIERS)
        current = current.parent
    return False


class LintMatcher:
    def __init__(self, source: bytes, root, index: LintIndex, not_code: Callable[[int], bool]) -> None:
        self.source = source
        self.root = root
        self.index = index
        self.not_code = not_code
        self._macro_values: dict[str, tuple[int, str]] | None = None
        self._declared: dict[tuple[str, tuple[str, ...]], bool] = {}

    # -- entry points ------------------------------------------------------------

    def at_name(self, node, start: int, end: int, name: str, site: NameSite | None, rule_ids) -> list[LintHit]:
        """Hits of the lints rule_ids at a candidate name; node, the tree node there, is known to be code.

        Each match kind is the method of the same name (call-argument: _call_argument).
        """
        hits = []
        for rule_id in rule_ids:
            rule = self.index.rules[rule_id]
            hit = getattr(self, "_" + rule.match.replace("-", "_"))(rule, node, start, end, name, site)
            if hit is not None:
                hit.trigger = name
                hits.append(hit)
        return hits

    def at_literal(self, start: int, end: int, value: int) -> list[LintHit]:
        rule_ids = self.index.by_literal.get(value, ())
        if not rule_ids or self.not_code(start):
            return []
        node = self.root.descendant_for_byte_range(start, end)
        if node is None:
            return []
        if node.type == "preproc_arg":
            return [hit for rule_id in rule_ids
                    if (hit := self._lexical_binary(self.index.rules[rule_id], node, start, end, value)) is not None]
        if node.type != "number_literal" or node.start_byte != start or node.end_byte != end:
            return []
        hits = []
        for rule_id in rule_ids:
            rule = self.index.rules[rule_id]
            hit = getattr(self, "_" + rule.match.replace("-", "_"))(rule, node, value)
            if hit is not None:
                hits.append(hit)
        return hits

    # -- name-triggered matchers ---------------------------------------------------

    def _call_argument(self, rule: StructuralLint, node, start, end, name, site) -> LintHit | None:
        if site is None or site.role is not Role.USE or site.arguments is None or len(site.arguments) <= rule.argument:
            return None
        a, b = site.arguments[rule.argument]
        text = self.source[a:b].decode("utf-8", "replace").strip()
        value, detail, direct = int_value(text) if text[:1].isdigit() else None, "", True
        if value is None and IDENT.fullmatch(text):
            value, spelled = self._macro_value(text)
            detail, direct = f"({text} is defined as {spelled})", False
        if value not in rule.literals:
            return None
        return LintHit(rule.index, a, b, text, call=site.start, argument=rule.argument, fixable=direct,
                       detail=detail)

    def _call_result_type(self, rule: StructuralLint, node, start, end, name, site) -> LintHit | None:
        call = node.parent
        if call is None or call.type != "call_expression" or call.child_by_field_name("function") != node:
            return None
        expression, consumer = call, call.parent
        while consumer is not None and consumer.type in CALL_WRAPPERS:
            expression, consumer = consumer, consumer.parent
        if consumer is None:
            return None
        if consumer.type == "init_declarator" and consumer.child_by_field_name("value") == expression:
            declaration = consumer.parent
            type_node = declaration.child_by_field_name("type") if declaration is not None else None
            if type_node is None or self._text(type_node) not in rule.types:
                return None
            single = len(declaration.children_by_field_name("declarator")) == 1
            return LintHit(rule.index, type_node.start_byte, type_node.end_byte, self._text(type_node),
                           fixable=single)
        if consumer.type == "assignment_expression" and consumer.child_by_field_name("right") == expression:
            left = consumer.child_by_field_name("left")
            operator = consumer.child_by_field_name("operator")
            if left is None or left.type != "identifier" or operator is None or self._text(operator) != "=":
                return None
            declared = self._declared_type(self._text(left), rule.types, self._scope_text(node))
            if declared is None:
                return None
            return LintHit(rule.index, left.start_byte, left.end_byte, declared, fixable=False,
                           detail=f"('{self._text(left)}' is declared '{declared}')")
        return None

    def _call_on_call(self, rule: StructuralLint, node, start, end, name, site) -> LintHit | None:
        if site is None or site.role is not Role.USE or site.arguments is None or len(site.arguments) <= rule.argument:
            return None
        a, b = site.arguments[rule.argument]
        text = self.source[a:b].decode("utf-8", "replace")
        if re.match(rf"[\s(]*(?:{rule.calls})\s*\(", text):
            return LintHit(rule.index, start, end, name)
        variable = text.strip()
        if IDENT.fullmatch(variable):
            scope = self._scope_text(node)
            if re.search(rf"\b{variable}\s*=(?!=)\s*[\s(]*(?:{rule.calls})\s*\(", scope):
                return LintHit(rule.index, start, end, name, fixable=False,
                               detail=f"('{variable}' holds a ballot)")
        return None

    def _asm(self, rule: StructuralLint, node, start, end, name, site) -> LintHit | None:
        text = None
        parent = node.parent
        if node.type == name and parent is not None and parent.type == "gnu_asm_expression":
            code = parent.child_by_field_name("assembly_code")
            text = self._text(code) if code is not None else ""
        else:
            m = _ASM_TEXT.match(self.source, end)
            if m is None:
                return None
            text = m.group(1).decode("utf-8", "replace")
        found = re.search(rule.text, text)
        if found is not None or (rule.device_code and in_device_function(node, self.source)):
            # Named by the PTX it contains, which says more than the keyword.
            return LintHit(rule.index, start, end, found.group().strip() if found is not None else name)
        return None

    def _name(self, rule: StructuralLint, node, start, end, name, site) -> LintHit | None:
        if site is None or site.role not in (Role.USE, Role.NAMESPACE):
            return None
        return LintHit(rule.index, start, end, name)

    def _template_type(self, rule: StructuralLint, node, start, end, name, site) -> LintHit | None:
        parent = node.parent
        if node.type == "type_identifier" and parent is not None and parent.type == "template_type" and \
                parent.child_by_field_name("name") == node:
            return LintHit(rule.index, start, end, name)
        if node.type in ("ERROR", "preproc_arg") and self.source[end:end + 8].lstrip().startswith(b"<"):
            return LintHit(rule.index, start, end, name)
        return None

    def _macro_test(self, rule: StructuralLint, node, start, end, name, site) -> LintHit | None:
        if node.type not in ("identifier", "preproc_arg", "ERROR"):
            return None
        # Judged from the directive's text, not the tree: error recovery can
        # shape the same directive differently from one run to the next, and a
        # fix must not depend on that.
        line_start = self.source.rfind(b"\n", 0, start) + 1
        line_end = start
        while True:
            line_end = self.source.find(b"\n", line_end)
            if line_end < 0:
                line_end = len(self.source)
                break
            if not self.source[:line_end].rstrip(b"\r").endswith(b"\\"):
                break
            line_end += 1
        line = self.source[line_start:line_end].decode("utf-8", "replace")
        escaped = re.escape(name)
        if re.match(rf"\s*#\s*(?:ifdef|ifndef|elifdef|elifndef)\s+{escaped}\b", line):
            return LintHit(rule.index, start, end, name)
        directive = re.match(r"\s*#\s*(?:if|elif)\b", line)
        before = self.source[max(line_start, start - 40):start].decode("utf-8", "replace")
        if directive is None or not re.search(r"\bdefined\s*\(?\s*\Z", before):
            return LintHit(rule.index, start, end, name, fixable=False)
        # defined(NAME) may change only if every test of NAME in the condition is one:
        # `defined(X) && X >= 700` must keep X's two tests in step.
        uses = len(re.findall(rf"\b{escaped}\b", line))
        presence = len(re.findall(rf"\bdefined\s*\(?\s*{escaped}\b", line))
        return LintHit(rule.index, start, end, name, fixable=uses == presence)

    def _member(self, rule: StructuralLint, node, start, end, name, site) -> LintHit | None:
        parent = node.parent
        if node.type != "field_identifier" or parent is None or parent.type != "field_expression":
            return None
        receiver = parent.child_by_field_name("argument")
        while receiver is not None and receiver.type in ("subscript_expression", "parenthesized_expression",
                                                         "pointer_expression"):
            receiver = receiver.child_by_field_name("argument") or (
                receiver.named_children[0] if receiver.named_children else None)
        if receiver is None or receiver.type != "identifier":
            return None
        if not self._declared_with(self._text(receiver), rule.receivers):
            return None
        return LintHit(rule.index, start, end, name)

    # -- literal-triggered matchers --------------------------------------------------

    def _binary_operand(self, rule: StructuralLint, node, value: int) -> LintHit | None:
        parent = node.parent
        if parent is None or parent.type != "binary_expression":
            return None
        operator = parent.child_by_field_name("operator")
        op = self._text(operator) if operator is not None else ""
        if (op, value) not in rule.operators:
            return None
        left, right = parent.child_by_field_name("left"), parent.child_by_field_name("right")
        if right == node:
            other = left
        elif left == node and op in COMMUTATIVE:
            other = right
        else:
            return None
        if other is None or not self._mentions(self._text(other), rule.operand, node):
            return None
        return LintHit(rule.index, parent.start_byte, parent.end_byte, self._text(parent))

    def _loop_bound(self, rule: StructuralLint, node, value: int) -> LintHit | None:
        loop = None
        parent = node.parent
        if rule.position == "condition":
            if parent is not None and parent.type == "binary_expression" and parent.parent is not None and \
                    parent.parent.type == "for_statement" and \
                    parent.parent.child_by_field_name("condition") == parent:
                loop = parent.parent
        else:
            current = parent
            if current is not None and current.type in ("init_declarator", "assignment_expression"):
                owner = current.parent if current.type == "init_declarator" else current
                if owner is not None and owner.parent is not None and owner.parent.type == "for_statement" and \
                        owner.parent.child_by_field_name("initializer") == owner:
                    loop = owner.parent
        if loop is None:
            return None
        body = loop.child_by_field_name("body")
        if body is None or not re.search(rf"\b(?:{rule.calls})\s*\(", self._text(body)):
            return None
        return LintHit(rule.index, node.start_byte, node.end_byte, self._text(node))

    def _shared_array(self, rule: StructuralLint, node, value: int) -> LintHit | None:
        array = node.parent
        if array is None or array.type != "array_declarator" or array.child_by_field_name("size") != node:
            return None
        inner = array.child_by_field_name("declarator")
        if inner is None or inner.type != "identifier" or (array.parent is not None and
                                                             array.parent.type == "array_declarator"):
            return None  # a multi-dimensional tile, not one slot per warp
        declaration = array.parent
        while declaration is not None and declaration.type not in ("declaration", "field_declaration"):
            declaration = declaration.parent
        if declaration is None or b"__shared__" not in self.source[declaration.start_byte:array.start_byte]:
            return None
        array_name = self._text(inner)
        scope = self._scope_text(node)
        for m in re.finditer(rf"\b{array_name}\s*\[([^\]]*)\]", scope):
            if re.search(rule.subscript, m.group(1)):
                return LintHit(rule.index, node.start_byte, node.end_byte, self._text(node))
        return None

    def _lexical_binary(self, rule: StructuralLint, body, start: int, end: int, value: int) -> LintHit | None:
        """`(threadIdx.x & 31)` inside a #define body, judged from the neighbouring tokens."""
        if rule.match != "binary-operand":
            return None
        text = self.source[body.start_byte:start]
        left_text = text.rstrip()
        for op, wanted in rule.operators:
            if wanted != value or not left_text.endswith(op.encode()):
                continue
            before = left_text[: -len(op)]
            if before.endswith((b"&", b"|", b">", b"<", b"=", b"!")) and op not in (">>", "<<"):
                continue  # &&, ||, comparisons
            operand_start = _operand_start(before)
            operand = before[operand_start:].decode("utf-8", "replace")
            if self._mentions(operand, rule.operand, None):
                hit_start = body.start_byte + operand_start
                return LintHit(rule.index, hit_start, end,
                               " ".join(self.source[hit_start:end].decode("utf-8", "replace").split()))
        return None

    # -- helpers ---------------------------------------------------------------------

    def _text(self, node) -> str:
        return " ".join(self.source[node.start_byte:node.end_byte].decode("utf-8", "replace").split())

    def _scope_text(self, node) -> str:
        """The enclosing function's text, or the macro body's, or the whole file."""
        current = node
        while current is not None:
            if current.type in FUNCTION_NODES or current.type == "preproc_arg":
                return self.source[current.start_byte:current.end_byte].decode("utf-8", "replace")
            current = current.parent
        return self.source.decode("utf-8", "replace")

    def _mentions(self, text: str, operand: str, node) -> bool:
        """text names an identifier matching operand, or one assigned from such a name in scope."""
        names = IDENT.findall(text)
        if any(re.fullmatch(operand, n) for n in names):
            return True
        if node is None:
            return False
        scope = self._scope_text(node)
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
        """The value and spelling of an object-like #define of an integer literal in this file."""
        if self._macro_values is None:
            self._macro_values = {}
            for m in _DEFINE_VALUE.finditer(self.source):
                value = int_value(m.group(2))
                if value is not None:
                    self._macro_values[m.group(1).decode("ascii")] = (value, m.group(2).decode("ascii"))
        return self._macro_values.get(name, (None, ""))


def _operand_start(text: bytes) -> int:
    """Where the operand that ends text starts: a name chain such as threadIdx.x, or a bracketed group."""
    i = len(text.rstrip())
    while i > 0:
        c = text[i - 1:i]
        if c in (b")", b"]"):
            depth, j = 0, i
            while j > 0:
                ch = text[j - 1:j]
                depth += ch in (b")", b"]")
                depth -= ch in (b"(", b"[")
                j -= 1
                if depth == 0:
                    break
            i = j
        elif c.isalnum() or c in (b"_", b"."):
            i -= 1
        elif text[max(0, i - 2):i] == b"->":
            i -= 2
        else:
            break
    return i
