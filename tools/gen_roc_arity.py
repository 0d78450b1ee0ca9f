#!/usr/bin/env python3
"""Generate rules/generated/rocsparse-arity.toml: cuSPARSE calls whose rocSPARSE name (--roc) takes
another number of arguments.

cuSPARSE's headers are not installed here, but hipSPARSE's are, and hipSPARSE keeps cuSPARSE's
parameter lists (rules/generated/arity-cusparse.toml lists its two exceptions): so for every
cuSPARSE function the reference data maps to both names, the hipSPARSE declaration stands in for
cuSPARSE's, and the rocSPARSE declaration is read from a rocSPARSE include tree (ROCm/rocSPARSE's
library/include, or /opt/rocm/include). Each count a cuSPARSE call may have that rocSPARSE does
not accept becomes a `target = "roc"` [[argument_rewrite]] finding (HP106); rules/rocsparse.toml,
loaded later, replaces it where hipport knows the rewrite.

    python tools/gen_roc_arity.py --rocsparse-include DIR [--hip-include DIR] [--out rules/generated]
"""
from __future__ import annotations

import argparse
import sys
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_arity import (
    ROOT, _counts, _file, _hip_version, _plural, _shown, _toml, code_of, declarations, find, hip_roots,
)


def roc_pairs() -> list[tuple[str, str, str]]:
    data = tomllib.loads((ROOT / "rules" / "generated" / "cusparse.toml").read_text(encoding="utf-8"))
    return sorted((r["cuda"], r["hip"], r["roc"]) for r in data.get("rename", [])
                  if r.get("kind") == "function" and r.get("hip") and r.get("roc"))


def compare(rocsparse: Path, hip: list[Path], label: str) -> str | None:
    hip_files = find(hip, "hipsparse/hipsparse.h")
    roc_files = sorted(rocsparse.rglob("rocsparse*.h"))
    if not hip_files or not roc_files:
        return None
    # hipSPARSE's own departures from cuSPARSE (its arity file) are no stand-in for cuSPARSE's lists
    exceptions = {r["cuda"] for r in tomllib.loads((ROOT / "rules" / "generated" / "arity-cusparse.toml")
                                                   .read_text(encoding="utf-8")).get("argument_rewrite", [])}
    pairs = [p for p in roc_pairs() if p[0] not in exceptions]
    hip_decls = declarations("\n".join(code_of(p) for p in hip_files), {h for _, h, _ in pairs})
    roc_decls = declarations("\n".join(code_of(p) for p in roc_files), {r for _, _, r in pairs})
    lines, compared = [], 0
    for cuda, hipname, roc in pairs:
        if hipname not in hip_decls or roc not in roc_decls:
            continue
        compared += 1
        for count in sorted(_counts(hip_decls[hipname]) - _counts(roc_decls[roc])):
            message = (f"{roc} takes {_plural(_counts(roc_decls[roc]))} {_shown(roc_decls[roc])}; this call "
                       f"passes {count}, as cuSPARSE's {cuda} does (hipSPARSE's {hipname} "
                       f"{_shown(hip_decls[hipname])}): rewrite its arguments by hand, or port without --roc")
            lines.append(f"  {{ cuda = {_toml(cuda)}, count = {count}, target = \"roc\", message = {_toml(message)} }},")
    return _file("cuSPARSE calls whose rocSPARSE counterpart (--roc) takes another number of arguments",
                 f"hipSPARSE {_hip_version(hip)}'s hipsparse.h (cuSPARSE's parameter lists) against the rocSPARSE "
                 f"headers of {label}; {compared} pairs compared, {len(lines)} differences", lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "rules" / "generated")
    parser.add_argument("--rocsparse-include", type=Path, required=True)
    parser.add_argument("--label", default="rocSPARSE", help="where the rocSPARSE headers came from, for the header comment")
    parser.add_argument("--hip-include", type=Path, action="append", default=[])
    args = parser.parse_args(argv)
    text = compare(args.rocsparse_include, hip_roots(args.hip_include), args.label)
    if text is None:
        print("hipSPARSE or rocSPARSE headers not found", file=sys.stderr)
        return 1
    text = text.replace("tools/gen_arity.py", "tools/gen_roc_arity.py", 1).replace(
        "rules/arguments.toml, loaded after", "rules/rocsparse.toml, loaded after", 1)
    (args.out / "rocsparse-arity.toml").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
