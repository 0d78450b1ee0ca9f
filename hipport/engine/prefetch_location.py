"""CUDA 13's cudaMemPrefetchAsync(ptr, count, cudaMemLocation location, unsigned flags).

CUDA 13 replaced the device number of cudaMemPrefetchAsync(ptr, count, device, stream) with a
location struct and flags (which must be 0); HIP keeps the device form. A four-argument call
has the same count either way, so the port tells them apart by the third argument: a variable
the file declares as a cudaMemLocation becomes the device it names (hipCpuDeviceId for a host
location, as the old API spelled it), and the flags become the default stream. A location
written any other way (a compound literal, a member) is reported for a person to rewrite.
"""

from __future__ import annotations

import re

from hipport.diagnostics import Edit
from hipport.parse.sites import NameSite

CALL = "cudaMemPrefetchAsync"
_NAME = re.compile(rb"\s*([A-Za-z_]\w*)\s*\Z")


def prefetch_plan(site: NameSite, source: bytes) -> tuple[list[Edit], str | None]:
    """Edits for a location-form call, or the key of HP105's message (rules/codes.toml) for one the
    port cannot rewrite."""
    arguments = site.arguments
    if arguments is None or len(arguments) != 4:
        return [], None
    text = source[slice(*arguments[2])]
    name = _NAME.match(text)
    if name is not None and _declared_location(name.group(1), source):
        var = name.group(1)
        device = var + b".type == hipMemLocationTypeDevice ? " + var + b".id : hipCpuDeviceId"
        return [Edit(*arguments[2], device), Edit(*arguments[3], b"0")], None
    if b"MemLocation" in text or b"{" in text or b"." in text:
        return [], "prefetch-location"
    return [], None


def _declared_location(name: bytes, source: bytes) -> bool:
    return (
        re.search(rb"\b(?:struct\s+)?cudaMemLocation\s+(?:\w+\s*(?:=[^;,]*)?,\s*)*" + re.escape(name) + rb"\b", source)
        is not None
    )
