"""What must hold for every input hipport ports, however odd: the fuzz oracle.

check_port() ports one input and asserts hipport's guarantees on the result.
The hypothesis tests, the hostile-input tests, the regression fixtures and the
atheris harness all call it, so a guarantee is stated once.
"""
from __future__ import annotations

from hipport.api import port_bytes
from hipport.diagnostics import Finding
from hipport.options import Options
from hipport.engine.port import FileResult
from hipport.ruleset.model import RuleSet

UTF16_32_BOMS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")
LINE_BREAKS = (b"\n", b"\r")


def check_port(source: bytes, rules: RuleSet, options: Options = Options(),
               idempotent: bool = True) -> FileResult:
    result = port_bytes(source, rules, options, "fuzz.cu")  # guarantee 1: never raises
    assert result.source is source or result.source == source
    check_edits(source, result)
    check_findings(source, result.findings)
    check_line_endings(source, result.output)
    check_encoding(source, result)
    # After a syntax error (HP9xx) the first pass's edits can change how the parser
    # recovers, so a second pass may see more; elsewhere it must find nothing to do.
    if idempotent and not any(f.code.startswith("HP9") for f in result.findings):
        again = port_bytes(result.output, rules, options, "fuzz.cu")
        assert again.edits == [], f"second run edits {again.edits!r} in {result.output!r}"
    return result


def check_edits(source: bytes, result: FileResult) -> None:
    """Edits are in bounds, sorted, disjoint, surgical, and explain every changed byte."""
    cursor = 0
    pieces = []
    for edit in result.edits:
        assert isinstance(edit.text, bytes)
        assert 0 <= cursor <= edit.start <= edit.end <= len(source), f"edit {edit} overlaps or is out of bounds"
        removed = source[edit.start:edit.end]
        if _is_line_deletion(source, edit.start, edit.end, edit.text):
            assert _line_breaks(removed[:-1].rstrip(b"\r")) == 0, f"deletion {edit} spans several lines: {removed!r}"
        else:
            assert _line_breaks(removed) == 0, f"edit {edit} removes a line break: {removed!r}"
            assert b"/*" not in removed and b"//" not in removed, f"edit {edit} removes a comment: {removed!r}"
        pieces += [source[cursor:edit.start], edit.text]
        cursor = edit.end
    pieces.append(source[cursor:])
    assert b"".join(pieces) == result.output, "output differs from the source outside the edits"
    if not result.edits:
        assert result.output == source


def check_findings(source: bytes, findings: list[Finding]) -> None:
    for finding in findings:
        assert 0 <= finding.start <= len(source) and finding.end <= len(source), finding
        assert finding.line >= 1 and finding.column >= 1, finding
        assert finding.code and finding.message.strip(), finding


def check_line_endings(source: bytes, output: bytes) -> None:
    """The output keeps the source's line-ending convention (LF, CRLF or CR only)."""
    style = line_ending_style(source)
    if style in ("lf", "crlf", "cr"):
        assert line_ending_style(output) in (style, "none"), f"line endings changed from {style}"


def check_encoding(source: bytes, result: FileResult) -> None:
    output = result.output
    if source.startswith(UTF16_32_BOMS):
        # hipport does not read UTF-16/32: it must leave such a file alone and say so.
        assert output == source, "a UTF-16/32 file was rewritten"
        assert result.findings, "a UTF-16/32 file was skipped without a finding"
        return
    if source.startswith(b"\xef\xbb\xbf"):
        assert output.startswith(b"\xef\xbb\xbf"), "the UTF-8 BOM was lost"
    if decodes(source):
        assert decodes(output), "valid UTF-8 became invalid"
    elif decodes(output):
        removed = b"".join(source[e.start:e.end] for e in result.edits)
        assert any(b > 0x7F for b in removed), "invalid UTF-8 became valid without an edit removing it"


def line_ending_style(data: bytes) -> str:
    """"lf", "crlf" or "cr" when the data uses one convention only, else "mixed" or "none"."""
    crlf = data.count(b"\r\n")
    lf = data.count(b"\n") - crlf
    cr = data.count(b"\r") - crlf
    styles = [name for name, count in (("lf", lf), ("crlf", crlf), ("cr", cr)) if count]
    return styles[0] if len(styles) == 1 else "mixed" if styles else "none"


def decodes(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _line_breaks(data: bytes) -> int:
    return data.count(b"\n") + data.count(b"\r")


def _is_line_deletion(source: bytes, start: int, end: int, text: bytes) -> bool:
    """A whole line removed (an #include the port drops), terminator included."""
    at_line_start = start == 0 or source[start - 1:start] in LINE_BREAKS or (
        start == 3 and source.startswith(b"\xef\xbb\xbf"))
    at_line_end = end == len(source) or source[end - 1:end] in LINE_BREAKS
    return text == b"" and at_line_start and at_line_end and end > start
