"""Apply [[argument_rewrite]] rules (hipport/ruleset/argrules.py) to the calls of one file.

Choosing a rule happens when the engine meets the callee; writing the new
argument list waits until every other edit of the file is known, because the
names inside the arguments are renamed by their own edits. The rewrite takes
those edits in (each argument is written as the port would write it), replaces
the argument list once, and trims the replacement to the bytes that change, so
what the rule does not touch (spacing, comments inside an argument) stays.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from hipport.diagnostics import Edit
from hipport.engine.declared_type import declared_value
from hipport.engine.edits import apply_edits, order_edits
from hipport.parse.sites import NameSite
from hipport.ruleset.argrules import ArgumentRule, template_pieces
from hipport.versions import Version, parse_version

_SIDE_EFFECT = re.compile(rb"\+\+|--|(?<![=!<>])=(?!=)|\(")
_COMMENT = re.compile(rb"/\*|//")
_SEPARATOR = re.compile(r"\s*,\s*")
_VOID_CAST = re.compile(
    rb"\(\s*(?:const\s+)?void\s*\*\s*\)|(?:reinterpret|static|const)_cast\s*<\s*(?:const\s+)?"
    rb"void\s*\*\s*>|HIP_SYMBOL\s*\("
)
_NULL = re.compile(rb"nullptr|NULL|0")
_VOID_POINTER_CAST = re.compile(
    rb"(?:\(\s*(?:const\s+)?void\s*(?P<stars>(?:\*\s*)+)\)"
    rb"|(?:reinterpret|static|const)_cast\s*<\s*(?:const\s+)?void\s*(?P<stars2>(?:\*\s*)+)>)"
)
_IDENT = re.compile(rb"[A-Za-z_]\w*")


@dataclass
class PlannedCall:
    site: NameSite
    rule: ArgumentRule
    borrowed: bytes | None = None


@dataclass
class ArgumentOutcome:
    edits: list[Edit]
    findings: list[tuple[str, int, int, str, str]] = field(default_factory=list)  # code, start, end, name, message


def choose_rule(
    rules: tuple[ArgumentRule, ...], site: NameSite, target_kind: str, version: Version, source: bytes = b""
) -> ArgumentRule | None:
    """The rule for this use of the name: a rule for its exact argument count wins over one for any count,
    then one whose condition on an argument holds (when_declared before when_matches) over one with none,
    then one for a range of versions (since/until) over one for every version (the generated arity
    findings hold for the release the headers came from; a hand-written rule says when that changed)."""
    count = None if site.arguments is None else len(site.arguments)
    best = None
    for rule in rules:
        if rule.target != target_kind or not rule.matches(count):
            continue
        if rule.since and version < parse_version(rule.since):
            continue
        if rule.until and version >= parse_version(rule.until):
            continue
        if rule.when_argument is not None and not _condition_holds(rule, site, source):
            continue
        if best is None or _specificity(rule) > _specificity(best):
            best = rule
    return best


def _specificity(rule: ArgumentRule) -> tuple[bool, bool, bool, bool]:
    return (
        rule.count is not None,
        rule.when_declared is not None,
        rule.when_matches is not None,
        bool(rule.since or rule.until),
    )


def _condition_holds(rule: ArgumentRule, site: NameSite, source: bytes) -> bool:
    """The rule's when_declared and when_matches hold for its when_argument in this call."""
    arguments, index = site.arguments, rule.when_argument
    if not arguments or index is None or index >= len(arguments):
        return False
    text = source[slice(*arguments[index])]
    if rule.when_declared is not None and not declared_value(text, source, rule.when_declared):
        return False
    return rule.when_matches is None or re.search(rule.when_matches.encode(), text) is not None


def plan_call(
    site: NameSite, rule: ArgumentRule, source: bytes, calls_by_name: dict[str, list[NameSite]]
) -> tuple[PlannedCall | None, list[tuple[str, int, int, str, str]]]:
    """Check the rewrite can be made here; (plan, findings). No plan: the findings say why."""
    name = site.name
    if rule.arguments is None:
        return None, [(rule.code, site.start, site.end, name, rule.message)] if rule.message else []
    arguments = site.arguments
    if arguments is None:
        return None, []
    texts = [source[a:b] for a, b in arguments]
    problem = None
    if any(b"__VA_ARGS__" in t for t in texts):
        problem = "its arguments come from __VA_ARGS__"
    kept = _referenced(rule.arguments, len(arguments))
    dropped = [i for i in range(len(arguments)) if i not in kept]
    for i in dropped:
        if _COMMENT.search(texts[i]) or b"\n" in texts[i]:
            problem = f"argument {i + 1} holds a comment or a line break"
        elif _SIDE_EFFECT.search(texts[i]) and not _NULL.fullmatch(texts[i].strip()):
            problem = f"argument {i + 1} ('{_shown(texts[i])}') may have side effects"
    for i in range(len(arguments) - 1):
        if _COMMENT.search(source[arguments[i][1] : arguments[i + 1][0]]) and not _adjacent_kept(rule.arguments, i):
            problem = "a comment sits between arguments the rewrite moves"
    borrowed = None
    if problem is None and rule.borrow_call is not None:
        candidates = [c for name in (rule.borrow_call, *rule.borrow_also) for c in calls_by_name.get(name, [])]
        borrowed, problem = _borrow(site, rule, source, candidates)
    if problem is not None:
        hint = f": {rule.message}" if rule.message else f" as ({rule.arguments})"
        return None, [
            (
                "HP105",
                site.start,
                site.end,
                name,
                f"'{name}' takes other arguments in HIP, and hipport cannot rewrite this call ({problem}); "
                f"rewrite it by hand{hint}",
            )
        ]
    findings: list[tuple[str, int, int, str, str]] = []
    meaningful = (
        []
        if "*" in rule.silent_values
        else [
            texts[i].decode("utf-8", "replace").strip()
            for i in dropped
            if texts[i].decode("utf-8", "replace").strip() not in rule.silent_values
        ]
    )
    if rule.message and (rule.report or meaningful or (not rule.silent_values and dropped)):
        detail = f" (dropped: {', '.join(meaningful)})" if meaningful else ""
        findings.append((rule.code, site.start, site.end, name, rule.message + detail))
    return PlannedCall(site, rule, borrowed), findings


