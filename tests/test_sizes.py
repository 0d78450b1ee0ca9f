"""tools/sizes.py: the size limits `make lint` checks."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _sizes():
    spec = importlib.util.spec_from_file_location("sizes", ROOT / "tools" / "sizes.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_long_function_and_a_long_module_are_named_with_their_lines(tmp_path: Path) -> None:
    sizes = _sizes()
    body = "\n".join(f"    x{i} = {i}" for i in range(sizes.FUNCTION_LINES))
    (tmp_path / "long.py").write_text(f"def short():\n    pass\n\n\ndef long():\n{body}\n", encoding="utf-8")
    (tmp_path / "big.py").write_text("x = 1\n" * (sizes.MODULE_LINES + 1), encoding="utf-8")
    found = sizes.oversized(tmp_path)
    assert found == [
        f"{tmp_path / 'big.py'}:1: module is {sizes.MODULE_LINES + 1} lines (limit {sizes.MODULE_LINES})",
        f"{tmp_path / 'long.py'}:5: function long is {sizes.FUNCTION_LINES + 1} lines (limit {sizes.FUNCTION_LINES})",
    ]
    assert sizes.main([str(tmp_path)]) == 1


def test_functions_at_the_limit_pass(tmp_path: Path) -> None:
    sizes = _sizes()
    body = "\n".join(f"    x{i} = {i}" for i in range(sizes.FUNCTION_LINES - 1))
    (tmp_path / "ok.py").write_text(f"def at_limit():\n{body}\n", encoding="utf-8")
    assert sizes.oversized(tmp_path) == []
