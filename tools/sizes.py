"""The house's size limits, checked: no module over 400 lines, no function over 80.

`make lint` runs it on hipport/. A module or function over its limit is one line,
`path:line: what is N lines (limit L)`, and the exit status is 1.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

MODULE_LINES = 400
FUNCTION_LINES = 80


def oversized(root: Path) -> list[str]:
    """Every module and function under `root` past its limit, as one line each."""
    found = []
    for path in sorted(root.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        lines = source.count("\n")
        if lines > MODULE_LINES:
            found.append(f"{path}:1: module is {lines} lines (limit {MODULE_LINES})")
        for node in ast.walk(ast.parse(source, filename=str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > FUNCTION_LINES:
                    found.append(
                        f"{path}:{node.lineno}: function {node.name} is {length} lines (limit {FUNCTION_LINES})"
                    )
    return found


def main(argv: list[str]) -> int:
    found = [line for root in argv or ["hipport"] for line in oversized(Path(root))]
    print(
        "\n".join(found)
        if found
        else f"sizes: every module within {MODULE_LINES} lines, every function within {FUNCTION_LINES}"
    )
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
