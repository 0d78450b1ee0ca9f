"""What the rule set knows about a name: `hipport explain` and `hipport rules`."""
from __future__ import annotations

import difflib
from collections import Counter
from dataclasses import asdict

from hipport.rules.ruleset import RuleSet


def explain(name: str, rules: RuleSet) -> dict:
    """A JSON-able description of NAME (CUDA or HIP), or suggestions when unknown."""
    entries = []
    rule = rules.names.get(name)
    if rule is not None:
        entries.append(_name_entry(rule, rules))
    for other in rules.names.values():
        if other.cuda != name and name in (other.hip, other.roc):
            entries.append(_name_entry(other, rules))
    header = rules.headers.get(name)
    if header is not None:
        entries.append({"kind": "header", "cuda": header.cuda, "hip": header.hip, "drop": header.drop,
                        "library": header.library, "roc": header.roc, "flat_path": header.hip_flat,
                        "rule_file": header.origin.path})
    namespace = rules.namespaces.get(name)
    if namespace is not None:
        entries.append({"kind": "namespace", "cuda": namespace.cuda, "hip": namespace.hip,
                        "library": namespace.library, "rule_file": namespace.origin.path})
    lint = rules.lints.get(name)
    if lint is not None and rule is None:
        entries.append({"kind": "lint", "cuda": name, "code": lint.code, "message": lint.message,
                        "rule_file": lint.origin.path})
    result = {"name": name, "known": bool(entries), "entries": entries}
    if not entries:
        pool = set(rules.names) | {r.hip for r in rules.names.values() if r.hip} | set(rules.headers)
        result["suggestions"] = difflib.get_close_matches(name, sorted(pool), n=5, cutoff=0.6)
    return result


def _name_entry(rule, rules: RuleSet) -> dict:
    data = {k: v for k, v in asdict(rule).items() if v not in (None, "") and k != "origin"}
    data["supported"] = rule.supported
    data["rule_file"] = rule.origin.path
    data["user_rule"] = not rule.origin.builtin
    wrap = rules.wraps.get(rule.cuda)
    if wrap is not None:
        data["rewrite"] = f"argument {wrap.argument + 1} is wrapped in {wrap.wrapper}(...)"
    lint = rules.lints.get(rule.cuda)
    if lint is not None:
        data["note"] = f"{lint.code}: {lint.message}"
    return data


def render_explain(result: dict) -> str:
    if not result["known"]:
        lines = [f"{result['name']}: no rule knows this name"]
        if result.get("suggestions"):
            lines.append("did you mean: " + ", ".join(result["suggestions"]))
        return "\n".join(lines)
    lines = []
    labels = [("library", "library"), ("kind", "kind"), ("section", "section"), ("hip", "HIP"),
              ("roc", "ROC"), ("added", "HIP added"), ("deprecated", "HIP deprecated"),
              ("removed", "HIP removed"), ("experimental", "HIP experimental"), ("cuda_added", "CUDA added"),
              ("cuda_deprecated", "CUDA deprecated"), ("cuda_removed", "CUDA removed"), ("rewrite", "rewrite"),
              ("note", "note"), ("drop", "dropped"), ("flat_path", "older flat path"), ("code", "code"),
              ("message", "message"), ("rule_file", "rule file")]
    for entry in result["entries"]:
        title = entry.get("cuda", result["name"])
        status = "" if entry.get("supported", True) else "  (no HIP equivalent)"
        lines.append(f"{title}{status}")
        for key, label in labels:
            if key in entry and entry[key] not in (None, False):
                lines.append(f"  {label + ':':18} {entry[key]}")
        if entry.get("user_rule"):
            lines.append(f"  {'precedence:':18} user rule, overrides the built-in one")
    return "\n".join(lines)


def stats(rules: RuleSet, reference_rows: list[dict] | None = None) -> list[dict]:
    """Per-library counts; with the reference CSV rows, coverage against them."""
    total, mapped = Counter(), Counter()
    for rule in rules.names.values():
        total[rule.library] += 1
        mapped[rule.library] += rule.supported
    ref_total, ref_mapped_ok, ref_unsupported_ok = Counter(), Counter(), Counter()
    for row in reference_rows or []:
        library = row["library"]
        ref_total[library] += 1
        rule = rules.names.get(row["cuda_name"])
        if rule is None:
            continue
        if row["hip_name"] and rule.supported:
            ref_mapped_ok[library] += 1
        elif not row["hip_name"] and not rule.supported:
            ref_unsupported_ok[library] += 1
    table = []
    for library in sorted(set(total) | set(ref_total)):
        row = {"library": library, "names": total[library], "mapped": mapped[library],
               "unsupported": total[library] - mapped[library]}
        if reference_rows is not None:
            known = ref_mapped_ok[library] + ref_unsupported_ok[library]
            row["reference_rows"] = ref_total[library]
            row["coverage"] = round(100.0 * known / ref_total[library], 2) if ref_total[library] else None
        table.append(row)
    return table
