"""CUB block primitives whose hipCUB port needs a block size that is a multiple of the wavefront.

`block_primitive` rules (rules/cub-block-size.toml) name a primitive (BlockLoad), which of its
template arguments are the block's dimensions and its algorithm, and the algorithms rocPRIM
static_asserts a wavefront multiple for. A use with one of those algorithms gets the rule's finding
when its block size is a constant that is not such a multiple. A dimension is resolved from the
file's text: an integer literal, a named integer constant (#define, const), or a parameter of the
enclosing template, through the template arguments the file instantiates that template with (a
kernel launched from a test function instantiated with 32 threads is followed back to the 32).

A rule with a `fallback` (the algorithm that takes any size) is a fix instead: the algorithm argument
becomes `(X * Y * Z) % wavefront == 0 ? ALGORITHM : FALLBACK`, a constant expression each
instantiation evaluates, so sizes that are multiples keep the warp transpose and the others compile;
the data arrangement the primitive gives the threads is the same either way (CUB's documentation).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from hipport.parse.scan import integer_constants
from hipport.ruleset.lintrules import int_value
from hipport.ruleset.model import BlockPrimitive

_COMMENT = re.compile(rb"//[^\n]*|/\*.*?(?:\*/|\Z)", re.S)
_TEMPLATE = re.compile(rb"\btemplate\s*<")
_NAMED = re.compile(rb"\s*(?:(?:struct|class)\s+([A-Za-z_]\w*)|[^;{(]*?([A-Za-z_]\w*)\s*\()")  # after template <...>
_DEPTH = 3  # template parameters followed back through at most this many instantiations


def block_size_findings(
    source: bytes, primitives: dict[str, BlockPrimitive], namespaces: dict[str, str]
) -> tuple[list[tuple[str, int, int, str, str, bool]], list[tuple[int, int, bytes]]]:
    """(code, start, end, name, message, fixed) for each use of a primitive whose block size is
    wrong, and the insertions that fix those with a fallback; namespaces: CUDA -> HIP (cub -> hipcub)."""
    if not primitives or b"Block" not in source:
        return [], []
    text = _COMMENT.sub(lambda m: re.sub(rb"[^\n]", b" ", m.group()), source)  # same offsets and lines
    constants = {name: value for name, (value, _, _) in integer_constants(text).items()}
    names = b"|".join(re.escape(n.encode("ascii")) for n in sorted(primitives))
    found, edits = [], []
    for m in re.finditer(rb"(?<![\w])(" + names + rb")\s*<", text):
        name = m.group(1).decode("ascii")
        primitive = primitives[name]
        wavefront = primitive.wavefront
        spans = _argument_spans(text, m.end() - 1)
        arguments = [text[start:end] for start, end in spans] if spans is not None else None
        if arguments is None or len(arguments) <= max(primitive.dimensions[0], primitive.algorithm):
            continue
        algorithm = arguments[primitive.algorithm].decode("utf-8", "replace").split("::")[-1].strip()
        if algorithm not in primitive.algorithms:
            continue
        bad = _bad_size(text, m.start(), arguments, primitive.dimensions, constants, wavefront)
        if bad is not None:
            size, at = bad
            # The instantiation that gave the size is where the finding goes: the compiler's notes
            # name it, and it is what to change; the primitive's own line when the size is in place.
            where = f" through this instantiation (the {name} at line {_line_of(text, m.start())})" if at else ""
            words = {"name": name, "algorithm": algorithm, "size": size, "where": where, "wavefront": wavefront}
            start, end = (at, _name_end(text, at)) if at is not None else (m.start(1), m.end(1))
            assert spans is not None
            fix = _fallback(text, spans, primitive, algorithm, namespaces)
            if fix:
                edits.extend(fix)
                words["fallback"] = primitive.fallback or ""
            message = (primitive.fixed_message if fix and primitive.fixed_message else primitive.message).format(
                **words
            )
            found.append((primitive.code, start, end, name, message, bool(fix)))
    return found, edits


def _fallback(text: bytes, spans, primitive: BlockPrimitive, algorithm: str, namespaces: dict[str, str]):
    """The two insertions around the algorithm argument that choose the fallback by block size."""
    if primitive.fallback is None:
        return []
    start, end = _stripped(text, spans[primitive.algorithm])
    written = text[start:end].decode("utf-8")
    fallback = re.sub(r"\b" + re.escape(algorithm) + r"\b", primitive.fallback, written)
    fallback = re.sub(r"\b(\w+)::", lambda q: namespaces.get(q.group(1), q.group(1)) + "::", fallback)
    dims = [
        "(" + text[slice(*_stripped(text, spans[i]))].decode("utf-8") + ")"
        for i in primitive.dimensions
        if 0 <= i < len(spans)
    ]
    size = dims[0] if len(dims) == 1 else "(" + " * ".join(dims) + ")"
    before = f"({size} % {primitive.wavefront} == 0 ? ".encode()
    return [(start, start, before), (end, end, f" : {fallback})".encode())]


def _stripped(text: bytes, span: tuple[int, int]) -> tuple[int, int]:
    start, end = span
    while start < end and text[start : start + 1].isspace():
        start += 1
    while end > start and text[end - 1 : end].isspace():
        end -= 1
    return start, end


def _bad_size(text: bytes, at: int, arguments: list[bytes], dims: tuple[int, int, int], constants, wavefront: int):
    """(size, offset of the instantiation that gave it or None) for the first block size that is
    not a multiple of the wavefront; None when every resolved size is one or none is known."""
    options: list[list[tuple[int, int | None]]] = []
    for index in dims:
        if index < 0 or index >= len(arguments):
            options.append([(1, None)])
            continue
        values = list(_values(text, at, arguments[index].strip(), constants, _DEPTH))
        if not values:
            return None  # a dimension hipport cannot resolve: no finding rather than a guess
        options.append(values)
    for vx, wx in options[0]:
        for vy, wy in options[1]:
            for vz, wz in options[2]:
                size = vx * vy * vz
                if size % wavefront:
                    return size, next((w for w in (wx, wy, wz) if w is not None), None)
    return None


def _values(text: bytes, at: int, spelled: bytes, constants, depth: int) -> Iterator[tuple[int, int | None]]:
    """The integer values the template argument spelled at offset at may have, each with the
    offset of the instantiation it came from (None for a literal or constant in place)."""
    value = int_value(spelled.decode("utf-8", "replace"))
    if value is not None:
        yield value, None
        return
    name = spelled.decode("utf-8", "replace")
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        return
    if name in constants:
        yield constants[name], None
        return
    if depth == 0:
        return
    owner = _template_owning(text, at, name)
    if owner is None:
        return
    template, position = owner
    for m in re.finditer(rb"(?<![\w])" + re.escape(template.encode("ascii")) + rb"\s*<", text):
        arguments = _arguments(text, m.end() - 1)
        if arguments is None or position >= len(arguments) or _in_template_header(text, m.start()):
            continue
        for value, origin in _values(text, m.start(), arguments[position].strip(), constants, depth - 1):
            yield value, origin if origin is not None else m.start()


def _template_owning(text: bytes, at: int, parameter: str) -> tuple[str, int] | None:
    """(template name, parameter index) of the nearest template before at that declares parameter."""
    for m in reversed(list(_TEMPLATE.finditer(text, 0, at))):
        arguments = _arguments(text, m.end() - 1)
        if arguments is None:
            continue
        for index, declared in enumerate(arguments):
            words = re.findall(rb"[A-Za-z_]\w*", declared.split(b"=")[0])
            if words and words[-1].decode("ascii") == parameter and len(words) > 1:
                close = _closing(text, m.end() - 1)
                named = _NAMED.match(text, close + 1) if close >= 0 else None
                if named is None:
                    return None
                return (named.group(1) or named.group(2)).decode("ascii"), index
    return None


def _name_end(text: bytes, at: int) -> int:
    m = re.match(rb"[A-Za-z_]\w*", text[at : at + 200])
    return at + (m.end() if m else 1)


def _line_of(text: bytes, at: int) -> int:
    return text.count(b"\n", 0, at) + 1


def _in_template_header(text: bytes, at: int) -> bool:
    """Whether at is the `template <` of a declaration rather than a use (`BlockPrefixSumKernel<`)."""
    return text[max(0, at - 9) : at].rstrip().endswith(b"template")


def _closing(text: bytes, open_at: int) -> int:
    depth = 0
    for i in range(open_at, len(text)):
        c = text[i : i + 1]
        if c in b"<([":
            depth += 1
        elif c in b">)]":
            depth -= 1
            if depth == 0:
                return i
        elif c in b";{}":
            return -1
    return -1


def _arguments(text: bytes, open_at: int) -> list[bytes] | None:
    """The comma-separated template arguments of the `<` at open_at (nested <>, () and [] kept whole)."""
    spans = _argument_spans(text, open_at)
    return None if spans is None else [text[start:end] for start, end in spans]


def _argument_spans(text: bytes, open_at: int) -> list[tuple[int, int]] | None:
    close = _closing(text, open_at)
    if close < 0:
        return None
    spans, depth, start = [], 0, open_at + 1
    for i in range(open_at + 1, close):
        c = text[i : i + 1]
        if c in b"<([":
            depth += 1
        elif c in b">)]":
            depth -= 1
        elif c == b"," and depth == 0:
            spans.append((start, i))
            start = i + 1
    spans.append((start, close))
    return spans
