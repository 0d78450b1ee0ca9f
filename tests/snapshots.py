"""Finding snapshots (ruff's model): a fixture's findings as a user reads them, one file beside it.

`findings.snap` holds each finding's rendered line (file:line:column: severity code message, as
`hipport check` prints it) and its fix, so a change in wording, position or fix is a reviewed diff.
HIPPORT_UPDATE_SNAPSHOTS=1 rewrites the files instead of comparing them."""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

from hipport.check import format_line

UPDATE = "HIPPORT_UPDATE_SNAPSHOTS"
UPDATE_COMMAND = "make snapshots"


def render_findings(name: str, findings) -> str:
    lines = []
    for finding in sorted(findings, key=lambda f: (f.line, f.column, f.code, f.message)):
        lines.append(format_line(name, finding))
        if finding.fix is not None:
            applicability = f" ({finding.applicability.value})" if finding.applicability is not None else ""
            lines.append(f"  fix{applicability}: {finding.fix}")
    return "\n".join(lines) + "\n" if lines else "no findings\n"


def check_snapshot(path: Path, text: str) -> None:
    if os.environ.get(UPDATE) == "1":
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        return
    if not path.is_file():
        pytest.fail(f"{path} is missing: write it with `{UPDATE_COMMAND}` and review it")
    recorded = path.read_text(encoding="utf-8")
    if recorded != text:
        diff = "".join(
            difflib.unified_diff(
                recorded.splitlines(keepends=True), text.splitlines(keepends=True), str(path), "this run"
            )
        )
        pytest.fail(f"findings differ from {path} (if the change is right: `{UPDATE_COMMAND}`):\n{diff}")
