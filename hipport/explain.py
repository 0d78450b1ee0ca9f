"""What the rule set knows about a name: `hipport explain` and `hipport rules`."""

from __future__ import annotations

import difflib
from collections import Counter
from dataclasses import asdict
from typing import cast

from hipport.ruleset.model import Origin, RuleSet
from hipport.versions import parse_version


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
        entries.append(
            {
                "kind": "header",
                "cuda": header.cuda,
                "hip": header.hip,
                "drop": header.drop,
                "library": header.library,
                "roc": header.roc,
                "flat_path": header.hip_flat,
                "roc_flat_path": header.roc_flat,
                "dir_added": header.dir_added,
                "flat_removed": header.flat_removed,
                "rule_file": header.origin.path,
            }
        )
    namespace = rules.namespaces.get(name)
    if namespace is not None:
        entries.append(
            {
                "kind": "namespace",
                "cuda": namespace.cuda,
                "hip": namespace.hip,
                "library": namespace.library,
                "rule_file": namespace.origin.path,
            }
        )
    entries.extend(_macro_entries(name, rules))
    lint = rules.lints.get(name)
    if lint is not None and rule is None:
        entries.append(
            {"kind": "lint", "cuda": name, "code": lint.code, "message": lint.message, "rule_file": lint.origin.path}
        )
    rewrite = rules.rewrites.get(name)
    if rewrite is not None:  # version-gated rewrites outrank the reference table: listed first
        entries.insert(0, _rewrite_entry(rewrite))
    for structural in rules.structural_lints:
        if name in structural.names:
            entries.append(
                {
                    "kind": "lint",
                    "cuda": name,
                    "code": structural.code,
                    "message": structural.message.replace("{name}", name),
                    "rule_file": cast(Origin, structural.origin).path,
                }
            )
    if rules.dialects:
        from hipport.explain_dialects import dialect_entries

        entries.extend(dialect_entries(name, rules))
    result = {"name": name, "known": bool(entries), "entries": entries}
    if not entries:
        pool = set(rules.names) | {r.hip for r in rules.names.values() if r.hip} | set(rules.headers)
        pool |= set(rules.macros)
        result["suggestions"] = difflib.get_close_matches(name, sorted(pool), n=5, cutoff=0.6)
    return result


def _macro_entries(name: str, rules: RuleSet) -> list[dict]:
    """NAME as a CUDA header macro tested in #if/#ifdef (rules/macros.toml), or as the HIP macro
    one becomes."""
    found = []
    macro = rules.macros.get(name)
    if macro is not None:
        found.append(macro)
    found.extend(m for m in rules.macros.values() if m.cuda != name and m.hip == name)
    entries = []
    for m in found:
        if m.hip is None:
            rewrite = "none: HIP defines no counterpart, the test is left as written (HP302)"
        else:
            rewrite = f"in #if/#ifdef/#ifndef/#elif conditions only, to {m.hip}"
        entry = {
            "kind": "macro",
            "cuda": m.cuda,
            "hip": m.hip,
            "supported": m.hip is not None,
            "header": m.header,
            "added": m.added,
            "rewrite": rewrite,
            "note": m.note,
            "rule_file": m.origin.path,
            "user_rule": not m.origin.builtin,
        }
        entries.append({k: v for k, v in entry.items() if v is not None})
    return entries


def _name_entry(rule, rules: RuleSet) -> dict:
    data = {k: v for k, v in asdict(rule).items() if v not in (None, "") and k != "origin"}
    data["supported"] = rule.supported
    if rule.erase:
        data["port_action"] = "deletes it where it qualifies a declaration (no finding)"
    if rule.cuda in rules.polyfills:
        data["port_action"] = f"calls {rules.polyfills[rule.cuda][0]}, which it defines in the file (no finding)"
    data["rule_file"] = rule.origin.path
    data["user_rule"] = not rule.origin.builtin
    wrap = rules.wraps.get(rule.cuda)
    if wrap is not None:
        data["rewrite"] = f"argument {wrap.argument + 1} is wrapped in {wrap.wrapper}(...)"
    lint = rules.lints.get(rule.cuda)
    if lint is not None:
        data["note"] = f"{lint.code}: {lint.message}"
    return data


def _rewrite_entry(rewrite) -> dict:
    if rewrite.older is None:
        older = f"none: an error (HP201) for targets before HIP {rewrite.since}"
    else:
        dropped = f" without argument {rewrite.drop_argument + 1}" if rewrite.drop_argument is not None else ""
        arguments = f" with arguments ({rewrite.older_arguments})" if rewrite.older_arguments else ""
        older = f"before HIP {rewrite.since}: {rewrite.older}{dropped}{arguments} (HP211)"
    data = {
        "kind": "rewrite",
        "cuda": rewrite.cuda,
        "hip": rewrite.hip,
        "added": rewrite.since,
        "library": rewrite.library,
        "rewrite": older,
        "rule_file": rewrite.origin.path,
    }
    if rewrite.enable_define:
        data["note"] = (
            f"from HIP {rewrite.since} until {rewrite.default_since} HIP declares it only with "
            f"-D{rewrite.enable_define} (HP212); takes precedence over the reference table"
        )
    else:
        data["note"] = "takes precedence over the reference table"
    return data


