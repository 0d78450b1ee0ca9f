"""`k<<<g, b, shmem, stream>>>(args)` to `hipLaunchKernelGGL(k, dim3(g), dim3(b), shmem, stream, args)`.

Only the bytes between the pieces are replaced, so edits inside the kernel
name, the configuration and the arguments never overlap this rewrite.
"""
from __future__ import annotations

from hipport.diagnostics import Edit
from hipport.parse.sites import LaunchSite


def launch_edits(launch: LaunchSite) -> list[Edit] | None:
    config = launch.config
    if not 2 <= len(config) <= 4:
        return None
    kernel_start, kernel_end = launch.kernel
    template = launch.kernel_is_template
    grid, block = config[0], config[1]
    extra = config[2:]
    comma_args = b", " if launch.arguments else b""
    edits = [
        Edit(kernel_start, kernel_start, b"hipLaunchKernelGGL(" + (b"HIP_KERNEL_NAME(" if template else b"")),
        Edit(kernel_end, grid[0], (b")" if template else b"") + b", dim3("),
        Edit(grid[1], block[0], b"), dim3("),
    ]
    after_config = launch.args_open + 1  # through the '(' of the argument list
    if not extra:
        edits.append(Edit(block[1], after_config, b"), 0, 0" + comma_args))
    elif len(extra) == 1:
        shmem = extra[0]
        edits.append(Edit(block[1], shmem[0], b"), "))
        edits.append(Edit(shmem[1], after_config, b", 0" + comma_args))
    else:
        shmem, stream = extra
        edits.append(Edit(block[1], shmem[0], b"), "))
        edits.append(Edit(shmem[1], stream[0], b", "))
        edits.append(Edit(stream[1], after_config, comma_args))
    return edits
