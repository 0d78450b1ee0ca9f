"""Where a declaration of the file's own hides a CUDA name, by C++'s scope rules.

A file that declares something named like a CUDA API (a mock cudaMalloc, a
member called cudaStream) means its own entity only where C++ would find that
declaration:
- a class member, inside the class body (member and qualified access are never
  ported anyway: obj.cudaMalloc, Fake::cudaMalloc);
- a namespace member, after it in every body of that namespace (and of the
  namespaces nested in it), and where `using` brings it in;
- a block, parameter or template-parameter name, after it to the end of its block;
- a file-scope declaration, everywhere after it;
- a macro, everywhere in the file; and any declaration in a macro body, which is expanded elsewhere.
A project header's macros (declared_elsewhere) hide a name in the whole file; the
engine applies those.

The classifier meets declarations and uses in file order, so each question is
answered on the spot: `after` is one offset per name, the regions a name is hidden
in are a stack per name (C++ scopes nest, so the innermost ends first and a use
pops only regions already behind it), and namespace members are looked up by
the qualified name of the namespaces around the use, which NodePath.nearest
finds without climbing the same levels twice. C++ reads a class's member
function bodies as if after the class, so a member also hides the uses before it
in its class body: the uses not hidden so far are kept per name, newest last, and
a member takes back those in its class body, each once. The body of a member
defined outside its class (void Fake::f() { ... }) sees the class's members too.
"""

from __future__ import annotations

import re

from hipport.parse.sites import NameSite
from hipport.parse.treesitter.tree_path import NodePath
from hipport.parse.treesitter.chunks import NoSafeCut

# The nodes a declaration's scope can be: what it is declared directly inside.
SCOPE_NODES = frozenset(
    {
        "translation_unit",
        "namespace_definition",
        "field_declaration_list",
        "compound_statement",
        "function_definition",
        "parameter_list",
        "template_declaration",
        "for_statement",
        "for_range_loop",
        "if_statement",
        "while_statement",
        "switch_statement",
        "catch_clause",
        "lambda_expression",
    }
)
_NAMESPACES = frozenset({"namespace_definition"})
_FUNCTIONS = frozenset({"function_definition"})
_TEMPLATE_ARGUMENTS = re.compile(r"<[^<>]*>")
_FUNCTION_DECLARATORS = frozenset(
    {
        "function_declarator",
        "abstract_function_declarator",
        "pointer_declarator",
        "reference_declarator",
        "parenthesized_declarator",
        "attributed_declarator",
        "abstract_pointer_declarator",
        "abstract_reference_declarator",
        "abstract_parenthesized_declarator",
    }
)
_USING_DIRECTIVE = re.compile(rb"\busing[ \t\r\n]+namespace[ \t\r\n]+(?:::)?([A-Za-z_][A-Za-z0-9_:\t ]*);")


