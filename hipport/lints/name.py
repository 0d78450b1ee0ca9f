"""'name': a use of one of NAMES, or of a name matching PATTERN; with DEVICE_CODE, only inside a
__global__ or __device__ (not __host__ __device__) function."""

from __future__ import annotations

from hipport.lints.context import NAMESPACE, USE, Context, Site, SyntaxPath
from hipport.lints.hit import LintHit
from hipport.lints.matcher import NAME, Matcher
from hipport.lints.rule import StructuralLint


def match(
    ctx: Context, rule: StructuralLint, path: SyntaxPath, depth: int, start: int, end: int, name: str, site: Site | None
) -> LintHit | None:
    if site is None or site.role not in (USE, NAMESPACE):
        return None
    if rule.device_code and not ctx.in_device_only_function(path, depth):
        return None
    return LintHit(rule.index, start, end, name)


def check(entry: dict) -> tuple[str, str] | None:
    if not (entry.get("names") or entry.get("pattern")):
        return "match", "a 'name' lint needs 'names' or 'pattern'"
    return None


MATCHER = Matcher(
    "name",
    NAME,
    frozenset(),
    frozenset({"names", "pattern", "device_code"}),
    run=match,
    check=check,
    own_name_silences=True,
)
