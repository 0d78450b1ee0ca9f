"""Write the documentation pages that are made from the code and the rules, never by hand.

    python tools/gen_docs.py           # write docs/codes.md and docs/modules.md (make docs)
    python tools/gen_docs.py --check   # exit 1, naming the page, if either is not what this writes

docs/codes.md: every finding code, read through the rule loader hipport itself uses
(hipport.ruleset.loader), so the page follows rules/codes.toml and whatever loads codes later.
docs/modules.md: every module of the hipport package with the first line of its docstring, so
the map of the code cannot miss a module. tests/test_docs.py runs --check.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PACKAGE = ROOT / "hipport"

CODES_HEADER = """# Finding codes

Every finding hipport reports has a code: `path:line:col: severity CODE message`. This page is
written by `tools/gen_docs.py` from `rules/codes.toml` (`make docs`; `tests/test_docs.py` fails when
it is out of date): do not edit it by hand. The severity is the code's default; a finding can
carry another (a fix that kept the meaning makes it information), and `[tool.hipport] severity`
changes it for a team (see [configuration.md](configuration.md)). The effort class is what the
report's work estimate counts for the code ([report.md](report.md)). `hipport explain NAME` says
what the rules know of a CUDA name; silence one finding with `// hipport: ignore[CODE]`
([check.md](check.md)).
"""

MODULES_HEADER = """# Modules

Every module of the `hipport` package, with the first line of its docstring. Written by
`tools/gen_docs.py` (`make docs`; `tests/test_docs.py` fails when it is out of date): do not edit it
by hand; write the module's docstring instead. How the layers fit: [architecture.md](architecture.md).
"""


def family_titles(rules) -> list[tuple[str, str]]:
    """(prefix, title) of the code families, as the reports group findings (rules/codes.toml's family)."""
    return [(prefix, title) for prefix, title in rules.code_tables.families if len(prefix) == 3]


def render_codes() -> str:
    from hipport.ruleset.loader import load_rules

    rules = load_rules(use_cache=False)
    codes = rules.codes
    groups: dict[str, list[str]] = {}
    for code in sorted(codes):
        family = next((title for prefix, title in family_titles(rules) if code.startswith(prefix)), "other")
        groups.setdefault(family, []).append(code)
    lines = [CODES_HEADER]
    for family, members in groups.items():
        lines += [f"## {family}", "", "| code | name | severity | effort | meaning |", "|---|---|---|---|---|"]
        for code in members:
            info = codes[code]
            lines.append(
                f'| <a id="{code}"></a>{code} | {info.name} | {info.severity} | {info.effort} | {_cell(info.summary)} |'
            )
        lines.append("")
    lines += ["## What each code means and what to do", ""]
    for code in sorted(codes):
        info = codes[code]
        lines += [f"### {code} {info.name}", "", f"{info.summary[:1].upper()}{info.summary[1:]}. {info.help}", ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def render_modules() -> str:
    lines = [MODULES_HEADER]
    for path in sorted(PACKAGE.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        module = path.relative_to(ROOT).with_suffix("").as_posix().replace("/", ".").removesuffix(".__init__")
        lines.append(f"- `{module}`: {_cell(_first_line(path))}")
    return "\n".join(lines) + "\n"


def pages() -> dict[Path, str]:
    return {DOCS / "codes.md": render_codes(), DOCS / "modules.md": render_modules()}


def _first_line(path: Path) -> str:
    try:
        docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    except SyntaxError:
        docstring = None
    if not docstring:
        return "(no docstring)"
    first = docstring.strip().split("\n\n")[0]
    return " ".join(first.split())


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    stale = []
    for path, text in pages().items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        if args.check:
            stale.append(path.relative_to(ROOT).as_posix())
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT).as_posix()}")
    if stale:
        print(f"out of date: {', '.join(stale)}; run make docs (python tools/gen_docs.py)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
