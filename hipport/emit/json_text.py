"""json.dumps(value, indent=2), byte for byte, at a fraction of its cost on a large report.

With an indent, the standard library encodes in Python, one generator step per
value: most of the time a 10,000-file report took to write. Its C encoder
does no indenting, but any item separator will do, and a container that holds
no container is one line break and indent between items. So containers of
containers are laid out here, and every innermost one goes to the C encoder
whole, with ",\\n" and the indent of its items as the separator.
"""

from __future__ import annotations

import json
from itertools import repeat
from collections.abc import Callable, Iterable
from json.encoder import c_make_encoder, encode_basestring_ascii  # type: ignore[attr-defined]  # C-only, untyped

_CONTAINERS = (dict, list, tuple)
_STEP = "  "


def dumps_indented(value) -> str:
    """json.dumps(value, indent=2)."""
    if c_make_encoder is None:  # a Python without the C accelerator
        return json.dumps(value, indent=2)
    parts: list[str] = []
    _encode(value, "", parts)
    return "".join(parts)


def _encode(value, indent: str, parts: list[str]) -> None:
    if isinstance(value, dict):
        if not value:
            parts.append("{}")
            return
        inner = indent + _STEP
        if not any(map(isinstance, value.values(), repeat(_CONTAINERS))):
            parts.append("{\n" + inner + _flat(value, inner)[1:-1] + "\n" + indent + "}")
            return
        parts.append("{\n" + inner)
        separator = ",\n" + inner
        for i, (key, item) in enumerate(value.items()):
            if i:
                parts.append(separator)
            # The key as a one-entry object encodes it (and converts a non-string key) as json does.
            parts.append(encode_basestring_ascii(key) + ": " if isinstance(key, str) else _flat({key: 0}, "")[1:-2])
            if isinstance(item, _CONTAINERS):
                _encode(item, inner, parts)
            else:
                parts.append(_flat(item, inner))
        parts.append("\n" + indent + "}")
    elif isinstance(value, (list, tuple)):
        if not value:
            parts.append("[]")
            return
        inner = indent + _STEP
        if not any(map(isinstance, value, repeat(_CONTAINERS))):
            parts.append("[\n" + inner + _flat(value, inner)[1:-1] + "\n" + indent + "]")
            return
        parts.append("[\n" + inner)
        separator = ",\n" + inner
        for i, item in enumerate(value):
            if i:
                parts.append(separator)
            if isinstance(item, _CONTAINERS):
                _encode(item, inner, parts)
            else:
                parts.append(_flat(item, inner))
        parts.append("\n" + indent + "]")
    else:
        parts.append(_flat(value, indent))


_ENCODERS: dict[str, Callable[[object, int], Iterable[str]]] = {}


def _flat(value, inner: str) -> str:
    """value by the C encoder, its items (if it has any) separated by a break and inner."""
    encoder = _ENCODERS.get(inner)
    if encoder is None:
        # The arguments json.JSONEncoder passes for json.dumps's defaults, less the indent.
        encoder = _ENCODERS[inner] = c_make_encoder(
            None, _unserializable, encode_basestring_ascii, None, ": ", ",\n" + inner, False, False, True
        )
    return "".join(encoder(value, 0))


def _unserializable(value):
    raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")