def render_explain(result: dict) -> str:
    if not result["known"]:
        lines = [f"{result['name']}: no rule knows this name"]
        if result.get("suggestions"):
            lines.append("did you mean: " + ", ".join(result["suggestions"]))
        return "\n".join(lines)
    lines = []
    labels = [
        ("library", "library"),
        ("kind", "kind"),
        ("section", "section"),
        ("header", "CUDA header"),
        ("hip", "HIP"),
        ("value_test", "#if M becomes"),
        ("port_action", "the port"),
        ("replacement", "instead, use"),
        ("dialect", "dialect"),
        ("releases", "target releases"),
        ("offers", "ROCm build offers"),
        ("facts_from", "facts from"),
        ("roc", "ROC"),
        ("added", "HIP added"),
        ("deprecated", "HIP deprecated"),
        ("removed", "HIP removed"),
        ("experimental", "HIP experimental"),
        ("cuda_added", "CUDA added"),
        ("cuda_deprecated", "CUDA deprecated"),
        ("cuda_removed", "CUDA removed"),
        ("rewrite", "rewrite"),
        ("note", "note"),
        ("drop", "dropped"),
        ("flat_path", "older flat path"),
        ("roc_flat_path", "older ROC path"),
        ("dir_added", "directory path in"),
        ("flat_removed", "flat path gone in"),
        ("code", "code"),
        ("message", "message"),
        ("rule_file", "rule file"),
    ]
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
    total: Counter[str] = Counter()
    mapped: Counter[str] = Counter()
    for rule in rules.names.values():
        total[rule.library] += 1
        mapped[rule.library] += rule.supported
    ref_total: Counter[str] = Counter()
    ref_with_target: Counter[str] = Counter()
    ref_mapped_ok: Counter[str] = Counter()
    ref_unsupported_ok: Counter[str] = Counter()
    ref_beyond: Counter[str] = Counter()  # rows without a target that a hand-written rule maps (bf16.toml)
    generated = _generated_rule_files()
    for row in reference_rows or []:
        library = row["library"]
        ref_total[library] += 1
        target = row[rules.target_columns.get(library, "hip_name")]  # MIOpen's column for cuDNN
        ref_with_target[library] += bool(target)
        named = rules.names.get(row["cuda_name"])
        if named is None:
            continue
        if target and named.supported:
            ref_mapped_ok[library] += 1
        elif not target and not named.supported:
            ref_unsupported_ok[library] += 1
        elif not target and named.origin.builtin and named.origin.path not in generated:
            ref_beyond[library] += 1
    table = []
    for library in sorted(set(total) | set(ref_total)):
        row = {
            "library": library,
            "names": total[library],
            "mapped": mapped[library],
            "unsupported": total[library] - mapped[library],
        }
        if reference_rows is not None:
            known = ref_mapped_ok[library] + ref_unsupported_ok[library] + ref_beyond[library]
            row["reference_rows"] = ref_total[library]
            # rows naming a HIP (for cuDNN: MIOpen) target, and how many of them a rule maps;
            # the other rows, and how many of them a rule knows as unsupported
            row["reference_with_target"] = ref_with_target[library]
            row["reference_mapped"] = ref_mapped_ok[library]
            row["reference_without_target"] = ref_total[library] - ref_with_target[library]
            row["reference_unsupported"] = ref_unsupported_ok[library]
            row["reference_mapped_beyond"] = ref_beyond[library]  # HIP has it though the reference has none
            row["coverage"] = round(100.0 * known / ref_total[library], 2) if ref_total[library] else None
        table.append(row)
    return table


def list_names(
    rules: RuleSet, library: str | None = None, kind: str | None = None, status: str = "all", newer_than=None
) -> list[dict]:
    """Name rules as rows, filtered: status is all, mapped or unsupported; newer_than
    keeps mappings whose HIP name was added after that version (what a target lacks)."""
    rows = []
    for name in sorted(rules.names):
        rule = rules.names[name]
        if library and rule.library.lower() != library.lower():
            continue
        if kind and rule.kind != kind:
            continue
        if (status == "mapped" and rule.hip is None) or (status == "unsupported" and rule.hip is not None):
            continue
        if newer_than is not None and not (rule.added and parse_version(rule.added) > newer_than):
            continue
        rows.append(
            {
                "cuda": rule.cuda,
                "hip": rule.hip,
                "roc": rule.roc,
                "library": rule.library,
                "kind": rule.kind,
                "added": rule.added,
                "deprecated": rule.deprecated,
                "removed": rule.removed,
                "origin": rule.origin.path,
            }
        )
    return rows


def _generated_rule_files() -> frozenset[str]:
    """The names of rules/generated's files (the reference's own rules), as a built-in Origin gives them."""
    from hipport.ruleset.loader import builtin_rules_dir

    return frozenset(path.name for path in (builtin_rules_dir() / "generated").glob("*.toml"))
