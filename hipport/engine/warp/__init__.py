"""Version-gated call rewrites ([[rewrite]] rules): the warp *_sync intrinsics.

HIP 6.2 added CUDA's masked warp intrinsics behind HIP_ENABLE_WARP_SYNC_BUILTINS
(on by default from HIP 7.0, which also added __syncwarp and __reduce_*_sync);
older HIP has only the maskless forms. For an older target the call becomes the
older form its rule describes, without the mask; for a newer one it stays, and
HIP's 64-bit mask and the enabling macro become findings. An older form only one
platform's HIP declares (`older_platform`: the maskless votes, AMD's) is also HP441
when the port must build for the other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from hipport.diagnostics import Edit
from hipport.parse.sites import NameSite
from hipport.ruleset.lintrules import RewriteRule, int_value
from hipport.engine.punctuation import punctuation_spans
from hipport.engine.warp.enable import full_mask_mark
from hipport.engine.warp.full_mask import FULL_WAVEFRONT, full_mask_edit, is_full_32
from hipport.versions import Version, format_version, parse_version

_SIDE_EFFECT = re.compile(r"\+\+|--|(?<![=!<>])=(?!=)")
_WIDE_CALL = re.compile(r"[\s(]*(?:__activemask|__ballot(?:64|_sync)?|__match_(?:any|all)_sync)\s*\(")
_WIDE_CAST = re.compile(
    r"\(\s*(?:unsigned\s+long\s+long|uint64_t|unsigned\s+long)\s*\)|"
    r"static_cast\s*<\s*(?:unsigned\s+long\s+long|uint64_t|unsigned\s+long)\s*>"
)
_WIDE_TYPES = r"unsigned\s+long\s+long(?:\s+int)?|uint64_t|unsigned\s+long(?:\s+int)?|long\s+long|int64_t|size_t"
_NARROW_TYPES = r"unsigned\s+int|unsigned|uint32_t|int32_t|int"
_WIDE_BEFORE = re.compile(rf"(?<![\w])(?:{_WIDE_TYPES})\s+(?:const\s+)?\Z".encode())
_NARROW_BEFORE = re.compile(rf"(?<![\w])(?:{_NARROW_TYPES})\s+(?:const\s+)?\Z".encode())
_DEFINE_BEFORE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+\Z", re.M)
WIDEN_OPEN = b"(unsigned long long)("


@dataclass
class RewriteOutcome:
    edits: list[Edit] = field(default_factory=list)
    findings: list[tuple[str, int, int, str, str]] = field(default_factory=list)  # code, start, end, name, message
    kept: bool = False  # the call keeps its CUDA spelling (the target has it)
    dropped_argument: int | None = None
    needs_define: str | None = None  # the macro the target needs to declare the name
    mask_warning: tuple[int, int, str] | None = None  # argument span and message, if HIP may reject the mask


def plan_rewrite(
    site: NameSite,
    rule: RewriteRule,
    target: Version,
    source: bytes,
    platform: str = "both",
    elsewhere: frozenset[str] = frozenset(),
) -> RewriteOutcome:
    """elsewhere: the names and marks the file's project headers give it (hipport.project)."""
    words = {
        "cuda": rule.cuda,
        "hip": rule.hip,
        "older": rule.older or "",
        "since": _short(rule.since),
        "target": format_version(target),
        "define": rule.enable_define or "",
        "default_since": _short(rule.default_since) if rule.default_since else "",
    }
    out = RewriteOutcome()
    if target >= parse_version(rule.since):
        out.kept = True
        if rule.hip != rule.cuda:
            out.edits.append(Edit(site.start, site.end, rule.hip.encode("ascii")))
        if rule.enable_define and target < parse_version(rule.default_since):
            out.needs_define = rule.enable_define
        if rule.mask_argument is not None and site.arguments and len(site.arguments) > rule.mask_argument:
            _mask(out, rule, words["target"], site.arguments[rule.mask_argument], source, elsewhere)
        return out
    if rule.older is None:
        out.findings.append(("HP201", site.start, site.end, rule.cuda, rule.message.format(**words)))
        return out
    arguments = site.arguments
    dropped = drop = None
    if arguments is not None and rule.drop_argument is not None and rule.drop_argument < len(arguments):
        dropped = source[slice(*arguments[rule.drop_argument])].decode("utf-8", "replace")
        drop = _drop(source, arguments, rule.drop_argument)
    if (
        arguments is None
        or len(arguments) < rule.min_arguments
        or any(b"__VA_ARGS__" in source[a:b] for a, b in arguments)
        or (dropped is not None and (_SIDE_EFFECT.search(dropped) or drop is None))
    ):
        out.findings.append(
            (
                "HP105",
                site.start,
                site.end,
                rule.cuda,
                (
                    f"'{rule.cuda}' needs HIP {words['since']}, target is {words['target']}: rewrite this use by hand "
                    f"as '{rule.older}' (no mask argument); hipport cannot rewrite it here"
                ),
            )
        )
        return out
    out.edits.append(Edit(site.start, site.end, rule.older.encode("ascii")))
    if drop is not None:
        out.edits.extend(drop)
        out.dropped_argument = rule.drop_argument
    if rule.older_arguments and not arguments:
        paren = _open_paren(source, site.end)
        if paren is not None:
            out.edits.append(Edit(paren + 1, paren + 1, rule.older_arguments.encode("ascii")))
    out.findings.append(("HP211", site.start, site.end, rule.cuda, rule.message.format(**words)))
    if rule.older_platform is not None and rule.older_platform != platform:
        out.findings.append(("HP441", site.start, site.end, rule.cuda, _one_platform(rule, words)))
    return out


