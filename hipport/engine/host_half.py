"""Half precision on the host: a template instantiated with __half (or half) from host code.

CUDA's cuda_fp16.hpp gives __half its arithmetic and comparison operators on host and device;
HIP's amd_hip_fp16.h declares them __device__ only. A host template that computes with its
type argument (a CPU reference check, say) then compiles with nvcc and not with hipcc for AMD.
hipport cannot see the template's body from the call, so the call is a warning: the unit is not
clean until a person has looked. The bfloat16 types' operators are host and device in HIP.
"""

from __future__ import annotations

import re

from hipport.parse.lines import COMMENT_STRING, enclosing_heads

_SKIP = re.compile(COMMENT_STRING, re.S)
# name<..., half, ...>( : a call of a function template with a half type argument
_CALL = re.compile(rb"\b([A-Za-z_]\w*)\s*<(?=[^<>;(){}]*\b(?:__half|half)\b)[^<>;(){}]*>\s*\(")
_NOT_CALLS = frozenset({b"static_cast", b"reinterpret_cast", b"const_cast", b"dynamic_cast", b"sizeof"})
_DEVICE = re.compile(rb"__global__|__device__")


def host_half_findings(source: bytes) -> list[tuple[str, int, int, str, str]]:
    if b"half" not in source:
        return []
    skipped = [m.span() for m in _SKIP.finditer(source)]
    found = []
    for m in _CALL.finditer(source):
        name = m.group(1)
        if name in _NOT_CALLS or any(a <= m.start() < b for a, b in skipped) or _in_device_function(source, m.start()):
            continue
        text = m.group().rstrip(b"(").strip().decode("utf-8", "replace")
        found.append(
            (
                "HP438",
                m.start(),
                m.end() - 1,
                text,
                f"'{text}' runs a template with a half-precision type from host code: HIP's __half operators "
                "(+, *, <...) are __device__ only on AMD, where CUDA's are host and device, so host code in it "
                "that computes with __half does not compile; compute in float there (__half2float, __float2half)",
            )
        )
        if len(found) >= 5:
            break
    return found


def _in_device_function(source: bytes, at: int) -> bool:
    """Inside a function whose signature says __global__ or __device__."""
    return any(_DEVICE.search(head) for head in enclosing_heads(source, at))
