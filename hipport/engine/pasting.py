"""Names a macro assembles with ##, as a precise backend reports them.

`#define RT(fn) cuda##fn` spells no CUDA name, yet RT(Malloc) calls cudaMalloc.
The literal piece (`cuda`) is the only byte range that can be rewritten, and
only when every name the expansions produced maps the same way: cudaMalloc ->
hipMalloc and cudaFree -> hipFree both turn `cuda` into `hip`.
"""

from __future__ import annotations

from hipport.parse.sites import PastedNameSite
from hipport.ruleset.model import RuleSet


def pasted_piece(site: PastedNameSite, rules: RuleSet, roc: bool = False) -> str | None:
    """The replacement for site.piece, or None when the names do not agree on one."""
    replacements = set()
    for name in site.names:
        rule = rules.names.get(name)
        target = (rule.roc if roc and rule.roc else rule.hip) if rule is not None else None
        if target is None:
            return None
        if name.startswith(site.piece):
            rest = name[len(site.piece) :]
            if not target.endswith(rest):
                return None
            replacements.add(target[: len(target) - len(rest)])
        elif name.endswith(site.piece):
            rest = name[: len(name) - len(site.piece)]
            if not target.startswith(rest):
                return None
            replacements.add(target[len(rest) :])
        else:
            return None
    if len(replacements) != 1:
        return None
    piece = replacements.pop()
    return piece or None  # an empty piece would leave a dangling ##