def _mask(
    out: RewriteOutcome, rule: RewriteRule, target: str, span: tuple[int, int], source: bytes, elsewhere: frozenset[str]
) -> None:
    """The mask argument of a kept call: widened where it means the whole warp, converted at the call
    where it is a 32-bit value (HP213 either way), HP213 alone where its width is not evident."""
    start, end = span
    text = source[start:end].decode("utf-8", "replace").strip()
    width = mask_width(text, source)
    widened = full_mask_edit(text, start, end, source) if width == 32 else None
    if widened is not None:
        out.edits.append(widened)
    elif width is None and full_mask_mark(text) in elsewhere:
        out.edits.append(Edit(start, end, FULL_WAVEFRONT))
        out.mask_warning = (
            start,
            end,
            (
                f"'{text}' is a project header's macro for 0xffffffff, lanes 0-31 only: a CDNA wavefront "
                f"has 64 lanes, and '{rule.hip}' in HIP {target} takes a 64-bit mask. The port "
                f"passes the whole wavefront, 0xffffffffffffffffull, here; the macro stays."
            ),
        )
    elif width != 64:
        problem = (
            f"'{text}' is a 32-bit value here"
            if width == 32
            else f"make sure '{text}' has a 64-bit type (unsigned long long)"
        )
        if width == 32 and not is_full_32(text, source):  # a full literal is HP401's to fix
            # it compiles once widened at the call; the lanes it names stay those of a 32-bit value
            out.edits += [Edit(start, start, WIDEN_OPEN), Edit(end, end, b")")]
            problem = (
                f"'{text}' is a 32-bit value here, so the port converts it to unsigned long long at the "
                f"call; it still names no lane above 31, so lanes 32-63 of a 64-lane wavefront that "
                f"reach this call are not in it, and HIP's mask check traps there at run time (unless "
                f"NDEBUG). Give the mask a 64-bit type"
            )
        out.mask_warning = (
            start,
            end,
            (
                f"'{rule.hip}' in HIP {target} takes a 64-bit lane mask and static_asserts its "
                f"type: {problem}. A full wavefront is 0xffffffffffffffffull (or __activemask())."
            ),
        )