def calls_by_name(sites: list[NameSite]) -> dict[str, list[NameSite]]:
    """The file's calls by callee, for rules that borrow an argument of another call."""
    calls: dict[str, list[NameSite]] = {}
    for site in sites:
        if site.arguments is not None:
            calls.setdefault(site.name, []).append(site)
    return calls


def is_address(argument: bytes) -> bool:
    """Whether an argument is evidently an address already: &x, or a cast to a void pointer."""
    argument = argument.lstrip()
    return argument.startswith(b"&") or _VOID_CAST.match(argument) is not None


def dropped_spans(plan: PlannedCall) -> list[tuple[int, int]]:
    """The argument spans the rewrite deletes: names inside them are not ported."""
    arguments = plan.site.arguments or []
    kept = _referenced(plan.rule.arguments or "", len(arguments))
    return [span for i, span in enumerate(arguments) if i not in kept]


def apply_plans(plans: list[PlannedCall], source: bytes, edits: list[Edit], c_source: bool = False) -> list[Edit]:
    """edits with each planned call's argument list rewritten, taking in the edits inside it; a C
    source's casts are C's `(T)(x)`, which it compiles as C on AMD and as C++ on NVIDIA."""
    for plan in plans:
        region = _region(plan.site, source)
        if region is None:
            continue
        start, end = region
        inside = [e for e in edits if start <= e.start and e.end <= end]
        text = _compose(plan, source, inside, c_source)
        original = source[start:end]
        if text == original:
            continue
        taken = {id(e) for e in inside}
        edits = [e for e in edits if id(e) not in taken]
        prefix = _common_prefix(original, text)
        suffix = _common_prefix(original[prefix:][::-1], text[prefix:][::-1])
        edits.append(Edit(start + prefix, end - suffix, text[prefix : len(text) - suffix]))
    return edits


def _compose(plan: PlannedCall, source: bytes, inside: list[Edit], c_source: bool) -> bytes:
    arguments = plan.site.arguments or []

    def written(i: int) -> bytes:
        a, b = arguments[i]
        local = [Edit(e.start - a, e.end - a, e.text) for e in inside if a <= e.start and e.end <= b]
        ordered, _ = order_edits(local)
        return apply_edits(source[a:b], ordered)

    out: list[bytes] = []
    pieces = template_pieces(plan.rule.arguments or "")
    gaps = [source[arguments[i][1] : arguments[i + 1][0]] for i in range(len(arguments) - 1)]
    previous: int | None = None
    separators = 0  # the call's own commas and line breaks are reused in order, so its layout stays
    for n, piece in enumerate(pieces):
        if isinstance(piece, str):
            following = pieces[n + 1] if n + 1 < len(pieces) else None
            nxt = _index(following)
            if previous is not None and nxt == previous + 1 and nxt < len(arguments) and _SEPARATOR.fullmatch(piece):
                out.append(gaps[previous])
            elif (
                _SEPARATOR.fullmatch(piece)
                and separators < len(gaps)
                and _SEPARATOR.fullmatch(gaps[separators].decode("utf-8", "replace"))
            ):
                out.append(gaps[separators])
            else:
                out.append(piece.encode("ascii"))
            if _SEPARATOR.fullmatch(piece):
                separators += 1
            continue
        if piece.group("borrowed"):
            out.append(plan.borrowed or b"")
            previous = None
            continue
        index = int(piece.group("index"))
        if index >= len(arguments):  # {N..} past the last argument: nothing, nor the comma before it
            if out and _SEPARATOR.fullmatch(out[-1].decode("ascii", "replace")):
                out.pop()
            previous = None
            continue
        if piece.group("rest"):
            last = len(arguments) - 1
            pieces_text = [written(index)]
            for i in range(index + 1, last + 1):
                pieces_text.append(source[arguments[i - 1][1] : arguments[i][0]])
                pieces_text.append(written(i))
            out.append(b"".join(pieces_text))
            previous = last
            continue
        text = written(index)
        cast = piece.group("cast")
        if cast == "&":
            if not is_address(text):
                text = b"&" + (text if _IDENT.fullmatch(text.strip()) else b"(" + text + b")")
        elif cast is not None and not _already(text, cast, source):
            text = _cast(cast.encode("ascii"), text, c_source)
        out.append(text)
        previous = index
    return b"".join(out)


