"""'asm': an asm statement (keywords in NAMES) whose text matches TEXT, or any asm inside device code
when DEVICE_CODE is true."""

from __future__ import annotations

import re

from hipport.lints.context import Context, Site, SyntaxPath
from hipport.lints.hit import LintHit
from hipport.lints.matcher import NAME, Matcher
from hipport.lints.rule import StructuralLint

_ASM_TEXT = re.compile(rb'\s*(?:(?:volatile|__volatile__|inline|goto)\s*)*\(\s*((?:"(?:\\.|[^"\\\n])*"\s*)+)')


def match(
    ctx: Context, rule: StructuralLint, path: SyntaxPath, depth: int, start: int, end: int, name: str, site: Site | None
) -> LintHit | None:
    text = None
    if path.type_at(depth) == name and path.type_at(depth - 1) == "gnu_asm_expression":
        code = path.at(depth - 1).child_by_field_name("assembly_code")
        text = ctx.text(code) if code is not None else ""
    else:
        m = _ASM_TEXT.match(ctx.source, end)
        if m is None:
            return None
        text = m.group(1).decode("utf-8", "replace")
    assert rule.text is not None  # the schema requires text for this match kind
    found = re.search(rule.text, text)
    if found is not None or (rule.device_code and ctx.in_device_function(path, depth)):
        # Named by the PTX it contains, which says more than the keyword.
        return LintHit(rule.index, start, end, found.group().strip() if found is not None else name)
    return None


MATCHER = Matcher("asm", NAME, frozenset({"names", "text"}), frozenset({"device_code"}), run=match)
