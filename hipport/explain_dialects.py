"""`hipport explain` for a dialect's names (PyTorch's at::cuda API): what each target release's
ROCm build offers for NAME, from the dialect's rule layers (hipport/ruleset/dialects.py)."""

from __future__ import annotations

from hipport.engine.includes import renamed_words
from hipport.ruleset.model import RuleSet


def dialect_entries(name: str, rules: RuleSet) -> list[dict]:
    """One entry per dialect layer that knows NAME (qualified or not, a header path, or a spelling
    the dialect writes)."""
    last = name.rsplit("::", 1)[-1]
    entries = []
    for dialect in rules.dialects.values():
        for layer in dialect.layers:
            found = _layer_rule(layer, name, last)
            if found is None:
                continue
            kind, rule = found
            hip = rule.hip
            if kind == "header" and hip is not None and rule.cuda != name:  # a directory rule
                hip += renamed_words(name[len(rule.cuda) :], rule.rename_words)
            entry = {
                "kind": f"{dialect.name} {kind}",
                "cuda": name if kind == "header" else rule.cuda,
                "dialect": dialect.title or dialect.name,
                "releases": _releases(layer.since, layer.until),
                "hip": hip,
                "supported": rule.hip is not None,
                "offers": _offer(rule, kind, hip),
                "note": rule.note,
                "facts_from": layer.facts,
                "rule_file": rule.origin.path,
            }
            entries.append({k: v for k, v in entry.items() if v is not None})
    return entries


def _layer_rule(layer, name: str, last: str):
    for kind, table, keys in (
        ("header", layer.headers, _directories(name)),
        ("qualified name", layer.qualified, _qualified_keys(name)),
        ("name", layer.names, (name, last)),
        ("macro", layer.macros, (name,)),
    ):
        for key in keys:
            rule = table.get(key)
            if rule is not None:
                return kind, rule
        if kind == "name":  # a spelling the dialect writes (getCurrentHIPStreamMasqueradingAsCUDA)
            for rule in table.values():
                if rule.hip in (name, last) and rule.hip != rule.cuda:
                    return kind, rule
    return None


def _directories(path: str) -> list[str]:
    """The path, then each directory above it ending in /: a header's rule, or its directory's."""
    return [path] + [path[: i + 1] for i in range(len(path) - 1, 0, -1) if path[i] == "/"]


def _qualified_keys(name: str) -> list[str]:
    """at::cuda::getCurrentCUDAStream -> cuda::getCurrentCUDAStream, getCurrentCUDAStream: the
    qualified rules hipify keys from a namespace below at:: or c10::."""
    parts = name.split("::")
    return ["::".join(parts[i:]) for i in range(len(parts)) if len(parts) - i >= 2]


def _releases(since: str | None, until: str | None) -> str:
    if since and until:
        return f"{since} to before {until}"
    if since:
        return f"{since} and later"
    if until:
        return f"before {until}"
    return "every release"


def _offer(rule, kind: str, hip: str | None) -> str:
    if rule.hip is None:
        return "nothing: no ROCm counterpart"
    if getattr(rule, "kind", "") == "kept" or rule.hip == rule.cuda:
        return "the same name: the ROCm build declares it as it is"
    return f"'{hip}' ({kind} the port writes)"