def _cast(type_name: bytes, text: bytes, c_source: bool) -> bytes:
    if not c_source:
        return b"reinterpret_cast<" + type_name + b">(" + text + b")"
    plain = _IDENT.fullmatch(text.strip()) or is_address(text)
    return b"(" + type_name + b")" + (text if plain else b"(" + text + b")")


def _already(text: bytes, cast: str, source: bytes) -> bool:
    """Whether the argument evidently has the cast's type already (only void pointers are judged)."""
    text = text.strip()
    if "void" not in cast:
        return text.startswith(b"reinterpret_cast<" + cast.encode("ascii") + b">")
    if _NULL.fullmatch(text):
        return True
    written = _VOID_POINTER_CAST.match(text)
    if written is not None:
        # Any object pointer converts to void*, but void** only comes from a void** (or a cast to it).
        stars = (written.group("stars") or written.group("stars2")).count(b"*")
        return stars == cast.count("*") or cast.count("*") == 1
    if _VOID_CAST.match(text):
        return True
    if text.startswith(b"&") and cast.count("*") == 2:  # &p, where this file declares p a void pointer
        text = text[1:].strip()
    if _IDENT.fullmatch(text):  # a variable this file declares as a void pointer
        return re.search(rb"\bvoid\s*\*\s*(?:const\s+)?" + re.escape(text) + rb"\s*[=;,)]", source) is not None
    return False


def _region(site: NameSite, source: bytes) -> tuple[int, int] | None:
    arguments = site.arguments
    if arguments:
        return arguments[0][0], arguments[-1][1]
    m = re.compile(rb"\s*\(\s*").match(source, site.end)
    if m is None or source[m.end() : m.end() + 1] != b")":
        return None
    return m.end(), m.end()


def _referenced(template: str, count: int) -> set[int]:
    kept: set[int] = set()
    for piece in template_pieces(template):
        if isinstance(piece, str) or piece.group("borrowed"):
            continue
        index = int(piece.group("index"))
        kept.update(range(index, count) if piece.group("rest") else [index])
    return kept


def _adjacent_kept(template: str, i: int) -> bool:
    """Whether the template keeps arguments i and i + 1 side by side with a plain comma (their gap survives)."""
    pieces = template_pieces(template)
    for n, piece in enumerate(pieces):
        index = _index(piece)
        if index is None or isinstance(piece, str):
            continue
        if piece.group("rest") and index <= i:
            return True
        between = pieces[n + 1] if n + 1 < len(pieces) else None
        if (
            index == i
            and isinstance(between, str)
            and _SEPARATOR.fullmatch(between)
            and n + 2 < len(pieces)
            and _index(pieces[n + 2]) == i + 1
        ):
            return True
    return False


def _index(piece) -> int | None:
    if piece is None or isinstance(piece, str) or piece.group("borrowed"):
        return None
    return int(piece.group("index"))


def _borrow(
    site: NameSite, rule: ArgumentRule, source: bytes, candidates: list[NameSite]
) -> tuple[bytes | None, str | None]:
    arguments = site.arguments or []
    match, wanted = rule.borrow_match, rule.borrow_argument
    if match is None or wanted is None or match >= len(arguments):
        return None, f"it has no argument {match}"
    other = match if rule.borrow_key is None else rule.borrow_key
    key = _squeezed(source[slice(*arguments[match])])
    found = {
        _squeezed(source[slice(*c.arguments[wanted])])
        for c in candidates
        if c.arguments
        and len(c.arguments) > max(other, wanted)
        and c.start < site.start
        and _squeezed(source[slice(*c.arguments[other])]) == key
    }
    if len(found) != 1:
        how = "no" if not found else "more than one"
        callees = f"{rule.borrow_call}" + (f" (or {', '.join(rule.borrow_also)})" if rule.borrow_also else "")
        return None, f"{how} earlier {callees} call with the same '{key.decode('utf-8', 'replace')}'"
    borrowed = found.pop()
    if not re.fullmatch(rb"[\w.\->&*\[\]() ]+", borrowed):
        return None, f"the {rule.borrow_call} argument is not a plain expression"
    return borrowed, None


def _squeezed(text: bytes) -> bytes:
    return re.sub(rb"\s+", b"", text)


def _common_prefix(a: bytes, b: bytes) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def _shown(text: bytes, limit: int = 40) -> str:
    shown = text.decode("utf-8", "replace").strip()
    return shown if len(shown) <= limit else shown[:limit] + "..."
