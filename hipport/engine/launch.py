"""`k<<<g, b, shmem, stream>>>(args)` to `hipLaunchKernelGGL(k, dim3(g), dim3(b), shmem, stream, args)`.

Only the launch's punctuation is replaced (`<<<`, the commas of the
configuration, `>>>` and the argument list's `(`), with the spaces and tabs
around it, so comments and line breaks inside a launch survive, and edits
inside the kernel name, the configuration and the arguments never overlap
this rewrite.
"""

from __future__ import annotations

import re

from hipport.diagnostics import Edit
from hipport.parse.sites import LaunchSite
from hipport.engine.punctuation import punctuation_spans


def launch_edits(launch: LaunchSite, source: bytes) -> list[Edit] | None:
    """The edits of the rewrite; None when the launch is too unusual to rewrite safely."""
    config = launch.config
    if not 2 <= len(config) <= 4:
        return None
    kernel_start, kernel_end = launch.kernel
    grid, block = config[0], config[1]
    extra = config[2:]
    after_config = launch.args_open + 1  # through the '(' of the argument list
    open_args = b", " if launch.arguments else b""
    if launch.arguments and _LINE_BREAK.match(source, launch.args_open + 1):
        open_args = b","  # the arguments start on the next line: no blank at the end of this one
    # A configuration written as dim3(...) already is not wrapped again.
    grid_open, grid_close = (b"", b"") if _is_dim3(source, grid) else (b"dim3(", b")")
    block_open, block_close = (b"", b"") if _is_dim3(source, block) else (b"dim3(", b")")
    # (start, end, punctuation expected there, its replacements; None keeps it)
    gaps: list[tuple[int, int, list[bytes], list[bytes | None]]] = [
        (kernel_end, grid[0], [b"<<<"], [(b")" if launch.kernel_is_template else b"") + b", " + grid_open]),
        (grid[1], block[0], [b","], [grid_close + b", " + block_open]),
    ]
    if not extra:
        gaps.append((block[1], after_config, [b">>>", b"("], [block_close + b", 0, 0", open_args]))
    elif len(extra) == 1:
        shmem = extra[0]
        gaps += [
            (block[1], shmem[0], [b","], [block_close + b", "]),
            (shmem[1], after_config, [b">>>", b"("], [b", 0", open_args]),
        ]
    else:
        shmem, stream = extra
        gaps += [
            (block[1], shmem[0], [b","], [block_close + b", "]),
            (shmem[1], stream[0], [b","], [None]),
            (stream[1], after_config, [b">>>", b"("], [b"", open_args]),
        ]
    edits = [
        Edit(
            kernel_start,
            kernel_start,
            b"hipLaunchKernelGGL(" + (b"HIP_KERNEL_NAME(" if launch.kernel_is_template else b""),
        )
    ]
    for start, end, tokens, replacements in gaps:
        spans = punctuation_spans(source, start, end, tokens)
        if spans is None:
            return None
        for (token_start, token_end), text in zip(spans, replacements):
            if text is not None:
                edits.append(Edit(token_start, token_end, text))
    edits.extend(_inner_blanks(launch, source))
    return edits


def _inner_blanks(launch: LaunchSite, source: bytes) -> list[Edit]:
    """Deletions of the spaces and tabs just inside the argument list's parentheses: `k<<<g, b>>>( a )`
    becomes `hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, 0, a)`, not `0, 0,  a )`. Line breaks and
    comments there are layout, and stay."""
    close = launch.end - 1
    if source[close : close + 1] != b")":
        return []
    first = launch.arguments[0][0] if launch.arguments else close
    last = launch.arguments[-1][1] if launch.arguments else close
    gaps = [(launch.args_open + 1, first)] + ([(last, close)] if launch.arguments else [])
    return [Edit(a, b, b"") for a, b in gaps if a < b and _BLANKS.fullmatch(source[a:b])]


_BLANKS = re.compile(rb"[ \t]+")
_LINE_BREAK = re.compile(rb"[ \t]*\r?\n")


def _is_dim3(source: bytes, span: tuple[int, int]) -> bool:
    """Whether the configuration expression is one dim3(...) or dim3{...} construction."""
    text = source[span[0] : span[1]]
    m = re.match(rb"dim3\s*([({])", text)
    if m is None:
        return False
    opener = m.group(1)
    closer = b")" if opener == b"(" else b"}"
    depth = 0
    for i in range(m.start(1), len(text)):
        c = text[i : i + 1]
        if c == opener:
            depth += 1
        elif c == closer:
            depth -= 1
            if depth == 0:
                return i == len(text) - 1
    return False
