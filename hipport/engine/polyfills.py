"""Where a polyfill's definition goes: before the top-level declaration of its first use.

A `polyfill` rule (rules/device-polyfills.toml) renames calls of a device function HIP lacks to a
function the port defines in the file. The definition goes once per file, before the outermost
declaration that holds the first call, so it follows the includes that file has there and precedes
every use; a guard macro keeps two files of one translation unit from defining it twice. A lint
whose fix names a macro (`fix_definition`: rules/driver-vmm.toml's field spelled per platform)
places its definition the same way, guarded by the macro's name and _DEFINED.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def polyfill_edits(
    syntax_root: Callable[[], Any], first_uses: dict[str, tuple[int, str]], newline: bytes
) -> list[tuple[int, int, bytes]]:
    """One insertion per polyfill used: {hip name: (offset of its first use, definition)}."""
    if not first_uses:
        return []
    root = syntax_root()
    by_offset: dict[int, list[bytes]] = {}
    for hip, (offset, definition) in sorted(first_uses.items(), key=lambda item: item[1][0]):
        at = _top_level_start(root, offset)
        by_offset.setdefault(at, []).append(guarded_block(guard_macro(hip), definition, newline))
    return [(at, at, b"".join(texts)) for at, texts in by_offset.items()]


def guarded_block(guard: str, body: str, newline: bytes) -> bytes:
    """body inside `#ifndef guard` / `#define guard` / `#endif  // guard`, in the file's newlines;
    the closing comment is what a port ported again looks for (in_polyfill)."""
    text = f"#ifndef {guard}\n#define {guard}\n{body.strip()}\n#endif  // {guard}\n"
    return text.replace("\n", newline.decode("ascii")).encode("utf-8")


def guard_macro(hip: str) -> str:
    if hip.isupper():  # a macro the definition defines itself: its guard is another name
        return hip + "_DEFINED"
    return hip.upper() if hip.upper().startswith("HIPPORT_") else "HIPPORT_" + hip.upper()


def in_polyfill(source: bytes, hip: str, offset: int) -> bool:
    """The offset is inside the definition a port wrote (a port ported again), whose call of CUDA's
    function, on NVIDIA, is meant."""
    guard = guard_macro(hip).encode("ascii")
    start = source.rfind(b"#define " + guard, 0, offset)
    return start >= 0 and source.find(b"#endif  // " + guard, start) > offset


def _top_level_start(root, offset: int) -> int:
    node = root.descendant_for_byte_range(offset, offset)
    while node is not None and node.parent is not None and node.parent.parent is not None:
        node = node.parent
    if node is None or node.parent is None:
        return offset  # no tree to place it by: before the use itself is still before every later use
    return node.start_byte
