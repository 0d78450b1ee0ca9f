"""Rewrites that let the HIP CPU Runtime build a port, applied to a temporary copy only.

What `convert` writes targets real HIP and never changes for the runtime's sake;
here, in the copy the run step builds, the runtime's gaps are bridged:
- `k<<<g, b>>>(...)` launches become hipLaunchKernelGGL (plain C++ has no chevrons);
- `extern __shared__ T a[];` becomes HIP_DYNAMIC_SHARED(T, a), the runtime's spelling
  (it defines __shared__ as thread_local, and an extern thread_local array never links);
- `__align__(n)` (CUDA's attribute, kept by HIP) becomes alignas(n).
Headers of HIP libraries the runtime does not have make a program NO-RUNTIME.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_DYNAMIC_SHARED = re.compile(
    rb"\bextern\s+__shared__\s+(?:__align__\s*\((?:[^()]|\([^()]*\))*\)\s*)?"
    rb"(?P<type>(?:const\s+|volatile\s+|unsigned\s+|signed\s+|long\s+|short\s+)*[A-Za-z_][\w:]*)\s+"
    rb"(?:__align__\s*\((?:[^()]|\([^()]*\))*\)\s*)?(?P<name>[A-Za-z_]\w*)\s*\[\s*\]\s*;"
)
_ALIGN = re.compile(rb"\b__align__\s*\(")
_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"]+)[>"]', re.M)
# Headers of HIP and ROCm libraries: hipBLAS, hipRAND, hipCUB, rocPRIM, ... (hip/ is the runtime's own).
_LIBRARY_HEADER = re.compile(r"^(?:hip/|hip[a-z]+[/.]|roc[a-z]+[/.]|rocm)")


@dataclass
class Bridged:
    source: bytes
    changes: list[str] = field(default_factory=list)  # what the bridge did, for --verbose output
    missing: list[str] = field(default_factory=list)  # library headers the runtime lacks


def bridge_source(source: bytes, rules, options, available: frozenset[str]) -> Bridged:
    """source rewritten for the CPU runtime; options is the port's (its launch syntax becomes hip)."""
    from dataclasses import replace

    from hipport.engine.edits import apply_edits, order_edits
    from hipport.engine.port import port_source

    changes = []
    missing = [
        h.decode()
        for h in _INCLUDE.findall(source)
        if _LIBRARY_HEADER.match(h.decode()) and h.decode() not in available
    ]
    if b"<<<" in source:
        # Only the launch rewrite's own edits: whatever else a port of this file would still
        # change (a name left for a newer HIP) stays as convert wrote it.
        kept = port_source(source, rules, replace(options, launch_syntax="keep"), path="<run>").edits
        rewritten = port_source(source, rules, replace(options, launch_syntax="hip"), path="<run>").edits
        already = {(e.start, e.end, e.text) for e in kept}
        launches = [e for e in rewritten if (e.start, e.end, e.text) not in already]
        if launches:
            changes.append("launches rewritten to hipLaunchKernelGGL")
            source = apply_edits(source, order_edits(launches)[0])

    def dynamic(m: re.Match) -> bytes:
        if _brace_depth(m.string, m.start()) == 0:
            # The runtime's macro declares a local: at file scope there is no bridge.
            changes.append(f"extern __shared__ {m['name'].decode()}[] at file scope: not bridged")
            return m.group()
        changes.append(f"extern __shared__ {m['name'].decode()}[] as HIP_DYNAMIC_SHARED")
        return b"HIP_DYNAMIC_SHARED(" + b" ".join(m["type"].split()) + b", " + m["name"] + b")"

    source = _DYNAMIC_SHARED.sub(dynamic, source)
    source, aligned = _ALIGN.subn(b"alignas(", source)
    if aligned:
        changes.append("__align__ as alignas")
    return Bridged(source, changes, missing)


_SKIPPED = re.compile(rb'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|[{}]', re.S)


def _brace_depth(source: bytes, offset: int) -> int:
    """How many braces are open at offset, outside comments and literals."""
    depth = 0
    for m in _SKIPPED.finditer(source, 0, offset):
        token = m.group()
        depth += token == b"{"
        depth -= token == b"}"
    return max(depth, 0)