class Scopes:
    """The declarations of a file's own met so far, and whether each use is in their reach."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        self.after: dict[str, int] = {}  # name -> the offset after which it is the file's everywhere
        self.regions: dict[str, list[int]] = {}  # name -> ends of the regions hiding it, innermost last
        self.namespaced: dict[str, dict[str, int]] = {}  # name -> namespace -> its first declaration there
        self.declared: set[str] = set()
        self.macros: set[str] = set()
        self.members: dict[str, set[str]] = {}  # name -> the classes (a::Fake) that have it as a member
        self._qualifiers: dict[int, str] = {}  # function_definition start -> Fake in `void Fake::f()`, or ""
        self.open_uses: dict[str, list[NameSite]] = {}  # name -> its uses not hidden so far, in order
        self._keys: dict[int, str] = {}  # namespace_definition start -> the namespace's qualified name
        self._directives = list(_USING_DIRECTIVE.finditer(source)) if b"using" in source else []
        self._next_directive = 0
        self._directive_path: NodePath | None = None
        self._piece_end: int | None = None

    def attach(self, root, piece_end: int | None = None) -> None:
        """The tree (of the file, or of one chunk) the offsets to come are in; piece_end: where
        that chunk's own text ends, when it is a piece of the file (hipport.parse.treesitter.chunks)."""
        self._directive_path = NodePath(root) if self._directives else None
        self._piece_end = piece_end

    # -- declarations ------------------------------------------------------------

    def declare(self, path: NodePath, construct: int, start: int, name: str) -> None:
        """The name at start is declared by the node at depth construct (a declaration, a
        namespace, a class, a parameter, ...): record where it hides the CUDA name."""
        self.declared.add(name)
        kind = path.type_at(construct)
        if kind in ("preproc_def", "preproc_function_def"):
            self._everywhere_after(name, start)
            self.macros.add(name)
            return
        if kind == "enumerator" and _scoped_enum(path, construct):
            return  # enum class: reached only as Enum::name
        scope = _scope_of(path, construct)
        scope_kind = path.type_at(scope)
        if scope < 0 or scope_kind == "translation_unit":
            self._everywhere_after(name, start)
        elif scope_kind == "namespace_definition":
            spaces = self.namespaced.setdefault(name, {})
            key = self._namespace_key(path, scope)
            spaces[key] = min(spaces.get(key, start), start)
        elif scope_kind == "field_declaration_list":
            body_start, body_end = path.span_at(scope)
            self._push(name, start, body_end)
            self._member_of_class(path, scope, name)
            uses = self.open_uses.get(name)
            while uses and uses[-1].start >= body_start:
                uses.pop().shadowed = True  # a member function body before the member's declaration
        elif scope_kind == "parameter_list":
            self._push(name, start, path.span_at(_function_of_parameters(path, scope))[1])
        else:
            self._push(name, start, path.span_at(scope)[1])

    def _everywhere_after(self, name: str, start: int) -> None:
        self.after[name] = min(self.after.get(name, start), start)

    def _push(self, name: str, start: int, end: int) -> None:
        if self._piece_end is not None and end > self._piece_end:
            # A local of a function the piece was cut inside: its block closes on borrowed text
            # there, not where the function really ends. The file is parsed whole instead.
            raise NoSafeCut
        stack = self.regions.setdefault(name, [])
        while stack and stack[-1] <= start:
            stack.pop()
        stack.append(end)

    # -- uses --------------------------------------------------------------------

    def use(self, path: NodePath, depth: int, site: NameSite) -> None:
        """Decide whether the use at site is hidden; keep it for a later class member if not."""
        if site.name in self.declared:
            site.shadowed = self.hides(path, depth, site.start, site.name)
        if not site.shadowed:
            uses = self.open_uses.get(site.name)
            if uses is None:
                self.open_uses[site.name] = [site]
            else:
                uses.append(site)

    def hides(self, path: NodePath, depth: int, start: int, name: str) -> bool:
        """Whether a declaration of the file's own is what `name` at start (the node at depth) means."""
        if self._directives:
            self._directives_before(start)
        if name not in self.declared:
            return False
        after = self.after.get(name)
        if after is not None and after <= start:
            return True
        stack = self.regions.get(name)
        if stack:
            while stack and stack[-1] <= start:
                stack.pop()
            if stack:
                return True
        classes = self.members.get(name)
        if classes and self._in_member_defined_outside(path, depth, classes):
            return True
        spaces = self.namespaced.get(name)
        if spaces:
            here = self._namespace_key(path, path.nearest(_NAMESPACES, depth - 1))
            if not here:
                return False
            # Ask whichever is fewer: the namespaces declaring the name, or those around the use.
            if len(spaces) <= here.count("::") + 1:
                return any(
                    first <= start and (here == key or here.startswith(key + "::")) for key, first in spaces.items()
                )
            key = here
            while True:
                first = spaces.get(key)
                if first is not None and first <= start:
                    return True
                cut = key.rfind("::")
                if cut < 0:
                    return False
                key = key[:cut]
        return False

    def finish(self) -> None:
        """What only the whole file tells: a macro the file defines is its own in the whole file
        (`#ifndef X` before `#define X` tests that macro), and a macro body, expanded wherever it
        is used, may mean any declaration of the file, those after the #define too."""
        for name, uses in self.open_uses.items():
            if name in self.macros:
                for site in uses:
                    site.shadowed = True
            elif name in self.declared:
                for site in uses:
                    if site.in_macro_body:
                        site.shadowed = True

    def _directives_before(self, offset: int) -> None:
        """Take in the `using namespace X;` lines before offset: X's members declared so far
        become the file's own from there to the end of the directive's scope."""
        directives = self._directives
        while self._next_directive < len(directives) and directives[self._next_directive].start() < offset:
            match = directives[self._next_directive]
            self._next_directive += 1
            if not self.namespaced or self._directive_path is None:
                continue
            path = self._directive_path
            at = match.start()
            path.seek(at, at + 5)
            depth = path.depth
            if path.type_at(depth) != "using" or path.type_at(depth - 1) != "using_declaration":
                continue  # in a comment, a string or a macro body
            target = re.sub(r"\s+", "", match.group(1).decode("ascii", "replace"))
            scope = _scope_of(path, depth - 1)
            file_wide = scope < 0 or path.type_at(scope) == "translation_unit"
            for name, spaces in self.namespaced.items():
                if any(first <= at and (key == target or key.endswith("::" + target)) for key, first in spaces.items()):
                    if file_wide:
                        self._everywhere_after(name, at)
                    else:
                        self._push(name, at, path.span_at(scope)[1])

    # -- members defined outside their class ----------------------------------------

    def _member_of_class(self, path: NodePath, body: int, name: str) -> None:
        """Record name as a member of the class whose body is at depth body (unnamed: none)."""
        class_name = path.at(body - 1).child_by_field_name("name") if body > 0 else None
        if class_name is None:
            return
        text = _squeezed(self.source[class_name.start_byte : class_name.end_byte])
        space = self._namespace_key(path, path.nearest(_NAMESPACES, body - 1))
        self.members.setdefault(name, set()).add(f"{space}::{text}" if space else text)

    def _in_member_defined_outside(self, path: NodePath, depth: int, classes: set[str]) -> bool:
        """Whether the node at depth is in the body of `... Fake::f(...) { }` for one of classes:
        a member function's body sees the class's members wherever it is defined."""
        function = path.nearest(_FUNCTIONS, depth - 1)
        if function < 0:
            return False
        start = path.span_at(function)[0]
        qualifier = self._qualifiers.get(start)
        if qualifier is None:
            qualifier = self._qualifiers[start] = self._qualifier_of(path, function)
        if not qualifier:
            return False
        space = self._namespace_key(path, path.nearest(_NAMESPACES, function - 1))
        full = f"{space}::{qualifier}" if space else qualifier
        return any(key in (qualifier, full) or key.endswith("::" + qualifier) for key in classes)

    def _qualifier_of(self, path: NodePath, function: int) -> str:
        """Fake (or ns::Fake) in a definition `R Fake::f(...)`; "" for a plain function."""
        declarator = path.at(function).child_by_field_name("declarator")
        steps = 0
        while declarator is not None and declarator.type != "function_declarator" and steps < 8:
            declarator = declarator.child_by_field_name("declarator")
            steps += 1
        name = declarator.child_by_field_name("declarator") if declarator is not None else None
        if name is None or name.type != "qualified_identifier":
            return ""
        text = _squeezed(self.source[name.start_byte : name.end_byte])
        text = _TEMPLATE_ARGUMENTS.sub("", text).lstrip(":")  # Fake<T>::f is Fake's member
        return text.rpartition("::")[0]

    # -- namespaces --------------------------------------------------------------

    def _namespace_key(self, path: NodePath, depth: int) -> str:
        """The qualified name (a::b) of the namespace_definition at depth; "" for none (-1).
        Anonymous namespaces add nothing: their members are reached as the enclosing one's."""
        pending = []
        key = ""
        while depth >= 0:
            known = self._keys.get(path.span_at(depth)[0])
            if known is not None:
                key = known
                break
            pending.append(depth)
            depth = path.nearest(_NAMESPACES, depth - 1)
        for depth in reversed(pending):
            node = path.at(depth)
            name = node.child_by_field_name("name")
            if name is not None:
                text = re.sub(r"\s+", "", self.source[name.start_byte : name.end_byte].decode("ascii", "replace"))
                key = f"{key}::{text}" if key else text
            self._keys[path.span_at(depth)[0]] = key
        return key


