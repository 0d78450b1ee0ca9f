"""Structural lint matchers, run by the tree-sitter backend at scanner candidates.

Each matcher starts from the one node the scanner pointed at (an identifier or
an integer literal) and looks only at its neighbourhood: the enclosing call,
binary expression, loop or declaration, plus, for one-step lookups such as "this
variable was assigned a ballot", the text of the enclosing function. None of
them walks the tree: enclosing nodes come from the classifier's NodePath (the
node is path.at(depth), its parent path.at(depth - 1)). Inside #define
bodies, which tree-sitter keeps as text, the matchers that can judge lexically
do so and the others stay silent.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from hipport.parse.treesitter.lints.context import FUNCTION_NODES, IDENT
from hipport.parse.treesitter.lints.literal import LiteralMatchers
from hipport.parse.treesitter.lints.macro import macro_test_hit
from hipport.parse.treesitter.lints.semantic import CoordinateMatchers, HandleMatchers
from hipport.parse.sites import LintHit, NameSite, Role
from hipport.parse.treesitter.tree_path import NodePath
from hipport.ruleset.lintrules import LintIndex, StructuralLint, int_value

# Nodes that may stand between a call and the declaration or assignment it feeds.
CALL_WRAPPERS = {"parenthesized_expression", "cast_expression"}
DEVICE_QUALIFIERS = (b"__global__", b"__device__")
_ASM_TEXT = re.compile(rb'\s*(?:(?:volatile|__volatile__|inline|goto)\s*)*\(\s*((?:"(?:\\.|[^"\\\n])*"\s*)+)')


def in_device_function(path: NodePath, depth: int, source: bytes) -> bool:
    """True when the node at depth sits in a __global__ or __device__ function (or lambda)."""
    head = _function_head(path, depth, source)
    return head is not None and any(q in head for q in DEVICE_QUALIFIERS)


def in_device_only_function(path: NodePath, depth: int, source: bytes) -> bool:
    """In a function that runs on the device only: __global__, or __device__ without __host__
    (a __host__ __device__ function's host-only calls sit behind #ifdef __CUDA_ARCH__ tests)."""
    head = _function_head(path, depth, source)
    return head is not None and (b"__global__" in head or (b"__device__" in head and b"__host__" not in head))


def _function_head(path: NodePath, depth: int, source: bytes) -> bytes | None:
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


# LiteralMatchers (with ContextReader, its base) comes first: the coordinate and handle mixins declare
# the ContextReader methods they call as stubs, which must not shadow the real ones.
class LintMatcher(LiteralMatchers, CoordinateMatchers, HandleMatchers):
    """One file's lint matching; a file parsed in chunks keeps one matcher for all of them."""

    def __init__(self, source: bytes, index: LintIndex) -> None:
        super().__init__(source)
        self.index = index
        # Whether an offset is in a comment or literal by lexing; the classifier sets it per tree.
        self.not_code: Callable[[int], bool] | None = None

    # -- entry points ------------------------------------------------------------

    def at_name(
        self, path: NodePath, depth: int, start: int, end: int, name: str, site: NameSite | None, rule_ids
    ) -> list[LintHit]:
        """Hits of the lints rule_ids at a candidate name; path.at(depth), the tree node there,
        is known to be code.

        Each match kind is the method of the same name (call-argument: _call_argument).
        """
        hits = []
        for rule_id in rule_ids:
            rule = self.index.rules[rule_id]
            hit = getattr(self, "_" + rule.match.replace("-", "_"))(rule, path, depth, start, end, name, site)
            if hit is not None:
                hit.trigger = name
                hits.append(hit)
        return hits

    def at_literal(self, path: NodePath, start: int, end: int, value: int) -> list[LintHit]:
        """Hits at an integer literal; path walks the literals of one tree in order."""
        rule_ids = self.index.by_literal.get(value, ())
        if not rule_ids or (self.not_code is not None and self.not_code(start)):
            return []
        node = path.seek(start, end)
        depth = path.depth
        node_type = path.type_at(depth)
        if self.source[start : start + 1].isalpha() or self.source[start : start + 1] == b"_":
            return self._at_macro(path, depth, start, end, value)
        if node_type == "preproc_arg":
            return [
                hit
                for rule_id in rule_ids
                if (hit := self._lexical_binary(self.index.rules[rule_id], node, start, end, value)) is not None
            ]
        if node_type != "number_literal" or node.start_byte != start or node.end_byte != end:
            return []
        hits = []
        for rule_id in rule_ids:
            rule = self.index.rules[rule_id]
            hit = getattr(self, "_" + rule.match.replace("-", "_"))(rule, path, depth, value)
            if hit is not None:
                hits.append(hit)
        return hits

    def _at_macro(self, path: NodePath, depth: int, start: int, end: int, value: int) -> list[LintHit]:
        """Hits at a use of an integer macro (scan's macro uses): judged as the literal it stands for,
        `WARP_SIZE - 1` as 31 and `WARP_SIZE / 2` as 16, and reported naming the macro."""
        name = self.source[start:end].decode("ascii")
        detail = f"({name} is defined as {self._macro_value(name)[1]})"
        node_type = path.type_at(depth)
        if node_type == "preproc_arg":
            hits = [
                self._lexical_binary(self.index.rules[r], path.at(depth), start, end, value)
                for r in self.index.by_literal.get(value, ())
            ]
        elif node_type != "identifier" or path.at(depth).start_byte != start or path.at(depth).end_byte != end:
            return []
        else:
            value, depth = self._derived(path, depth, value)
            hits = [
                getattr(self, "_" + rule.match.replace("-", "_"))(rule, path, depth, value)
                for rule in map(self.index.rules.__getitem__, self.index.by_literal.get(value, ()))
            ]
        found = [hit for hit in hits if hit is not None]
        for hit in found:
            hit.fixable, hit.detail = False, detail
        return found

    def _derived(self, path: NodePath, depth: int, value: int) -> tuple[int, int]:
        """(value, depth) of the expression a macro use stands in: `M - 1` or `M / 2` (parenthesized
        or not) when the macro is its left operand, else the macro itself."""
        if path.type_at(depth - 1) != "binary_expression":
            return value, depth
        parent = path.at(depth - 1)
        operator, right = parent.child_by_field_name("operator"), parent.child_by_field_name("right")
        if parent.child_by_field_name("left") != path.at(depth) or operator is None or right is None:
            return value, depth
        amount = int_value(self._text(right)) if right.type == "number_literal" else None
        derived = {("-", 1): value - 1, ("/", 2): value // 2, (">>", 1): value // 2}.get(
            (self._text(operator), amount or 0)
        )
        if amount is None or derived is None:
            return value, depth
        depth -= 1
        while path.type_at(depth - 1) == "parenthesized_expression":
            depth -= 1
        return derived, depth

    # -- name-triggered matchers ---------------------------------------------------

    def _call_argument(
        self, rule: StructuralLint, path: NodePath, depth: int, start, end, name, site
    ) -> LintHit | None:
        span = _argument_span(rule, site)
        if span is None:
            return None
        a, b = span
        text = self.source[a:b].decode("utf-8", "replace").strip()
        value, detail, direct = int_value(text) if text[:1].isdigit() else None, "", True
        if value is None and IDENT.fullmatch(text):
            value, spelled = self._macro_value(text)
            detail, direct = f"({text} is defined as {spelled})", False
        if value not in rule.literals:
            return None
        return LintHit(rule.index, a, b, text, call=site.start, argument=rule.argument, fixable=direct, detail=detail)

    def _call_result_type(
        self, rule: StructuralLint, path: NodePath, depth: int, start, end, name, site
    ) -> LintHit | None:
        node, call = path.at(depth), path.at(depth - 1)
        if call is None or path.type_at(depth - 1) != "call_expression" or call.child_by_field_name("function") != node:
            return None
        expression_at, consumer_at = depth - 1, depth - 2
        while path.type_at(consumer_at) in CALL_WRAPPERS:
            expression_at, consumer_at = consumer_at, consumer_at - 1
        if consumer_at < 0:
            return None
        expression, consumer = path.at(expression_at), path.at(consumer_at)
        consumer_type = path.type_at(consumer_at)
        if consumer_type == "init_declarator" and consumer.child_by_field_name("value") == expression:
            declaration = path.at(consumer_at - 1)
            type_node = declaration.child_by_field_name("type") if declaration is not None else None
            if type_node is None or self._text(type_node) not in rule.types:
                return None
            return LintHit(
                rule.index,
                type_node.start_byte,
                type_node.end_byte,
                self._text(type_node),
                fixable=self._declarator_count(declaration) == 1,
            )
        if consumer_type == "assignment_expression" and consumer.child_by_field_name("right") == expression:
            left = consumer.child_by_field_name("left")
            operator = consumer.child_by_field_name("operator")
            if left is None or left.type != "identifier" or operator is None or self._text(operator) != "=":
                return None
            declared = self._declared_type(self._text(left), rule.types, self._scope_text(path, depth))
            if declared is None:
                return None
            return LintHit(
                rule.index,
                left.start_byte,
                left.end_byte,
                declared,
                fixable=False,
                detail=f"('{self._text(left)}' is declared '{declared}')",
            )
        return None

    def _call_on_call(self, rule: StructuralLint, path: NodePath, depth: int, start, end, name, site) -> LintHit | None:
        span = _argument_span(rule, site)
        if span is None:
            return None
        a, b = span
        text = self.source[a:b].decode("utf-8", "replace")
        if re.match(rf"[\s(]*(?:{rule.calls})\s*\(", text):
            return LintHit(rule.index, start, end, name)
        variable = text.strip()
        if IDENT.fullmatch(variable):
            scope = self._scope_text(path, depth)
            if re.search(rf"\b{variable}\s*=(?!=)\s*[\s(]*(?:{rule.calls})\s*\(", scope):
                return LintHit(rule.index, start, end, name, fixable=False, detail=f"('{variable}' holds a ballot)")
        return None

    def _argument_type(
        self, rule: StructuralLint, path: NodePath, depth: int, start, end, name, site
    ) -> LintHit | None:
        span = _argument_span(rule, site)
        if span is None:
            return None
        a, b = span
        text = self.source[a:b].decode("utf-8", "replace").strip()
        address = re.fullmatch(r"&\s*([A-Za-z_]\w*)", text)
        # p, p + i, (p) and &p[i] name the pointer p
        variable = re.fullmatch(r"\(?\s*([A-Za-z_]\w*)\s*\)?(?:\s*\+.*)?", text, re.S) or re.fullmatch(
            r"&\s*([A-Za-z_]\w*)\s*\[.*\]", text, re.S
        )
        spelled = "|".join(r"\s+".join(map(re.escape, t.split())) for t in sorted(rule.types, key=len, reverse=True))
        if rule.pointer:  # a cast names the type itself: (half2*)&out[i], reinterpret_cast<__half2 *>(p)
            cast = re.match(rf"(?:\(|\w+_cast\s*<)\s*(?:const\s+)?({spelled})\s*\*\s*[)>]", text)
            if cast is not None:
                return LintHit(
                    rule.index, start, end, name, detail=f"(the argument is a {' '.join(cast.group(1).split())} *)"
                )
        scope = self._scope_text(path, depth)
        if rule.pointer and address is not None:
            pattern = rf"(?<![\w*&])(?:const\s+)?({spelled})\s+{address.group(1)}\s*[;=,)\[]"
        elif rule.pointer and variable is not None:
            qualifiers = r"(?:const\s+|__restrict__\s+)*"
            pattern = rf"(?<![\w*&])(?:const\s+)?({spelled})\s*\*\s*{qualifiers}{variable.group(1)}\s*[;=,)]"
        elif not rule.pointer and variable is not None and not re.search(r"[+&\[]", text):
            pattern = rf"(?<![\w*&])(?:const\s+)?({spelled})\s+{variable.group(1)}\s*[;=,)]"
        else:
            return None
        m = re.search(pattern, scope)
        if m is None:
            return None
        declared = " ".join(m.group(1).split())
        shown = f"a {declared} *" if rule.pointer else declared
        return LintHit(rule.index, start, end, name, detail=f"(the argument is {shown})")

    def _asm(self, rule: StructuralLint, path: NodePath, depth: int, start, end, name, site) -> LintHit | None:
        text = None
        if path.type_at(depth) == name and path.type_at(depth - 1) == "gnu_asm_expression":
            code = path.at(depth - 1).child_by_field_name("assembly_code")
            text = self._text(code) if code is not None else ""
        else:
            m = _ASM_TEXT.match(self.source, end)
            if m is None:
                return None
            text = m.group(1).decode("utf-8", "replace")
        assert rule.text is not None  # validate_lint requires text for this match kind
        found = re.search(rule.text, text)
        if found is not None or (rule.device_code and in_device_function(path, depth, self.source)):
            # Named by the PTX it contains, which says more than the keyword.
            return LintHit(rule.index, start, end, found.group().strip() if found is not None else name)
        return None

    def _name(self, rule: StructuralLint, path: NodePath, depth: int, start, end, name, site) -> LintHit | None:
        if site is None or site.role not in (Role.USE, Role.NAMESPACE):
            return None
        if rule.device_code and not in_device_only_function(path, depth, self.source):
            return None
        return LintHit(rule.index, start, end, name)

    def _template_type(
        self, rule: StructuralLint, path: NodePath, depth: int, start, end, name, site
    ) -> LintHit | None:
        node_type = path.type_at(depth)
        if (
            node_type == "type_identifier"
            and path.type_at(depth - 1) == "template_type"
            and path.at(depth - 1).child_by_field_name("name") == path.at(depth)
        ):
            return LintHit(rule.index, start, end, name)
        if node_type in ("ERROR", "preproc_arg") and self.source[end : end + 8].lstrip().startswith(b"<"):
            return LintHit(rule.index, start, end, name)
        return None

    def _macro_test(self, rule: StructuralLint, path: NodePath, depth: int, start, end, name, site) -> LintHit | None:
        if path.type_at(depth) not in ("identifier", "preproc_arg", "ERROR"):
            return None
        return macro_test_hit(rule, self.source, start, end, name)

    def _member(self, rule: StructuralLint, path: NodePath, depth: int, start, end, name, site) -> LintHit | None:
        if path.type_at(depth) != "field_identifier" or path.type_at(depth - 1) != "field_expression":
            return None
        receiver = path.at(depth - 1).child_by_field_name("argument")
        while receiver is not None and receiver.type in (
            "subscript_expression",
            "parenthesized_expression",
            "pointer_expression",
        ):
            receiver = receiver.child_by_field_name("argument") or (
                receiver.named_children[0] if receiver.named_children else None
            )
        if receiver is None or receiver.type != "identifier":
            return None
        if not self._declared_with(self._text(receiver), rule.receivers):
            return None
        return LintHit(rule.index, start, end, name)


def _argument_span(rule: StructuralLint, site) -> tuple[int, int] | None:
    """Where the argument the rule names is, in a call site that has it."""
    if site is None or site.role is not Role.USE or site.arguments is None or len(site.arguments) <= rule.argument:
        return None
    a, b = site.arguments[rule.argument]
    return a, b