def _one_platform(rule: RewriteRule, words: dict[str, str]) -> str:
    """HP441: the older form is declared by one platform's HIP only (older_platform), and the port
    must build for the other as well (--platform both, the default, or the other one)."""
    owner, other = ("AMD", "NVIDIA") if rule.older_platform == "amd" else ("NVIDIA", "AMD")
    return (
        f"'{rule.cuda}' becomes '{rule.older}' for HIP {words['target']}, which builds on {owner} only: on "
        f"{other} it is CUDA's legacy vote, which ptxas rejects for sm_70 and newer. Target HIP {words['since']} "
        f"or newer (--hip-version), where '{rule.hip}' exists on both platforms, or port with "
        f"--platform {rule.older_platform}."
    )


def mask_width(text: str, source: bytes, depth: int = 0) -> int | None:
    """64 or 32 when the mask expression's type is evident from this file, else None."""
    text = text.strip()
    if depth > 4:
        return None  # a chain (or a cycle) of #defines
    if text[:1].isdigit():
        value = int_value(text)
        suffix = text.lstrip("0123456789abcdefABCDEFxX'")
        if value is None:
            return None
        return 64 if "ll" in suffix.lower() or value > 0xFFFFFFFF else 32
    if re.fullmatch(r"~\s*0+[uU]?(?:ll|LL)[uU]?", text) or _WIDE_CALL.match(text) or _WIDE_CAST.match(text):
        return 64
    if re.fullmatch(r"-\s*1|~\s*0+[uU]?", text):
        return 32
    if re.fullmatch(r"[A-Za-z_]\w*", text):
        return _name_width(text, source, depth)
    return None


@lru_cache(maxsize=32)
def _name_width(name: str, source: bytes, depth: int) -> int | None:
    """The width a file gives name: its #define's value, or the type it is declared with."""
    # Each search starts at an occurrence of the name, so a big file costs one
    # pass per distinct mask name (and the cache makes that once per file).
    for m in re.finditer(rb"\b" + re.escape(name).encode() + rb"\b", source):
        before = source[max(0, m.start() - 48) : m.start()]
        define = _DEFINE_BEFORE.search(before)
        if define is not None:
            line_end = source.find(b"\n", m.end())
            value = source[m.end() : len(source) if line_end < 0 else line_end].decode("utf-8", "replace").strip()
            return mask_width(value.strip("()"), source, depth + 1) if value else None
        if _WIDE_BEFORE.search(before):
            return 64
        if _NARROW_BEFORE.search(before):
            return 32
    return None


def _drop(source: bytes, arguments: list[tuple[int, int]], index: int) -> list[Edit] | None:
    """Remove one argument and the comma that separates it from its neighbour.

    Comments and line breaks beside the comma stay. None when something other
    than a comma is between the arguments (tree-sitter recovering from an
    error), or when the argument itself holds a comment or a line break, which
    a rewrite must not delete.
    """
    start, end = arguments[index]
    if any(mark in source[start:end] for mark in (b"\n", b"\r", b"/*", b"//")):
        return None
    if index + 1 < len(arguments):
        comma = punctuation_spans(source, end, arguments[index + 1][0], [b","])
    elif index > 0:
        comma = punctuation_spans(source, arguments[index - 1][1], start, [b","])
    else:
        return [Edit(start, end, b"")]
    if comma is None:
        return None
    ((comma_start, comma_end),) = comma
    if comma_start == end:
        return [Edit(start, comma_end, b"")]
    if comma_end == start:
        return [Edit(comma_start, end, b"")]
    return [Edit(start, end, b""), Edit(comma_start, comma_end, b"")]


def _open_paren(source: bytes, offset: int) -> int | None:
    m = re.compile(rb"\s*\(").match(source, offset)
    return m.end() - 1 if m else None


def _short(version: str) -> str:
    return format_version(parse_version(version))