def _squeezed(text: bytes) -> str:
    return re.sub(r"\s+", "", text.decode("ascii", "replace"))


def _scope_of(path: NodePath, construct: int) -> int:
    """The depth of the scope the node at depth construct declares its name in.

    A template_declaration is the scope of its parameters only, and an anonymous
    namespace is no scope of its own: their members belong to the scope around them.
    """
    child = construct
    scope = path.nearest(SCOPE_NODES, construct - 1)
    while scope >= 0:
        kind = path.type_at(scope)
        if kind == "template_declaration" and scope == child - 1:
            child = scope
        elif kind == "namespace_definition" and path.at(scope).child_by_field_name("name") is None:
            pass
        else:
            return scope
        scope = path.nearest(SCOPE_NODES, scope - 1)
    return scope


def _function_of_parameters(path: NodePath, parameters: int) -> int:
    """A function definition's or lambda's parameters are its body's too; a prototype's end with the list."""
    depth = parameters - 1
    while depth >= 0 and path.type_at(depth) in _FUNCTION_DECLARATORS:
        depth -= 1
    if depth >= 0 and path.type_at(depth) in ("function_definition", "lambda_expression"):
        return depth
    return parameters


def _scoped_enum(path: NodePath, enumerator: int) -> bool:
    if path.type_at(enumerator - 1) != "enumerator_list" or path.type_at(enumerator - 2) != "enum_specifier":
        return False
    second = path.at(enumerator - 2).child(1)
    return second is not None and second.type in ("class", "struct")
