"""setup.py of a PyTorch extension: what a ROCm PyTorch builds as it is, what hipcc will not take.

A ROCm PyTorch builds a CUDAExtension unchanged (rules/buildfiles.toml, build_extension): each use
of the call is reported once (HP505), and the file is not edited for it. What breaks that build is
reported with its line: the nvcc flags under extra_compile_args['nvcc'], which it hands to hipcc
(HP502, from the build_flag table and the architecture flags). What has a HIP meaning is migrated:
an architecture list set in os.environ (TORCH_CUDA_ARCH_LIST) gets the HIP build's variable beside
it (PYTORCH_ROCM_ARCH, with the gfx targets), so that the file still builds for NVIDIA.

The file is read with Python's own parser; flags are followed through the names they are kept in
(nvcc_flags = [...]; nvcc_flags.append(...); {"nvcc": nvcc_flags}), as far as literals go.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from hipport.buildfiles.edit import BuildPort
from hipport.buildfiles.flags import match_flag
from hipport.ruleset.build_rules import ExtensionCall

_LIST_METHODS = ("append", "extend", "insert")


def port_setup_py(port: BuildPort) -> None:
    data = port.text.encode("latin-1")
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError) as exc:
        starts = _line_starts(port.text)
        start = starts[min(getattr(exc, "lineno", None) or 1, len(starts)) - 1]
        port.finding("HP901", start, start, "", f"not read as Python ({exc.__class__.__name__}): nothing checked")
        return
    SetupReader(port, tree).run()


def _line_starts(text: str) -> list[int]:
    starts = [0]
    starts.extend(i + 1 for i, c in enumerate(text) if c == "\n")
    return starts


class SetupReader:
    def __init__(self, port: BuildPort, tree: ast.Module) -> None:
        self.port = port
        self.tree = tree
        self.lines = _line_starts(port.text)
        self.reported: set[tuple[int, int]] = set()  # string constants whose flags were read
        self.assigned: dict[str, list[ast.expr]] = {}  # name -> every value given to it

    def run(self) -> None:
        rules = self.port.rules
        self._collect_assignments()
        used: dict[str, ExtensionCall] = {}
        for node in ast.walk(self.tree):
            name = _called_name(node)
            extension = rules.extensions.get(name) if name else None
            if extension is not None and isinstance(node, (ast.Name, ast.Attribute)):
                self._extension_use(node, extension)
                used[extension.call] = extension
        for extension in used.values():  # a file that builds no such extension gives no flags to hipcc
            if extension.flags_key:
                for value in self._flag_values(extension):
                    self._flags(value, extension)
        self._arch_variables()

    def offset(self, node: ast.AST) -> int:
        return self.lines[node.lineno - 1] + node.col_offset  # type: ignore[attr-defined]

    def end(self, node: ast.AST) -> int:
        return self.lines[node.end_lineno - 1] + node.end_col_offset  # type: ignore[attr-defined]

    # -- the extension call --------------------------------------------------------------

    def _extension_use(self, node: ast.Name | ast.Attribute, extension: ExtensionCall) -> None:
        start = self.end(node) - len(extension.call)
        self.port.finding("HP505", start, self.end(node), extension.call, extension.note)

    # -- its GPU compiler flags ---------------------------------------------------------------

    def _collect_assignments(self) -> None:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        self.assigned.setdefault(target.id, []).append(node.value)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name):
                if node.value is not None:
                    self.assigned.setdefault(node.target.id, []).append(node.value)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                owner = node.func.value
                if node.func.attr in _LIST_METHODS and isinstance(owner, ast.Name):
                    self.assigned.setdefault(owner.id, []).extend(node.args)

    def _flag_values(self, extension: ExtensionCall) -> Iterator[ast.expr]:
        """Every expression that gives flags under flags_key: {"nvcc": [...]}, dict(nvcc=[...]),
        args["nvcc"] = [...], args["nvcc"] += [...], args["nvcc"].append(...)."""
        key = extension.flags_key
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Dict):
                for k, v in zip(node.keys, node.values):
                    if isinstance(k, ast.Constant) and k.value == key:
                        yield v
            elif isinstance(node, ast.Call):
                yield from (kw.value for kw in node.keywords if kw.arg == key and _called_name(node.func) == "dict")
                func = node.func
                if isinstance(func, ast.Attribute) and func.attr in _LIST_METHODS and _is_key(func.value, key):
                    yield from node.args
            elif isinstance(node, (ast.Assign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(_is_key(t, key) for t in targets):
                    yield node.value

    def _flags(self, value: ast.expr, extension: ExtensionCall, seen: frozenset[str] = frozenset()) -> None:
        words = list(self._strings(value, seen))
        i = 0
        while i < len(words):
            i = self._flag(words, i, extension) + 1

    def _strings(self, value: ast.expr, seen: frozenset[str]) -> Iterator[tuple[str, int, int]]:
        """(word, start, end) of each flag word the expression holds, where literals say it."""
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            if (value.lineno, value.col_offset) in self.reported:
                return
            self.reported.add((value.lineno, value.col_offset))
            start = self.offset(value)
            if value.lineno == value.end_lineno:
                for word in value.value.split():
                    yield word, start, self.end(value)
        elif isinstance(value, ast.JoinedStr) and value.lineno == value.end_lineno:
            # f"-gencode=arch=compute_{x},code=sm_{x}": its words as written, {x} and all
            written = self.port.text[self.offset(value) : self.end(value)].lstrip("fFrR").strip("'\"")
            if (value.lineno, value.col_offset) not in self.reported:
                self.reported.add((value.lineno, value.col_offset))
                for word in written.split():
                    yield word, self.offset(value), self.end(value)
        elif isinstance(value, (ast.List, ast.Tuple, ast.Set)):
            for element in value.elts:
                yield from self._strings(element, seen)
        elif isinstance(value, ast.BinOp):
            yield from self._strings(value.left, seen)
            yield from self._strings(value.right, seen)
        elif isinstance(value, ast.IfExp):
            yield from self._strings(value.body, seen)
            yield from self._strings(value.orelse, seen)
        elif isinstance(value, ast.Starred):
            yield from self._strings(value.value, seen)
        elif isinstance(value, (ast.ListComp, ast.GeneratorExp)):
            yield from self._strings(value.elt, seen)
        elif isinstance(value, ast.Name) and value.id not in seen:
            for given in self.assigned.get(value.id, ()):
                yield from self._strings(given, seen | {value.id})

    def _flag(self, words: list[tuple[str, int, int]], i: int, extension: ExtensionCall) -> int:
        word, start, _ = words[i]
        if not word.startswith("-"):
            return i
        following = words[i + 1][0] if i + 1 < len(words) else None
        found = match_flag(self.port.rules, word, following)
        if found is None or (found.rule is None and not found.arch):
            return i
        last = i + 1 if found.takes_next else i
        shown = word if last == i else f"{word} {found.value}"
        head = f"'{shown}' under {extension.flags_keyword}['{extension.flags_key}'] goes to hipcc on a ROCm PyTorch"
        rule = found.rule
        if found.arch:
            targets = ";".join(self.port.settings.offload_arch)
            tail = (
                f"it names NVIDIA targets; hipcc takes --offload-arch=, or leave them to PYTORCH_ROCM_ARCH ({targets})"
            )
        elif rule is not None and rule.hip is None:
            tail = rule.note or "hipcc does not take it"
        elif rule is not None and rule.hip:
            tail = f"hipcc spells it {rule.hip.format(value=found.value or '')}"
        else:
            tail = "hipcc does not take it, and a ROCm build needs nothing in its place"
        self.port.finding("HP502", start, words[last][2], word.partition("=")[0], f"{head}: {tail}")
        return last

    # -- architecture lists in os.environ -------------------------------------------------------

    def _arch_variables(self) -> None:
        variables = self.port.rules.arch_variables
        for node in ast.walk(self.tree):
            found = _environment_write(node) if isinstance(node, (ast.Assign, ast.Expr)) else None
            if found is None:
                continue
            key, value, writer = found
            name = str(key.value)
            variable = variables.get(name)
            if variable is None or not variable.environment or variable.hip in self.port.text:
                continue  # not a GPU target list, or migrated already
            targets = ";".join(self.port.settings.offload_arch)
            if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
                self.port.finding(
                    "HP503",
                    self.offset(node),
                    self.end(node),
                    name,
                    f"the CUDA architectures come from an expression: {variable.note}; set it to AMD "
                    f"targets ({targets}) for a ROCm build",
                )
                continue
            quote = self.port.text[self.offset(value)]
            quote = quote if quote in "'\"" else '"'
            written = self.port.text[self.offset(writer) : self.end(writer)]
            hip_key, hip_value = f"{quote}{variable.hip}{quote}", f"{quote}{targets}{quote}"
            statement = (
                f"{written}[{hip_key}] = {hip_value}"
                if isinstance(node, ast.Assign)
                else (f"{written}({hip_key}, {hip_value})")
            )
            # beside the CUDA one, which the same file still needs for NVIDIA
            indent = self.port.line_indent(self.offset(node))
            self.port.insert(self.end(node), f"{self.port.newline()}{indent}{statement}")


def _environment_write(node: ast.Assign | ast.Expr) -> tuple[ast.Constant, ast.expr, ast.expr] | None:
    """(the variable's name, its value, what writes it) for os.environ["X"] = v (os.environ) and
    os.environ.setdefault("X", v) or os.putenv("X", v) (the function called); None for anything else."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        if isinstance(target, ast.Subscript) and _is_environ(target.value) and _is_string(target.slice):
            return target.slice, node.value, target.value  # type: ignore[return-value]  # a str Constant
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        call, func = node.value, node.value.func
        writes = isinstance(func, ast.Attribute) and (
            (func.attr == "setdefault" and _is_environ(func.value)) or func.attr == "putenv"
        )
        if writes and len(call.args) == 2 and _is_string(call.args[0]):
            return call.args[0], call.args[1], func  # type: ignore[return-value]  # a str Constant
    return None


def _is_string(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _is_environ(node: ast.expr) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "environ") or (
        isinstance(node, ast.Name) and node.id == "environ"
    )


def _is_key(node: ast.expr, key: str | None) -> bool:
    return isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == key


def _called_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None
